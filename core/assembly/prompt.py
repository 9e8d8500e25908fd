"""Turn retrieval packs into an LLM-ready prompt with citations and a token budget.

Prompt layout (numeric citations)::

    <question>

    Context:

    [¹]
    Doc: <file name of the document (its id when the name is not known)>
    Path: Chapter 3 > Section 3.2        (left out when the pack has no heading path)
    ---
    <pack text; the spans of a multi-span pack are separated by a blank line>

    [²]
    …

    You may reference [¹]…[²].

With no pack kept the user prompt is the question alone. Markers are superscript digits composed
for any number (``[¹⁰]``). Packs are ordered by score (descending), then retrieval order, then id;
markers follow that order. Output is a pure function of the input: identical input gives
byte-identical output (``model_dump_json``).

Footnote style: the same blocks with Markdown footnote markers ``[^1]``, ``[^2]``…; the system
prompt asks the model to cite inline with them and to end with the footnote list
(``[^1]: <doc> — <path>``, see :meth:`AssembledPrompt.footnotes`).

Budget. ``total(k)`` is the estimated size (system + user) of the prompt with the best ``k``
packs, ``base = total(0)``. Packs are added best first and adding stops at the first pack that
does not fit, so the dropped packs are always the lowest-scoring ones:

* without ``context_tokens`` (the headroom rule, "stop before exceeding base + context +
  headroom"): a pack fits while ``total(k) - base <= headroom_tokens``; the headroom is what
  the context may use, so a smaller headroom drops more packs and 100000 drops none.
* with ``context_tokens`` (the model's context window): a pack fits while
  ``total(k) + headroom_tokens <= context_tokens``; what is left for the answer is
  ``context_tokens - total(k)``, never below the headroom unless the base alone is too big.

Sizes come from tiktoken (``estimator="tiktoken"``) or a characters-as-tokens
heuristic (``estimator="chars"``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from core.assembly.model import (
    CITATION_STYLES,
    ESTIMATORS,
    STYLES,
    AssembledPrompt,
    Budget,
    Citation,
    CitationStyle,
    Estimator,
    PromptPair,
    Style,
    fits,
    source_name,
)
from core.errors import ChunkLabError
from core.retrieval.pack import Pack
from core.tokens import count_tokens

SystemPrompt = str | Callable[[list[str]], str]
"""A fixed system prompt, or a function of the reference lines of the kept packs
(``"[¹] Doc: … · Path: …"``) such as the prompt library's RAG answer template."""

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")

SYSTEM_PROMPTS = {
    "qa": (
        "You answer the user's question using only the numbered context blocks in the user "
        "message.\n"
        "Cite the block that supports each statement with its marker, for example {example}.\n"
        "If the context does not contain the answer, say clearly that you do not know instead "
        "of guessing."
    ),
    "summarize": (
        "You write a concise summary of the numbered context blocks in the user message, "
        "following the user's instruction.\n"
        "Cite the block behind each point with its marker, for example {example}.\n"
        "Stay within the provided context and add no outside facts."
    ),
}
FOOTNOTE_INSTRUCTION = (
    "\nEnd your answer with the footnotes you cited, one per line, as “[^1]: <Doc> — <Path>”."
)


class AssemblyError(ChunkLabError):
    """Assembly settings that cannot work (unknown style, negative headroom…)."""


def marker(number: int, citation_style: CitationStyle = "numeric") -> str:
    """``[¹²]`` for numeric style, ``[^12]`` for footnote style."""
    if citation_style == "footnote":
        return f"[^{number}]"
    return f"[{str(number).translate(_SUPERSCRIPT)}]"


def heading_text(path: Sequence[str]) -> str:
    return " > ".join(path)


def context_block(mark: str, pack: Pack, source: str = "") -> str:
    lines = [mark, f"Doc: {source_name(source or pack.doc_id, pack.pages)}"]
    if pack.heading_path:
        lines.append(f"Path: {heading_text(pack.heading_path)}")
    lines += ["---", pack.text]
    return "\n".join(lines)


def reference_line(marks: Sequence[str]) -> str:
    span = marks[0] if len(marks) == 1 else f"{marks[0]}…{marks[-1]}"
    return f"You may reference {span}."


def user_prompt(question: str, blocks: Sequence[str], marks: Sequence[str]) -> str:
    if not blocks:
        return question
    return "\n\n".join([question, "Context:", *blocks, reference_line(marks)])


def builtin_system_prompt(style: Style, citation_style: CitationStyle) -> str:
    text = SYSTEM_PROMPTS[style].replace("{example}", marker(1, citation_style))
    return text + (FOOTNOTE_INSTRUCTION if citation_style == "footnote" else "")


def ranked_packs(packs: Sequence[Pack]) -> list[Pack]:
    """Score descending, then retrieval order, then id: the citation order."""
    return sorted(packs, key=lambda p: (-p.score, p.order, p.id))


def _estimate(estimator: Estimator) -> Callable[[str], int]:
    return len if estimator == "chars" else count_tokens


def _validate(style: str, citation_style: str, estimator: str, headroom: int,
              context_tokens: int | None) -> None:
    for value, allowed, what in ((style, STYLES, "style"),
                                 (citation_style, CITATION_STYLES, "citation style"),
                                 (estimator, ESTIMATORS, "token estimator")):
        if value not in allowed:
            raise AssemblyError(f"Unknown {what} “{value}”; choose one of {', '.join(allowed)}.")
    if headroom < 0 or (context_tokens is not None and context_tokens < 1):
        raise AssemblyError("Headroom cannot be negative and the context size must be positive.")


def assemble_prompt(
    question: str,
    packs: Sequence[Pack],
    headroom_tokens: int = 300,
    style: Style = "qa",
    citation_style: CitationStyle = "numeric",
    context_tokens: int | None = None,
    estimator: Estimator = "tiktoken",
    system_prompt: SystemPrompt | None = None,
    doc_names: Mapping[str, str] | None = None,
) -> AssembledPrompt:
    """The system and user prompts for ``question`` with as many ``packs`` as the budget allows
    (rules in the module docstring). ``doc_names`` (document id → file name) name the sources
    in the prompt; the citations keep the ids."""
    _validate(style, citation_style, estimator, headroom_tokens, context_tokens)
    estimate = _estimate(estimator)
    ranked = ranked_packs(packs)
    marks = [marker(n, citation_style) for n in range(1, len(ranked) + 1)]
    names = doc_names or {}
    sources = [names.get(p.doc_id, p.doc_id) for p in ranked]
    blocks = [context_block(m, p, s) for m, p, s in zip(marks, ranked, sources, strict=True)]
    references = [
        f"{m} Doc: {source_name(s, p.pages)}"
        + (f" · Path: {heading_text(p.heading_path)}" if p.heading_path else "")
        for m, p, s in zip(marks, ranked, sources, strict=True)
    ]

    def render(k: int) -> PromptPair:
        if system_prompt is None:
            system = builtin_system_prompt(style, citation_style)
        elif isinstance(system_prompt, str):
            system = system_prompt
        else:
            system = system_prompt(references[:k])
        return PromptPair(system=system, user=user_prompt(question, blocks[:k], marks[:k]))

    prompts = [render(k) for k in range(len(ranked) + 1)]
    totals = [estimate(p.system) + estimate(p.user) for p in prompts]
    base = totals[0]

    kept = 0
    while kept < len(ranked) and fits(totals[kept + 1], base, headroom_tokens, context_tokens):
        kept += 1
    total = totals[kept]
    budget = Budget(
        rule="headroom" if context_tokens is None else "context",
        estimator=estimator,
        context_tokens=context_tokens,
        headroom_tokens=headroom_tokens,
        base_tokens=base,
        kept_tokens=total - base,
        dropped_tokens=totals[-1] - total,
        packs_kept=kept,
        packs_dropped=len(ranked) - kept,
        pack_tokens=[totals[k + 1] - totals[k] for k in range(len(ranked))],
        left_for_answer=None if context_tokens is None else context_tokens - total,
        over_budget=context_tokens is not None and base + headroom_tokens > context_tokens,
    )
    citations = [
        Citation(marker=m, pack_id=p.id, doc_id=p.doc_id, source=s,
                 heading_path=list(p.heading_path), span_offsets=list(p.spans),
                 pages=list(p.pages))
        for m, p, s in zip(marks[:kept], ranked[:kept], sources[:kept], strict=True)
    ]
    return AssembledPrompt(
        prompt=prompts[kept],
        citations=citations,
        tokens_estimated=total,
        budget=budget,
        dropped_pack_ids=[p.id for p in ranked[kept:]],
        style=style,
        citation_style=citation_style,
    )

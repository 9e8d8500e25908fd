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
from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.errors import ChunkLabError
from core.retrieval.packs import Pack
from core.tokens import count_tokens

Style = Literal["qa", "summarize"]
CitationStyle = Literal["numeric", "footnote"]
Estimator = Literal["tiktoken", "chars"]
STYLES: tuple[str, ...] = ("qa", "summarize")
CITATION_STYLES: tuple[str, ...] = ("numeric", "footnote")
ESTIMATORS: tuple[str, ...] = ("tiktoken", "chars")

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


class PromptPair(BaseModel):
    model_config = ConfigDict(frozen=True)

    system: str
    user: str


class Citation(BaseModel):
    model_config = ConfigDict(frozen=True)

    marker: str  # "[¹]" or "[^1]"
    pack_id: str
    doc_id: str
    source: str = ""  # the document's file name, as the prompt names it
    heading_path: list[str]
    span_offsets: list[tuple[int, int]]
    pages: list[int] = []  # pages of the original the source was read from (1-based)


class Budget(BaseModel):
    """The arithmetic behind the kept packs; every figure in the estimator's unit."""

    model_config = ConfigDict(frozen=True)

    rule: Literal["headroom", "context"]  # the context may use the headroom, or fit a context size
    estimator: Estimator
    context_tokens: int | None
    headroom_tokens: int
    base_tokens: int  # system + question, no pack
    kept_tokens: int  # what the kept packs add
    dropped_tokens: int  # what the dropped packs would have added on top
    packs_kept: int
    packs_dropped: int
    pack_tokens: list[int]  # what each pack adds, in rank order (kept ones first)
    left_for_answer: int | None  # context_tokens - prompt size; None under the headroom rule
    over_budget: bool  # base + headroom alone exceed context_tokens

    def fits(self, total: int) -> bool:
        """Whether a prompt of ``total`` keeps to this budget (:func:`fits`)."""
        return fits(total, self.base_tokens, self.headroom_tokens, self.context_tokens)

    def segments(self) -> list[tuple[str, int]]:
        """The parts of a stacked budget bar, left to right: base, kept context, then under the
        headroom rule the headroom still unused, under a context size what is left for the
        answer (the headroom is part of it: :meth:`headroom_mark`), and what the dropped packs
        would have needed. Under a context size the first three add up to it."""
        if self.context_tokens is None:
            parts = [("base prompt", self.base_tokens), ("context kept", self.kept_tokens),
                     ("headroom unused", max(0, self.headroom_tokens - self.kept_tokens))]
        else:
            parts = [("base prompt", self.base_tokens), ("context kept", self.kept_tokens),
                     ("left for the answer", max(0, self.left_for_answer or 0))]
        return [*parts, ("dropped", self.dropped_tokens)]

    def headroom_mark(self) -> int | None:
        """Under a context size, where on the bar the headroom starts: the answer keeps at
        least the stretch from there to the context size."""
        if self.context_tokens is None:
            return None
        return max(0, self.context_tokens - self.headroom_tokens)

    def explain(self) -> str:
        """The budget arithmetic in one plain sentence."""
        unit = self.unit
        kept = f"{self.packs_kept} pack{'s' * (self.packs_kept != 1)} kept ({self.kept_tokens:,})"
        dropped = (f"{self.packs_dropped} dropped ({self.dropped_tokens:,})"
                   if self.packs_dropped else "none dropped")
        if self.context_tokens is None:
            return (f"Headroom rule, in {unit}: base prompt {self.base_tokens:,}; the context may "
                    f"use the headroom of {self.headroom_tokens:,}: {kept}, {dropped}.")
        total = self.base_tokens + self.kept_tokens
        return (f"In {unit}: context size {self.context_tokens:,} − base prompt "
                f"{self.base_tokens:,} − {kept} = {self.left_for_answer:,} left for the answer, "
                f"of which a headroom of {self.headroom_tokens:,} is kept whatever the packs; "
                f"prompt {total:,}; {dropped}.")

    @property
    def unit(self) -> str:
        return "characters" if self.estimator == "chars" else "tokens"

    def to_keep_one(self) -> str:
        """When packs were retrieved but none fits, the sentence that says so with the smallest
        change that would keep the best one; "" otherwise."""
        if self.packs_kept or not self.pack_tokens:
            return ""
        best = self.pack_tokens[0]
        if self.context_tokens is None:
            return (f"No passage fits the budget: the best one needs {best:,} {self.unit}. Raise "
                    f"the headroom to {best:,} {self.unit} to keep it.")
        context = self.base_tokens + best + self.headroom_tokens
        headroom = self.context_tokens - self.base_tokens - best
        lower = f", or lower the headroom to {headroom:,}" if headroom >= 0 else ""
        return (f"No passage fits the budget: the best one needs {best:,} {self.unit}. Raise "
                f"the context size to {context:,} {self.unit}{lower} to keep it.")


def fits(total: int, base: int, headroom_tokens: int, context_tokens: int | None) -> bool:
    """Whether a prompt of ``total`` (``base`` without packs) keeps to the budget: under the
    headroom rule the packs add at most the headroom; with a context size the prompt leaves
    the headroom free in it."""
    if context_tokens is None:
        return total - base <= headroom_tokens
    return total + headroom_tokens <= context_tokens


class AssembledPrompt(BaseModel):
    model_config = ConfigDict(frozen=True)

    prompt: PromptPair
    citations: list[Citation]
    tokens_estimated: int  # system + user
    budget: Budget
    dropped_pack_ids: list[str]
    style: Style
    citation_style: CitationStyle

    def footnotes(self) -> str:
        """Markdown footnote definitions for the citations, one per line."""
        return "\n".join(
            f"[^{n}]: {source_name(c.source or c.doc_id, c.pages)}"
            + (f" — {' > '.join(c.heading_path)}" if c.heading_path else "")
            for n, c in enumerate(self.citations, start=1)
        )


def marker(number: int, citation_style: CitationStyle = "numeric") -> str:
    """``[¹²]`` for numeric style, ``[^12]`` for footnote style."""
    if citation_style == "footnote":
        return f"[^{number}]"
    return f"[{str(number).translate(_SUPERSCRIPT)}]"


def heading_text(path: Sequence[str]) -> str:
    return " > ".join(path)


def page_label(pages: Sequence[int]) -> str:
    """"p. 3", "pp. 3–5" or "pp. 3, 7" ("" without pages)."""
    if not pages:
        return ""
    if len(pages) == 1:
        return f"p. {pages[0]}"
    if list(pages) == list(range(pages[0], pages[-1] + 1)):
        return f"pp. {pages[0]}–{pages[-1]}"
    return "pp. " + ", ".join(map(str, pages))


def characters_label(spans: Sequence[tuple[int, int]]) -> str:
    """"characters 28,407–30,347" (several spans joined with commas)."""
    return "characters " + ", ".join(f"{s:,}–{e:,}" for s, e in spans)


def source_name(source: str, pages: Sequence[int]) -> str:
    """A source as the prompt names it: its file name and, for a paginated one, its pages."""
    label = page_label(pages)
    return f"{source}, {label}" if label else source


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

"""The assembled RAG prompt as data: its choices (styles, citation styles, estimators), its
citations and where each source is, and the budget arithmetic behind the packs it kept
(:func:`fits`, the one rule of whether a prompt fits). :mod:`core.assembly.prompt` builds it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

Style = Literal["qa", "summarize"]
CitationStyle = Literal["numeric", "footnote"]
Estimator = Literal["tiktoken", "chars"]
STYLES: tuple[str, ...] = ("qa", "summarize")
CITATION_STYLES: tuple[str, ...] = ("numeric", "footnote")
ESTIMATORS: tuple[str, ...] = ("tiktoken", "chars")


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
    headroom_tokens: int  # headroom rule: the passage budget; under a context size: kept free
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
        headroom rule the passage budget still unused, under a context size what is left for the
        answer (the headroom is part of it: :meth:`headroom_mark`), and what the dropped packs
        would have needed. Under a context size the first three add up to it."""
        if self.context_tokens is None:
            parts = [("base prompt", self.base_tokens), ("context kept", self.kept_tokens),
                     ("budget unused", max(0, self.headroom_tokens - self.kept_tokens))]
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
            return (f"Passage budget, in {unit}: base prompt {self.base_tokens:,}; the passages "
                    f"may use {self.headroom_tokens:,}: {kept}, {dropped}.")
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
                    f"the passage budget to {best:,} {self.unit} to keep it.")
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

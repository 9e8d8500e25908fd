"""Phase 3b, contextual prefix: one sentence that situates a chunk in its document.

The prefix is put in front of the chunk's text when it is embedded (contextual retrieval). The
answer is one sentence starting "This chunk is from", 20–300 characters; an invalid answer is
asked once more. Tolerant parsing cuts a longer one back to its whole sentences within the limit.
"""

from __future__ import annotations

from core.llm.errors import TSVError
from core.llm.phases.chunk_phase import ChunkPhase, ChunkRequest, HeadingContext
from core.llm.phases.metadata import SUMMARY_VERBS
from core.llm.replies.checks import one_paragraph
from core.llm.replies.repairs import Repairs, tolerantly
from core.llm.trial import PhaseInput, PhaseView, marked

LABEL = "phase 3b (contextual prefix)"
PREFIX_START = "This chunk is from"
PREFIX_CHARS = (20, 300)


def parse_prefix(text: str, *, label: str = LABEL, repairs: Repairs | None = None) -> str:
    """One sentence starting "This chunk is from", 20-300 characters."""
    prefix = one_paragraph(label, text, PREFIX_CHARS, repairs, shorten=True)
    if not prefix.startswith(PREFIX_START):
        raise TSVError(label, f"the prefix must start with {PREFIX_START!r}",
                       line_number=1, line=prefix)
    return prefix


class PrefixPhase(ChunkPhase[str]):
    name = "contextual_prefix"
    label = LABEL
    template = "contextual_prefix"
    answer_tokens = 160  # one sentence of 20-50 words

    def parse(self, answer: str, request: ChunkRequest) -> str:
        return tolerantly(request.repairs,
                          lambda repairs: parse_prefix(answer, label=self.label, repairs=repairs))

    def view(self, result: str, source: PhaseInput) -> PhaseView:
        return PhaseView(rows=[{"prefix": result}], items=[result],
                         spans=marked(source.chunk, "chunk"))


PREFIX = PrefixPhase()


def composed_prefix(context: HeadingContext, summary: str | None) -> str:
    """A prefix made without asking: the chunk's headings, then its summary ("This chunk is
    from Guide, section "Setup", and explains how …"). Asked separately, the bundled model wrote
    the same headings and restated the summary."""
    where = f"{PREFIX_START} {context.chapter}"
    if context.section != context.chapter:
        where += f', section "{context.section}"'
    if context.subsection:
        where += f', subsection "{context.subsection}"'
    if not summary:
        return where + "."
    verb = summary.split(" ", 1)[0].casefold()
    if verb in {v.split(" ")[0] for v in SUMMARY_VERBS}:
        return f"{where}, and {summary[:1].lower()}{summary[1:]}"
    return f"{where}: {summary}"

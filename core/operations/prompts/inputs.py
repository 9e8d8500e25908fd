"""What a template is tried on: the pieces of a document its phase reads (a section, a passage
of it, a table), a conversation, or a question — and which of them the input widgets offer."""

from __future__ import annotations

from dataclasses import dataclass

from core.documents.model import Document, Section, TextSpan
from core.llm.anchors import anchor_blocks, blocks_between, windows
from core.llm.phases import phase_of
from core.llm.trial import PhaseInput
from core.prompts.template import PromptTemplate

PASSAGE_TOKENS = 300  # size of the passages offered as chunks to try a template on
MIN_SECTION_BLOCKS = 3  # a section worth splitting into chunks has this many blocks


@dataclass(frozen=True)
class Needs:
    """The inputs a template's phase reads (``"document"``, ``"section"``, ``"chunk"``,
    ``"table"``, ``"max_tokens"``, ``"conversation"``, ``"question"``)."""

    inputs: tuple[str, ...]

    def __contains__(self, what: object) -> bool:
        return what in self.inputs

    def document_fits(self, document: Document) -> bool:
        """Whether a document has what the phase is tried on (a table, a section to split)."""
        if "table" in self:
            return bool(document.tables)
        if "section" in self:
            return bool(document.sections)
        return True

    def shown(self, source: PhaseInput) -> tuple[int, int]:
        """The stretch of the document a trial's spans are drawn on: the section a phase that
        reads one was tried on, else the whole document."""
        if source.document is None:
            return 0, 0
        if "section" in self and source.section is not None:
            return source.section.start, source.section.end
        return 0, len(source.document.text)


def needs(template: PromptTemplate) -> Needs:
    """What the phase that sends ``template`` is tried on."""
    return Needs(phase_of(template).inputs)


def passages(document: Document, section: Section) -> list[TextSpan]:
    """The section cut into runs of whole blocks of about :data:`PASSAGE_TOKENS` tokens each:
    the chunks a chunk-reading template may be tried on."""
    selected = blocks_between(anchor_blocks(document), section.start, section.end)
    runs = windows(document, selected, PASSAGE_TOKENS)
    spans = [TextSpan(start=run[0].start, end=min(run[-1].end, section.end)) for run in runs]
    return spans or [TextSpan(start=section.start, end=section.end)]


def default_section(document: Document) -> int:
    """Index of the first section with several blocks: one worth splitting into chunks."""
    all_blocks = anchor_blocks(document)
    for i, section in enumerate(document.sections):
        if len(blocks_between(all_blocks, section.start, section.end)) >= MIN_SECTION_BLOCKS:
            return i
    return 0

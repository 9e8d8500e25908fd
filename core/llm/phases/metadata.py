"""Phase 3, chunk metadata: chapter, section and subsection titles and a searchable summary.

One TSV line ``chapter_title section_title subsection_title summary``. An invalid answer is asked
once more.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from core.llm.cache import digest
from core.llm.phase import Phase, PhaseContext, PhaseInput, PhaseView, need
from core.llm.phases.headings import ChunkRequest, HeadingContext
from core.llm.settings import LLMSettings
from core.llm.tsv import TSVError, tsv_lines
from core.prompts.library import PromptTemplate

COLUMNS = ("chapter_title", "section_title", "subsection_title", "summary")
NONE = "NONE"


LABEL = "phase 3 (chunk metadata)"
@dataclass(frozen=True)
class MetadataRow:
    chapter_title: str
    section_title: str
    subsection_title: str | None
    summary: str


def parse_metadata(text: str, *, label: str = LABEL) -> MetadataRow:
    """Exactly one line ``chapter section subsection summary``."""
    lines = tsv_lines(label, text, COLUMNS)
    if len(lines) != 1:
        raise TSVError.on(label, "expected a single line of metadata", lines[1])
    chapter, section, subsection, summary = lines[0].cells
    return MetadataRow(chapter, section, None if subsection in ("", NONE) else subsection, summary)


def chunk_request(source: PhaseInput) -> ChunkRequest:
    """The chunk picked on the Prompts page, with the document's headings around it."""
    document = need(source.document, "a document")
    chunk = need(source.chunk, "a chunk")
    context = HeadingContext.of(document.heading_path(chunk.start), document.source_name)
    return ChunkRequest(document.source_name, document.slice(chunk), context)


class MetadataPhase(Phase[ChunkRequest, MetadataRow]):
    name = "chunk_metadata"
    label = LABEL
    template = "chunk_metadata"
    inputs = ("document", "section", "chunk")
    text_placeholder = "chunk_text"

    def values(self, request: ChunkRequest) -> dict[str, str]:
        return {"document_id": request.document_name, "chapter_title": request.context.chapter,
                "section_title": request.context.section, "chunk_text": request.text}

    def cache_content(self, request: ChunkRequest) -> dict[str, object]:
        return {"chunk": digest(request.text, request.document_name, request.context.chapter,
                                request.context.section)}

    def parse(self, answer: str, request: ChunkRequest) -> MetadataRow:
        return parse_metadata(answer, label=self.label)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> ChunkRequest:
        return chunk_request(source)

    def test(self, context: PhaseContext, source: PhaseInput) -> PhaseView:
        row = asdict(context.ask(self, chunk_request(source)))
        chunk = need(source.chunk, "a chunk")
        return PhaseView(rows=[row], items=[f"{k}: {v}" for k, v in row.items()],
                         spans=[(chunk.start, chunk.end, "chunk")])


METADATA = MetadataPhase()

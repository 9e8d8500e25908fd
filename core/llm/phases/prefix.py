"""Phase 3b, contextual prefix: one sentence that situates a chunk in its document.

The prefix is put in front of the chunk's text when it is embedded (contextual retrieval). The
answer is one sentence starting "This chunk is from", 20–300 characters; an invalid answer is
asked once more.
"""

from __future__ import annotations

from core.llm.cache import digest
from core.llm.phase import Phase, PhaseContext, PhaseInput, PhaseView, need
from core.llm.phases.headings import NO_SUBSECTION, ChunkRequest
from core.llm.phases.metadata import chunk_request
from core.llm.settings import LLMSettings
from core.llm.tsv import TSVError, one_paragraph
from core.prompts.library import PromptTemplate

PREFIX_START = "This chunk is from"
PREFIX_CHARS = (20, 300)


LABEL = "phase 3b (contextual prefix)"
def parse_prefix(text: str, *, label: str = LABEL) -> str:
    """One sentence starting "This chunk is from", 20-300 characters."""
    prefix = one_paragraph(label, text, PREFIX_CHARS)
    if not prefix.startswith(PREFIX_START):
        raise TSVError(label, f"the prefix must start with {PREFIX_START!r}",
                       line_number=1, line=prefix)
    return prefix


class PrefixPhase(Phase[ChunkRequest, str]):
    name = "contextual_prefix"
    label = LABEL
    template = "contextual_prefix"
    inputs = ("document", "section", "chunk")
    text_placeholder = "chunk_text"

    def values(self, request: ChunkRequest) -> dict[str, str]:
        context = request.context
        return {"document_id": request.document_name, "chapter_title": context.chapter,
                "section_title": context.section,
                "subsection_title": context.subsection or NO_SUBSECTION,
                "chunk_text": request.text}

    def cache_content(self, request: ChunkRequest) -> dict[str, object]:
        context = request.context
        return {"chunk": digest(request.text, request.document_name, context.chapter,
                                context.section, context.subsection)}

    def parse(self, answer: str, request: ChunkRequest) -> str:
        return parse_prefix(answer, label=self.label)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> ChunkRequest:
        return chunk_request(source)

    def test(self, context: PhaseContext, source: PhaseInput) -> PhaseView:
        prefix = context.ask(self, chunk_request(source))
        chunk = need(source.chunk, "a chunk")
        return PhaseView(rows=[{"prefix": prefix}], items=[prefix],
                         spans=[(chunk.start, chunk.end, "chunk")])


PREFIX = PrefixPhase()

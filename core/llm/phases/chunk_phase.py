"""What the phases asked about one chunk share: the chunk's text with the chapter, section and
subsection titles its prompts show (the one place this lookup lives).

The pipeline passes the LLM's structure path (or the document's), the Prompts page the
document's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from core.llm.answers.repairs import Repairs
from core.llm.phase import OneRequestPhase, PhaseInput, need
from core.llm.settings import LLMSettings
from core.prompts.library import PromptTemplate

NO_SUBSECTION = "no subsection"
Out = TypeVar("Out")


@dataclass(frozen=True)
class HeadingContext:
    chapter: str
    section: str
    subsection: str | None

    @classmethod
    def of(cls, path: list[str], document_name: str) -> HeadingContext:
        """Top-level heading (else the document's name), the next (else the chapter), the
        third (else none)."""
        chapter = path[0] if path else document_name
        section = path[1] if len(path) > 1 else chapter
        return cls(chapter, section, path[2] if len(path) > 2 else None)


@dataclass(frozen=True)
class ChunkRequest:
    """A chunk's text with what its prompts show around it."""

    document_name: str
    text: str
    context: HeadingContext
    repairs: Repairs | None = field(default=None, compare=False)  # None: strict parsing


class ChunkPhase(OneRequestPhase[ChunkRequest, Out]):
    """A phase asked about one chunk; the Prompts page tries it on a passage of a section."""

    inputs: ClassVar[tuple[str, ...]] = ("document", "section", "chunk")
    text_placeholder: ClassVar[str | None] = "chunk_text"

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> ChunkRequest:
        """The chunk picked on the Prompts page, with the document's headings around it."""
        document = need(source.document, "a document")
        chunk = need(source.chunk, "a chunk")
        context = HeadingContext.of(document.heading_path(chunk.start), document.source_name)
        return ChunkRequest(document.source_name, document.slice(chunk), context)

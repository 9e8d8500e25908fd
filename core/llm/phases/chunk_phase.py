"""What the phases asked about one chunk share: the chunk's text with the chapter, section and
subsection titles its prompts show (the one place this lookup lives), and the stretch of the
document it is read in.

The pipeline passes the LLM's structure path (or the document's), the Prompts page the
document's. Prompts about a chunk begin with the document (:class:`Reading`), the chunk after
it: every request about chunks of one stretch begins with the same text, which a server with a
prompt cache reads once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from core.documents.model import Document
from core.llm import anchors
from core.llm.cache import digest
from core.llm.phase import OneRequestPhase, window_budget
from core.llm.replies.repairs import Repairs
from core.llm.settings import LLMSettings
from core.llm.trial import PhaseInput, need
from core.prompts.template import PromptTemplate
from core.tokens import count_tokens

NO_SUBSECTION = "no subsection"
DOCUMENT_WINDOW_TOKENS = 1500  # the most of a document shown with a chunk (tiktoken tokens):
# as much as a structure request carries, which the bundled 1.5 B model still reads as asked
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
class Reading:
    """A document cut once into stretches of whole blocks of at most ``budget`` tokens (one
    stretch when it fits): a chunk is shown in the stretch that holds its start."""

    document: Document
    spans: tuple[tuple[int, int, int], ...]  # start, end, tokens

    @classmethod
    def of(cls, document: Document, budget: int) -> Reading:
        blocks = anchors.anchor_blocks(document)
        runs = anchors.windows(document, blocks, budget) if blocks else []
        cuts = [0, *(run[0].start for run in runs[1:]), len(document.text)]
        return cls(document, tuple((a, b, count_tokens(document.text[a:b]))
                                   for a, b in zip(cuts, cuts[1:], strict=False)))

    def around(self, position: int, room: int) -> str:
        """The stretch that holds ``position`` when it fits ``room`` tokens, else ""."""
        span = self.span(position, room)
        return "" if span is None else self.document.text[span[0]:span[1]]

    def span(self, position: int, room: int) -> tuple[int, int] | None:
        """Where the stretch that holds ``position`` begins and ends, when it fits ``room``
        tokens."""
        for start, end, tokens in self.spans:
            if start <= position < end or end == len(self.document.text):
                return (start, end) if tokens <= room else None
        return None

    @classmethod
    def shown_span(cls, document: Document, start: int, text: str,
                   budget: int) -> tuple[int, int] | None:
        """The stretch shown with ``text`` (at ``start``) when a request carries ``budget``
        tokens of text, for a single request (the Prompts page)."""
        room = budget - count_tokens(text)
        return cls.of(document, min(DOCUMENT_WINDOW_TOKENS, room)).span(start, room)

    @classmethod
    def shown(cls, document: Document, start: int, text: str, budget: int) -> str:
        span = cls.shown_span(document, start, text, budget)
        return "" if span is None else document.text[span[0]:span[1]]


def mark_chunks(text: str, span: tuple[int, int], starts: Sequence[int]) -> str:
    """``text[span]`` with ``[[n]] `` before the n-th of ``starts`` (positions in ``text``, in
    order, inside the span): each chunk runs from its mark to the next."""
    begin, end = span
    pieces, last = [], begin
    for n, start in enumerate(starts, 1):
        pieces += [text[last:start], f"[[{n}]] "]
        last = start
    return "".join([*pieces, text[last:end]])


def stretch_name(document_name: str, document_text: str) -> str:
    """What names the text every prompt about chunks of one stretch begins with ("" for
    none)."""
    return digest(document_name, document_text) if document_text else ""


@dataclass(frozen=True)
class ChunkRequest:
    """A chunk's text with what its prompts show around it."""

    document_name: str
    text: str
    context: HeadingContext
    repairs: Repairs | None = field(default=None, compare=False)  # None: strict parsing
    document_text: str = ""  # the stretch of the document the chunk is read in



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
        text = document.slice(chunk)
        shown = Reading.shown(document, chunk.start, text, window_budget(settings, template))
        return ChunkRequest(document.source_name, text, context, document_text=shown)

    def values(self, request: ChunkRequest) -> dict[str, str]:
        context = request.context
        return {"document_id": request.document_name, "document_text": request.document_text,
                "chapter_title": context.chapter, "section_title": context.section,
                "subsection_title": context.subsection or NO_SUBSECTION,
                "chunk_text": request.text}

    def cache_content(self, request: ChunkRequest) -> dict[str, object]:
        context = request.context
        return {"chunk": digest(request.text, request.document_name, context.chapter,
                                context.section, context.subsection),
                "document": digest(request.document_text)}

    def shared_prefix(self, request: ChunkRequest) -> str:
        return stretch_name(request.document_name, request.document_text)

"""The one document model every stage shares.

``Document.text`` is the exact string every later stage cuts. Every block, section and table
carries ``start``/``end`` character offsets into it, and ``text[start:end]`` is exactly that
element's text (a heading block is the title without any ``#`` marker; a table's span covers
its Markdown rendering; a section's span runs from its heading line to the next heading of the
same or a higher level).
"""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BlockKind = Literal["title", "heading", "paragraph", "list_item", "table", "caption", "code"]
Route = Literal["text", "markdown", "docling", "docling-pdf", "pdf-offline"]


class TextSpan(BaseModel):
    """A stretch of ``Document.text``: ``text[start:end]``."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class Block(TextSpan):
    kind: BlockKind
    page: int | None = None
    level: int | None = None  # headings only: 1 = top level


class Section(TextSpan):
    title: str
    level: int = Field(ge=1)
    parent: str | None = None  # title of the enclosing section, None at top level
    heading_start: int  # span of the title inside ``text``
    heading_end: int


class Table(TextSpan):
    markdown: str  # == text[start:end]
    rows: list[list[str]]
    caption: str | None = None
    caption_start: int | None = None  # span of the caption inside ``text`` when it has one
    caption_end: int | None = None
    page: int | None = None


class Document(BaseModel):
    model_config = ConfigDict(frozen=True)

    doc_id: str  # sha256 of the uploaded bytes, first 16 hex digits
    source_name: str
    format: str  # pdf, docx, html, md, xlsx, pptx, csv, txt
    route: Route  # how it was converted; shown to the user
    text: str
    blocks: list[Block] = []
    sections: list[Section] = []
    tables: list[Table] = []
    pages: int | None = None
    notes: list[str] = []  # things the user should know about this conversion

    def heading_path(self, position: int) -> list[str]:
        """Titles of the sections containing ``position``, from the top level down."""
        enclosing = [s for s in self.sections if s.start <= position < s.end]
        return [s.title for s in sorted(enclosing, key=lambda s: (s.level, s.start))]

    def slice(self, span: TextSpan) -> str:
        return self.text[span.start : span.end]


class ConvertedText(BaseModel):
    """What a converter gives: the text and its structure; :meth:`document` names it."""

    model_config = ConfigDict(frozen=True)

    route: Route
    text: str
    blocks: list[Block] = []
    sections: list[Section] = []
    tables: list[Table] = []
    pages: int | None = None
    notes: list[str] = []

    def with_notes(self, notes: list[str]) -> ConvertedText:
        return self.model_copy(update={"notes": [*self.notes, *notes]})

    def document(self, doc_id: str, source_name: str, format: str) -> Document:
        return Document(
            doc_id=doc_id, source_name=source_name, format=format, route=self.route,
            text=self.text, blocks=self.blocks, sections=self.sections, tables=self.tables,
            pages=self.pages, notes=self.notes,
        )


def content_id(data: bytes) -> str:
    """Document id: a content hash, so the same file uploaded twice is one document."""
    return hashlib.sha256(data).hexdigest()[:16]

"""The one document model every stage shares.

``Document.text`` is the exact string every later stage cuts. Every block, section and table
carries ``start``/``end`` character offsets into it, and ``text[start:end]`` is exactly that
element's text (a heading block is the title without any ``#`` marker; a table's span covers
its Markdown rendering; a section's span runs from its heading line to the next heading of the
same or a higher level).
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.documents.hygiene import is_clean

BlockKind = Literal["title", "heading", "paragraph", "list_item", "table", "caption", "code"]
# not the body of a document: a cover, a contents page, a list of figures or tables, an index
MatterRole = Literal["cover", "contents", "figures", "index"]
Route = Literal["text", "markdown", "docling", "docling-pdf", "pdf-offline"]


class TextSpan(BaseModel):
    """A stretch of ``Document.text``: ``text[start:end]``."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class FrontMatter(TextSpan):
    """A stretch of the text that is not the body (:data:`MatterRole`): kept in the text, and
    left out of retrieval by default (a contents page is not the answer to a question). Every
    route marks it the same way (:mod:`core.documents.matter`)."""

    role: MatterRole


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


class PageBox(BaseModel):
    """A region of a page: 1-based page number and a box in PDF points from the page's top-left
    corner (the upright page a reader sees)."""

    model_config = ConfigDict(frozen=True)

    page: int = Field(ge=1)
    x0: float
    top: float
    x1: float
    bottom: float


class LineBox(PageBox):
    """Where a line (or a table) of a paginated original stands, and the span of ``text`` it
    became."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class PageInfo(BaseModel):
    """A page of a paginated original: its size in points and what was read where."""

    model_config = ConfigDict(frozen=True)

    number: int = Field(ge=1)
    width: float
    height: float
    columns: int = 1  # most columns of running text read side by side on the page
    running: list[str] = []  # running headers, footers and page numbers taken out of the text
    line_numbers: list[int] = []  # a line-number gutter in the margin, taken out of the text
    # not body text: a cover, a contents page, a list of figures or an index (its text is in
    # Document.front_matter)
    role: MatterRole | None = None


class PdfQuality(BaseModel):
    """What the offline PDF route repaired or could not: the facts behind its quality note."""

    model_config = ConfigDict(frozen=True)

    unmappable_recovered: int = 0  # glyphs without a Unicode map, read through another map
    unmappable_dropped: int = 0  # glyphs no map could read
    overprinted_removed: int = 0  # duplicate glyphs drawn on top of each other (fake bold)
    multi_column_pages: int = 0
    most_columns: int = 1
    running_removed: int = 0  # header, footer and page-number lines taken out of the text
    tables_ruled: int = 0
    tables_unruled: int = 0
    right_to_left_share: float = 0.0  # share of the letters in right-to-left scripts
    right_to_left_lines: int = 0  # lines read from the page right to left, put in reading order
    presentation_forms: int = 0  # shaped letters (Arabic presentation forms) normalised
    pages_set_apart: int = 0  # covers, contents pages, lists of figures, indexes (PageInfo.role)

    def summary(self) -> str:
        """One line a user reads: what was repaired, found or lost."""
        parts = []
        if self.right_to_left_lines:
            parts.append(f"{self.right_to_left_share:.0%} of the letters right-to-left: "
                         f"{self.right_to_left_lines:,} lines put in reading order")
        if self.presentation_forms:
            parts.append(f"{self.presentation_forms:,} presentation forms normalised")
        if self.unmappable_dropped:
            parts.append(f"{self.unmappable_dropped:,} unmappable characters dropped")
        if self.unmappable_recovered:
            parts.append(f"{self.unmappable_recovered:,} unmappable characters recovered")
        if self.overprinted_removed:
            parts.append(f"{self.overprinted_removed:,} overprinted duplicate glyphs removed")
        if self.multi_column_pages:
            page_word = "page" if self.multi_column_pages == 1 else "pages"
            parts.append(f"{self.most_columns} columns detected on {self.multi_column_pages} "
                         f"{page_word}")
        if self.running_removed:
            parts.append(f"{self.running_removed:,} running header/footer lines removed")
        if self.pages_set_apart:
            parts.append(f"{self.pages_set_apart} "
                         f"{'page' if self.pages_set_apart == 1 else 'pages'} of front matter "
                         "(cover, contents, index) set apart")
        found = self.tables_ruled + self.tables_unruled
        if found:
            parts.append(f"{found} tables found ({self.tables_unruled} without rules)")
        return "; ".join(parts) + "." if parts else "Text layer read cleanly; nothing to repair."


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
    page_info: list[PageInfo] = []  # paginated originals: one entry per page
    quality: PdfQuality | None = None  # the offline PDF route's repairs and findings
    boxes: list[LineBox] = []  # paginated originals read by the offline PDF route, text order
    front_matter: list[FrontMatter] = []  # in text order, not overlapping

    def heading_path(self, position: int) -> list[str]:
        """Titles of the sections containing ``position``, from the top level down."""
        enclosing = [s for s in self.sections if s.start <= position < s.end]
        return [s.title for s in sorted(enclosing, key=lambda s: (s.level, s.start))]

    def slice(self, span: TextSpan) -> str:
        return self.text[span.start : span.end]

    def table_title(self, number: int) -> str:
        """Table ``number``'s (1-based) caption, else "Table 3 · in <its section>" so an
        uncaptioned table is placed."""
        table = self.tables[number - 1]
        if table.caption:
            return table.caption
        path = " › ".join(self.heading_path(table.start))
        return f"Table {number} · in {path}" if path else f"Table {number}"

    def page_span(self, page: int) -> tuple[int, int] | None:
        """The stretch of the text read from ``page`` (its first block to its last), if any."""
        spans = [(b.start, b.end) for b in self.blocks if b.page == page]
        return (min(s for s, _ in spans), max(e for _, e in spans)) if spans else None

    def matter_of(self, start: int, end: int) -> MatterRole | None:
        """The role of ``text[start:end]`` when most of its non-blank characters are front
        matter (the role covering most of them), else None: such a stretch is set apart."""
        if not self.front_matter or end <= start:
            return None
        first = bisect.bisect_right(self._matter_ends, start)
        inside: dict[MatterRole, int] = {}
        for span in self.front_matter[first:]:
            if span.start >= end:
                break
            piece = self.text[max(span.start, start):min(span.end, end)]
            inside[span.role] = inside.get(span.role, 0) + _visible(piece)
        if not inside or 2 * sum(inside.values()) <= _visible(self.text[start:end]):
            return None
        return max(inside, key=inside.__getitem__)

    @functools.cached_property
    def _matter_ends(self) -> list[int]:
        return [m.end for m in self.front_matter]

    def provenance(self, start: int, end: int) -> tuple[list[int], list[PageBox]]:
        """The pages (1-based, ascending) and line boxes ``text[start:end]`` was read from: from
        the line boxes where the route kept them, else from the pages of its blocks."""
        lines = self.boxes[bisect.bisect_right(self._box_ends, start):
                           bisect.bisect_left(self._box_starts, max(end, start + 1))]
        boxes = [PageBox(page=b.page, x0=b.x0, top=b.top, x1=b.x1, bottom=b.bottom)
                 for b in lines]
        pages = {b.page for b in lines}
        if not self.boxes:
            stop = max(end, start + 1)
            blocks = self.blocks[bisect.bisect_right(self._block_ends, start):]
            pages = {b.page for b in itertools.takewhile(lambda b: b.start < stop, blocks)
                     if b.page is not None}
        return sorted(pages), boxes

    @functools.cached_property
    def _box_starts(self) -> list[int]:
        return [b.start for b in self.boxes]

    @functools.cached_property
    def _box_ends(self) -> list[int]:
        return [b.end for b in self.boxes]

    @functools.cached_property
    def _block_ends(self) -> list[int]:
        return [b.end for b in self.blocks]


def _visible(text: str) -> int:
    return len(text) - sum(text.count(c) for c in " \n\t")


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
    page_info: list[PageInfo] = []
    quality: PdfQuality | None = None
    boxes: list[LineBox] = []
    front_matter: list[FrontMatter] = []

    @field_validator("text")
    @classmethod
    def _cleaned(cls, text: str) -> str:
        """Every route cleans its text (:mod:`core.documents.hygiene`) while writing it."""
        if not is_clean(text):
            raise ValueError("converted text holds characters the text hygiene pass removes")
        return text

    def with_notes(self, notes: list[str]) -> ConvertedText:
        return self.model_copy(update={"notes": [*self.notes, *notes]})

    def document(self, doc_id: str, source_name: str, format: str) -> Document:
        return Document(
            doc_id=doc_id, source_name=source_name, format=format, route=self.route,
            text=self.text, blocks=self.blocks, sections=self.sections, tables=self.tables,
            pages=self.pages, notes=self.notes, page_info=self.page_info, quality=self.quality,
            boxes=self.boxes, front_matter=self.front_matter,
        )


def content_id(data: bytes) -> str:
    """Document id: a content hash, so the same file uploaded twice is one document."""
    return hashlib.sha256(data).hexdigest()[:16]

"""Table-aware chunking, shared by every strategy that cuts text into sized pieces.

The document is cut into segments first: each table (with its caption when only whitespace
separates them) is one segment that becomes exactly one ``table`` chunk whatever its size (by
default), and the text between tables is split by the strategy. With ``table_split`` a table
over ``table_max_tokens`` becomes several ``table`` chunks of whole rows, the header carried by
every part (:mod:`core.chunking.table_parts`). A text chunk therefore never crosses a table,
nor the edge of front matter (a cover, contents, an index: ``Document.front_matter``), so a
chunk is all front matter, left out of retrieval, or none of it. With ``respect_sections``
text segments are also cut at every section start and end, so a text chunk never crosses a
section boundary either.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Iterator
from typing import Annotated, Literal, NamedTuple

from pydantic import Field, model_validator

from core.chunking.base import Chunk, Chunker, ChunkerConfig
from core.chunking.overlap import OverlapPlanner
from core.chunking.table_parts import TablePart, table_parts
from core.chunking.token_index import TokenIndex
from core.documents.model import Document, Table
from core.text.spans import strip_span
from core.tokens import ENCODINGS

SizeUnit = Literal["tokens", "chars"]
MAX_SIZE = 1_000_000
Size = Annotated[int, Field(ge=1, le=MAX_SIZE, description="Largest chunk, in the unit")]
Overlap = Annotated[int, Field(
    ge=0, le=MAX_SIZE,
    description="What consecutive text chunks share, in the unit: from half of it to all of it")]
Unit = Annotated[SizeUnit, Field(description="Unit of size and overlap")]
Tables = Annotated[bool, Field(
    description="Keep tables out of text chunks: each table (with its caption) is a table chunk, "
                "or several with table split")]
TableSplit = Literal["whole", "row_groups", "rows"]


class Cut(NamedTuple):
    """A stripped span of text a strategy cut, with its exact token count."""

    start: int
    end: int
    tokens: int


class Segment(NamedTuple):
    """A stretch of the document that is a table (one chunk) or text (for the strategy to cut)."""

    kind: Literal["text", "table"]
    start: int
    end: int


class SizedConfig(ChunkerConfig):
    """Settings of strategies that cut text to a size: the names the whole app uses."""

    size: Size = 500
    overlap: Overlap = 0
    unit: Unit = "tokens"
    tables: Tables = True
    respect_sections: bool = Field(
        False, description="Never let a text chunk cross a section boundary")
    table_split: TableSplit = Field(
        "whole",
        description="A table over table max tokens: whole (one chunk), row_groups (parts of "
                    "whole rows up to that size, header repeated) or rows (one chunk per row, "
                    "header repeated)")
    table_max_tokens: int = Field(
        500, ge=1, le=MAX_SIZE,
        description="Tables over this many tokens are split as table split says")

    def describe(self) -> str:
        parts = [f"{self.size:,} {self.unit}"]
        if self.overlap:
            parts.append(f"overlap {self.overlap:,}")
        parts.append("tables whole" if self.tables else "tables split")
        if self.respect_sections:
            parts.append("by section")
        return ", ".join(parts)

    @model_validator(mode="after")
    def _check_sizes(self) -> SizedConfig:
        if self.encoding not in ENCODINGS:
            raise ValueError(
                f"encoding must be one of {', '.join(ENCODINGS)}, not {self.encoding!r}"
            )
        if self.overlap >= self.size:
            raise ValueError(
                f"overlap must be between 0 and size - 1 ({self.size - 1}), not {self.overlap}"
            )
        return self


def table_span(document: Document, table: Table) -> tuple[int, int]:
    """The table's span, widened to its caption when only whitespace lies between them."""
    start, end = table.start, table.end
    if table.caption_start is not None and table.caption_end is not None:
        c_start, c_end = table.caption_start, table.caption_end
        if c_end <= start and not document.text[c_end:start].strip():
            start = c_start
        elif c_start >= end and not document.text[end:c_start].strip():
            end = c_end
    return start, end


def segments(
    document: Document, *, tables: bool, respect_sections: bool
) -> list[Segment]:
    """Table and text segments in document order, covering the whole text."""
    table_spans: list[list[int]] = []
    if tables:
        for start, end in sorted(table_span(document, t) for t in document.tables):
            if table_spans and start < table_spans[-1][1]:  # overlapping tables: one chunk
                table_spans[-1][1] = max(table_spans[-1][1], end)
            else:
                table_spans.append([start, end])
    cuts = {0, len(document.text), *(p for m in document.front_matter for p in (m.start, m.end))}
    if respect_sections:
        cuts.update(p for s in document.sections for p in (s.start, s.end))
    out: list[Segment] = []
    position = 0
    for start, end in [*table_spans, [len(document.text), len(document.text)]]:
        inner = sorted(c for c in cuts if position < c < start)
        for a, b in zip([position, *inner], [*inner, start], strict=False):
            if b > a:
                out.append(Segment("text", a, b))
        if end > start:
            out.append(Segment("table", start, end))
        position = max(position, end)
    return out


class SegmentChunker(Chunker):
    """A strategy that cuts text segments; tables and sections are handled here."""

    config: SizedConfig

    @abstractmethod
    def split(self, index: TokenIndex, start: int, end: int) -> Iterable[Cut]:
        """Cut ``text[start:end]`` (no table inside) into stripped spans in order."""

    def chunk(self, document: Document) -> list[Chunk]:
        index = TokenIndex(document.text, self.config.encoding)
        factory = self.factory(document)
        chunks: list[Chunk] = []
        for kind, start, end in segments(
            document, tables=self.config.tables, respect_sections=self.config.respect_sections
        ):
            if kind == "table":
                for a, b, header in self.table_chunks(document, index, start, end):
                    chunks.append(factory.make(a, b, tokens=index.count(a, b),
                                               chunk_type="table", table_header=header))
                continue
            for a, b, tokens in self.split(index, start, end):
                chunks.append(factory.make(a, b, tokens=tokens))
        return chunks

    def table_chunks(self, document: Document, index: TokenIndex, start: int,
                     end: int) -> list[TablePart]:
        """The table segment ``[start, end)`` as one part, or as parts of whole rows when it is
        over the limit and holds a single table."""
        start, end = strip_span(document.text, start, end)
        if end <= start:
            return []
        mode, limit = self.config.table_split, self.config.table_max_tokens
        inside = [t for t in document.tables
                  if start <= strip_span(document.text, t.start, t.end)[0] and t.end <= end]
        if mode == "whole" or len(inside) != 1 or index.count(start, end) <= limit:
            return [TablePart(start, end, None)]
        return table_parts(index, start, end, inside[0], limit, one_row_each=mode == "rows")

    def core_size(self) -> int:
        """Largest core: what a chunk holds besides what it shares with the previous one."""
        return self.config.size - self.config.overlap

    def overlapped(self, index: TokenIndex, cores: Iterable[Cut]) -> Iterator[Cut]:
        """The chunks of one segment's cores, as the cores come, each widened into the previous
        chunk so that they share between half the overlap and the overlap
        (:mod:`core.chunking.overlap`)."""
        if not self.config.overlap:
            yield from cores
            return
        planner = OverlapPlanner(index, self.config.unit == "tokens", self.config.size,
                                 self.config.overlap)
        by_tokens = self.config.unit == "tokens"
        for core, start, size in planner.widen(cores):
            if start == core.start:
                yield core
            else:
                yield Cut(start, core.end, size if by_tokens and size is not None
                          else index.count(start, core.end))

    def measure(self, index: TokenIndex, start: int, end: int) -> int:
        """Size of a span in the configured unit (exact)."""
        return end - start if self.config.unit == "chars" else index.count(start, end)

    def window_cut(
        self, index: TokenIndex, start: int, end: int, size: int, overlap: int
    ) -> list[Cut]:
        """Windows of at most ``size`` units over ``text[start:end]``, ``overlap`` units shared.

        Token windows end where the document's tokens do; a window whose exact count exceeds
        ``size`` (re-tokenisation at its edges) is shortened one token at a time.
        """
        text = index.text
        by_tokens = self.config.unit == "tokens"
        out: list[Cut] = []
        position = start
        while True:
            a, _ = strip_span(text, position, end)
            if a >= end:
                return out
            if by_tokens:
                b = min(end, index.position(index.index(a) + size))
            else:
                b = min(end, a + size)
            a, b = strip_span(text, a, b)
            tokens = index.count(a, b)
            while by_tokens and tokens > size and b > a + 1:
                b = max(a + 1, min(b - 1, index.position(index.index(b) - 1)))
                a, b = strip_span(text, a, b)
                tokens = index.count(a, b)
            out.append(Cut(a, b, tokens))
            if overlap and by_tokens:
                position = index.position(index.index(b) - overlap)
            else:
                position = b - overlap
            if position <= a:
                position = b

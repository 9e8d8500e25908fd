"""What is embedded for a chunk: the same texts for the store, retrieval and evaluation.

Kept apart from the store so that code which only ranks in memory does not import Chroma.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.chunking.chunk import Chunk
from core.embeddings.encoder import MAX_WORD_PIECES, piece_spans, word_pieces

# Bump when what is embedded for a chunk changes: cached evaluation results depend on it, and
# chunk sets embedded with another version are flagged stale (ChunkSetInfo.stale).
EMBEDDING_INPUT_VERSION = 4


@dataclass(frozen=True)
class ChunkViews:
    """The texts embedded for a chunk and how much of the chunk's own text they let MiniLM read.

    ``read_chars`` counts characters of ``chunk.text`` inside a view the model reads to its end
    (a table embedded by its LLM summary reads none of its cells; a long text chunk
    reads its first :data:`MAX_WORD_PIECES` word pieces).
    """

    texts: list[str]
    read_chars: int
    chars: int
    by_summary: bool = False  # a table embedded by its LLM summary (none of its cells)

    @property
    def read_share(self) -> float:
        return self.read_chars / self.chars if self.chars else 1.0

    @property
    def truncated(self) -> bool:
        """MiniLM stops before the end of the chunk's text (a table whose digest is cut but
        whose rows are all read in their windows is not truncated)."""
        return not self.by_summary and self.read_chars < self.chars


def embedding_text(chunk: Chunk) -> str:
    """The text the chunk's first vector is computed from (the stored document is always
    ``chunk.text``).

    MiniLM reads only the first MAX_WORD_PIECES word pieces, so a whole table embedded as it
    stands is judged by its first rows. A table chunk is embedded by its LLM summary when it has
    one, else by a digest (of its rows under the table's header, for a part of a split table)
    that fits: where it sits, its caption, its columns and the first cell of every row (what
    table questions name: "Coverage A: Dwelling", "Windstorm or hail").
    """
    text = chunk.text
    if chunk.chunk_type == "table":
        text = chunk.summary or table_digest(chunk.display_text, chunk.heading_path)
    if chunk.context_prefix:
        text = f"{chunk.context_prefix.strip()}\n\n{text}"
    return text


def embedding_views(chunk: Chunk) -> list[str]:
    """Every text embedded for ``chunk``; its score for a query is the best of their cosines.

    One view for a text chunk (MiniLM reads its first :data:`MAX_WORD_PIECES` word pieces) and
    for a table with an LLM summary. A table without a summary gets its digest
    (:func:`embedding_text`) plus one view per body row (:func:`_row_views`), so a question
    about one row of a table — the 40th, or the only one that answers — meets that row's own
    words, undiluted by its neighbours.
    """
    first = embedding_text(chunk)
    if chunk.chunk_type != "table" or chunk.summary:
        return [first]
    table = _parse(chunk.display_text)
    return [first, *_row_views(table, chunk.heading_path)] if table.rows else [first]


def chunk_views(chunk: Chunk) -> ChunkViews:
    """:func:`embedding_views` and how much of the chunk they let MiniLM read (this counts word
    pieces, so only the store's ingest asks for it; ranking needs the texts alone)."""
    texts = embedding_views(chunk)
    size = len(chunk.text)
    if chunk.chunk_type == "table" and chunk.summary:
        return ChunkViews(texts, 0, size, by_summary=True)
    if len(texts) > 1:  # a table's digest and row views: the rows are read in their views
        rows = texts[1:]
        read = sum(word_pieces(r) <= MAX_WORD_PIECES for r in rows) / len(rows)
        return ChunkViews(texts, round(size * read), size)
    if len(texts[0]) <= MAX_WORD_PIECES - 2:  # a word piece covers at least one character
        return ChunkViews(texts, size, size)
    pieces = piece_spans(texts[0])
    if len(pieces) + 2 <= MAX_WORD_PIECES:
        return ChunkViews(texts, size, size)
    prefix = f"{chunk.context_prefix.strip()}\n\n" if chunk.context_prefix else ""
    read_to = pieces[MAX_WORD_PIECES - 3][1]  # end of the last word piece before [SEP]
    return ChunkViews(texts, min(size, max(0, read_to - len(prefix))), size)


@dataclass(frozen=True)
class _Table:
    caption: list[str]
    rows: list[list[str]]  # header first
    lines: list[str]  # the Markdown line of each row, same order


def _parse(table_text: str) -> _Table:
    caption: list[str] = []
    rows: list[list[str]] = []
    lines: list[str] = []
    for line in table_text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("|"):
            caption.append(stripped)
            continue
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        if all(set(c) <= set("-: ") for c in cells):
            continue  # the |---|---| rule under the header
        rows.append(cells)
        lines.append(stripped)
    return _Table(caption, rows, lines)


def table_digest(table_text: str, heading_path: list[str]) -> str:
    """Heading path, caption lines, header cells and row labels of a Markdown table chunk."""
    table = _parse(table_text)
    if not table.rows:
        return table_text
    parts = [" > ".join(heading_path), *table.caption, "Columns: " + "; ".join(table.rows[0])]
    labels = [r[0] for r in table.rows[1:] if r and r[0]]
    if labels:
        parts.append("Rows: " + "; ".join(labels))
    return "\n".join(p for p in parts if p)


def _row_views(table: _Table, heading_path: list[str]) -> list[str]:
    """One view per body row: the nearest heading, the caption, the header row and the row.

    Only the nearest heading: the whole path (a document title, a part) is the same for every
    row and outweighs a short row's own words. Measured on the sample policy (recursive
    500/50, every sample document ranked): for "What is the dwelling limit?" the limits table
    went from 4th (windows of ~5 rows under the whole path, best cosine 0.358) to 1st (0.487);
    one row under the whole path scored 0.348, windows of 2 rows under the header 0.430.
    """
    head = "\n".join([*heading_path[-1:], *table.caption, table.lines[0]])
    return [f"{head}\n{line}" for line in table.lines[1:]]

"""What is embedded for a chunk: the same texts for the store, retrieval and evaluation.

Kept apart from the store so that code which only ranks in memory does not import Chroma.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.chunking.chunk import Chunk
from core.embeddings.encoder import MAX_WORD_PIECES, piece_spans, word_pieces

# Bump when what is embedded for a chunk changes: cached evaluation results depend on it, and
# chunk sets embedded with another version are flagged stale (ChunkSetInfo.stale).
EMBEDDING_INPUT_VERSION = 5
# Word pieces two neighbouring windows of a long chunk share, so that a sentence cut by one
# window's end is read whole by the next.
WINDOW_OVERLAP = MAX_WORD_PIECES // 8


@dataclass(frozen=True)
class ChunkViews:
    """The texts embedded for a chunk and how much of the chunk's own text they let MiniLM read.

    ``read_chars`` counts characters of ``chunk.text`` inside a view the model reads to its end
    (a table embedded by its LLM summary reads none of its cells; a long text chunk is read
    in windows).
    """

    texts: list[str]
    read_chars: int
    chars: int
    by_summary: bool = False  # a table embedded by its LLM summary (none of its cells)
    windows: int = 1  # the views of a text chunk: windows of its text

    @property
    def read_share(self) -> float:
        return self.read_chars / self.chars if self.chars else 1.0

    @property
    def truncated(self) -> bool:
        """MiniLM stops before the end of the chunk's text (a table whose digest is cut but
        whose rows are all read in their windows is not truncated)."""
        return not self.by_summary and self.read_chars < self.chars

    @property
    def windowed(self) -> bool:
        """A text chunk longer than MiniLM reads at once, embedded in several windows."""
        return self.windows > 1


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

    One view for a text chunk MiniLM reads whole and for a table with an LLM summary. A longer
    text chunk gets overlapping windows of at most :data:`MAX_WORD_PIECES` word pieces
    (:func:`text_windows`, its context prefix in each), so every word is read. A table without
    a summary gets its digest (:func:`embedding_text`) plus one view per body row
    (:func:`_row_views`), so a question about one row of a table — the 40th, or the only one
    that answers — meets that row's own words, undiluted by its neighbours.
    """
    if chunk.chunk_type != "table":
        prefix, spans = _windows(chunk)
        return [prefix + chunk.text[start:end] for start, end in spans]
    first = embedding_text(chunk)
    if chunk.summary:
        return [first]
    table = _parse(chunk.display_text)
    return [first, *_row_views(table, chunk.heading_path)] if table.rows else [first]


def text_windows(text: str, budget: int) -> list[tuple[int, int]]:
    """Character spans of ``text`` of at most ``budget`` word pieces each that together hold
    every word piece, neighbours sharing about :data:`WINDOW_OVERLAP` of them; a window starts
    and ends between words (inside a word only when one word alone is longer than ``budget``).
    A text that fits is one span, the whole text."""
    if len(text) + 2 <= budget or not text.strip():  # a word piece covers at least one character
        return [(0, len(text))]
    pieces = piece_spans(text)
    count = len(pieces)
    if count <= budget:
        return [(0, len(text))]
    cut = [True, *(_between_words(text, pieces[i - 1][1], pieces[i][0]) for i in range(1, count)),
           True]  # cut[i]: a window may start at piece i, or end before it
    spans: list[tuple[int, int]] = []
    start = 0
    while True:
        end = min(count, start + budget)
        end = next((b for b in range(end, start, -1) if cut[b]), end)
        spans.append((pieces[start][0], pieces[end - 1][1]))
        if end == count:
            return spans
        after = max(start + 1, end - WINDOW_OVERLAP)
        start = next((s for s in range(after, end) if cut[s]), after)


def _between_words(text: str, left: int, right: int) -> bool:
    """Whether a window may be cut between the word pieces ending at ``left`` and starting at
    ``right``: a space or a punctuation mark separates them (not a ``##`` continuation)."""
    return right > left or not (text[left - 1].isalnum() and text[right].isalnum())


def _windows(chunk: Chunk) -> tuple[str, list[tuple[int, int]]]:
    """A text chunk's context prefix and its windows (:func:`text_windows`)."""
    prefix = f"{chunk.context_prefix.strip()}\n\n" if chunk.context_prefix else ""
    taken = word_pieces(prefix) - 2 if prefix else 0
    # at least half the model's reach beside the prefix: a longer prefix is itself cut
    budget = max(MAX_WORD_PIECES - 2 - taken, MAX_WORD_PIECES // 2)
    return prefix, text_windows(chunk.text, budget)


def chunk_views(chunk: Chunk) -> ChunkViews:
    """:func:`embedding_views` and how much of the chunk they let MiniLM read (this counts word
    pieces, so only the store's ingest and Compare's figures ask for it)."""
    texts = embedding_views(chunk)
    size = len(chunk.text)
    if chunk.chunk_type == "table" and chunk.summary:
        return ChunkViews(texts, 0, size, by_summary=True)
    if chunk.chunk_type == "table":  # digest and rows: the rows are read in their views
        rows = texts[1:] or texts  # a table without body rows: its digest is its text
        read = sum(word_pieces(r) <= MAX_WORD_PIECES for r in rows) / len(rows)
        return ChunkViews(texts, round(size * read), size)
    prefix, spans = _windows(chunk)
    read = 0  # the chunk's text is read up to here
    for (start, end), view in zip(spans, texts, strict=True):
        if chunk.text[read:start].strip():
            break  # a word no view read
        pieces = piece_spans(view) if len(view) + 2 > MAX_WORD_PIECES else []
        if len(pieces) + 2 > MAX_WORD_PIECES:  # only with a prefix longer than half the reach
            end = start + max(0, pieces[MAX_WORD_PIECES - 3][1] - len(prefix))  # before [SEP]
        read = max(read, end)
    return ChunkViews(texts, size if not chunk.text[read:].strip() else read, size,
                      windows=len(texts))


def read_figures(chunks: list[Chunk]) -> tuple[float, int]:
    """Share of the chunks' text MiniLM reads, and how many views are embedded for them."""
    views = [chunk_views(chunk) for chunk in chunks]
    chars = sum(v.chars for v in views)
    return (sum(v.read_chars for v in views) / chars if chars else 1.0,
            sum(len(v.texts) for v in views))


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

"""Integrity checks of one chunking: what is broken, what is merely awkward, and where.

*Invariants* are promises every strategy keeps (a failure is a bug or a bad hand edit):
offsets reproduce the text, no chunk is empty, no text chunk is over the size, every
non-whitespace character is in some chunk. *Warnings* are choices a user may dislike: a chunk
that ends inside a word or a sentence, a table row split across chunks, a heading left alone at
the end of a chunk while its body starts the next one.

Over the size counts text chunks only: a table kept whole may be larger than the size by design.
A chunk that ends inside a word counts as a cut word, not also as a cut sentence. Ends are
checked, not starts, so a boundary counts once and overlap material (which may start inside a
sentence) is not blamed. A table chunk over the configuration's table max tokens is a warning:
kept whole by choice (table split "whole"), or a single row longer than that.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from core.chunking.chunk import Chunk
from core.documents.model import Document

CheckKind = Literal["offsets", "empty", "over_size", "uncovered", "over_table_max", "cut_word",
                    "cut_sentence", "split_table_row", "lonely_heading"]
LABELS: dict[CheckKind, str] = {
    "offsets": "offsets wrong",
    "empty": "empty chunks",
    "over_size": "over the size",
    "uncovered": "text not in any chunk",
    "over_table_max": "tables over table max",
    "cut_word": "cut words",
    "cut_sentence": "cut sentences",
    "split_table_row": "table rows split",
    "lonely_heading": "headings left alone",
}
INVARIANTS: frozenset[CheckKind] = frozenset({"offsets", "empty", "over_size", "uncovered"})
SENTENCE_END = ".!?:;…\"')]”’"


@dataclass(frozen=True)
class SizeLimit:
    """The size a text chunk may not exceed, in tokens or characters."""

    size: int
    unit: Literal["tokens", "chars"] = "tokens"

    def measure(self, chunk: Chunk) -> int:
        return chunk.tokens if self.unit == "tokens" else chunk.end - chunk.start


def size_limit(settings: Mapping[str, Any]) -> SizeLimit | None:
    """The limit a strategy's settings promise (a hand-edited configuration: its base's)."""
    base = settings.get("base_settings")
    if isinstance(base, Mapping):
        return size_limit(base)
    size = settings.get("size")
    unit = settings.get("unit", "tokens")
    if not isinstance(size, int) or unit not in ("tokens", "chars"):
        return None
    return SizeLimit(size, unit)


def table_limit(settings: Mapping[str, Any]) -> int | None:
    """The table max tokens a strategy's settings name (a hand-edited configuration: its
    base's), or None when it has none."""
    base = settings.get("base_settings")
    if isinstance(base, Mapping):
        return table_limit(base)
    limit = settings.get("table_max_tokens")
    return limit if isinstance(limit, int) and settings.get("tables", True) else None


def _over_table_max(chunks: list[Chunk], limit: int | None) -> list[Place]:
    return [Place(c.start, c.end, k, f"{c.tokens:,} tokens > table max tokens {limit:,}")
            for k, c in enumerate(chunks)
            if limit is not None and c.chunk_type == "table" and c.tokens > limit]


@dataclass(frozen=True)
class Place:
    """Where a check found something: a span of the text, and the chunk (its index) if any."""

    start: int
    end: int
    chunk: int | None
    note: str

    def describe(self) -> str:
        """``chunk 3 · chars 1,200–1,240 · note``, as Compare lists it."""
        where = f"chunk {self.chunk + 1} · " if self.chunk is not None else ""
        return f"{where}chars {self.start:,}–{self.end:,} · {self.note}"


@dataclass(frozen=True)
class Check:
    kind: CheckKind
    places: tuple[Place, ...]

    @property
    def count(self) -> int:
        return len(self.places)

    @property
    def invariant(self) -> bool:
        return self.kind in INVARIANTS

    @property
    def label(self) -> str:
        return LABELS[self.kind]

    def summary(self) -> str:
        """``cut words: 3``, as Compare's badge reads."""
        return f"{self.label}: {self.count:,}"


@dataclass(frozen=True)
class IntegrityReport:
    """Every check of one chunking, in the order of :data:`LABELS`."""

    checks: tuple[Check, ...]

    def counts(self) -> dict[str, int]:
        return {c.kind: c.count for c in self.checks}

    def check(self, kind: CheckKind) -> Check:
        return next(c for c in self.checks if c.kind == kind)

    @property
    def broken(self) -> list[Check]:
        """Invariants that fail."""
        return [c for c in self.checks if c.invariant and c.count]

    @property
    def ok(self) -> bool:
        return not self.broken


def _word_char(text: str, position: int) -> bool:
    return 0 <= position < len(text) and not text[position].isspace()


def _ends_inside_sentence(text: str, end: int) -> bool:
    """Whether more of the same sentence follows ``end`` on the same line."""
    last = end - 1
    while last >= 0 and text[last].isspace():
        last -= 1
    if last < 0 or text[last] in SENTENCE_END:
        return False
    line_end = text.find("\n", end)
    return bool(text[end : len(text) if line_end < 0 else line_end].strip())


def _offsets(document: Document, chunks: list[Chunk]) -> list[Place]:
    size = len(document.text)
    return [
        Place(c.start, c.end, k, "the text differs from the document at these offsets")
        for k, c in enumerate(chunks)
        if not (0 <= c.start <= c.end <= size) or document.text[c.start : c.end] != c.text
    ]


def _uncovered(document: Document, chunks: list[Chunk]) -> list[Place]:
    text = document.text
    places = []
    position = 0
    for c in sorted(chunks, key=lambda c: c.start):
        if c.start > position:
            places.extend(_gap(text, position, c.start))
        position = max(position, c.end)
    places.extend(_gap(text, position, len(text)))
    return places


def _gap(text: str, start: int, end: int) -> list[Place]:
    piece = text[start:end]
    if not piece.strip():
        return []
    left = start + len(piece) - len(piece.lstrip())
    right = end - (len(piece) - len(piece.rstrip()))
    return [Place(left, right, None, f"{right - left:,} characters in no chunk")]


def _cuts(document: Document, chunks: list[Chunk]) -> tuple[list[Place], list[Place]]:
    text = document.text
    last = len(text.rstrip())
    words: list[Place] = []
    sentences: list[Place] = []
    for k, c in enumerate(chunks):
        if c.chunk_type == "table" or c.end >= last:
            continue
        if _word_char(text, c.end - 1) and _word_char(text, c.end):
            words.append(Place(c.end, c.end, k, "ends inside a word"))
        elif _ends_inside_sentence(text, c.end):
            sentences.append(Place(c.end, c.end, k, "ends inside a sentence"))
    return words, sentences


def _split_rows(document: Document, chunks: list[Chunk]) -> list[Place]:
    edges = sorted({p for c in chunks for p in (c.start, c.end)})
    starts = [c.start for c in chunks]
    places = []
    for table in document.tables:
        position = table.start
        for line in document.text[table.start : table.end].split("\n"):
            start, end = position, position + len(line)
            position = end + 1
            stripped = line.strip()
            if not stripped:
                continue
            start += len(line) - len(line.lstrip())
            end = start + len(stripped)
            first = bisect.bisect_right(edges, start)
            if first < len(edges) and edges[first] < end:
                k = bisect.bisect_left(starts, edges[first]) - 1  # the chunk the cut ends
                places.append(Place(start, end, k if k >= 0 else None,
                                    "a chunk boundary cuts this table row"))
    return places


def _lonely_headings(document: Document, chunks: list[Chunk]) -> list[Place]:
    """Only the last heading ending at or before a chunk's end can be alone at its end."""
    text = document.text
    headings = sorted((b for b in document.blocks if b.kind in ("heading", "title")),
                      key=lambda b: b.end)
    ends = [h.end for h in headings]
    places = []
    for k, (c, following) in enumerate(zip(chunks, [*chunks[1:], None], strict=True)):
        i = bisect.bisect_right(ends, c.end) - 1
        if i < 0:
            continue
        h = headings[i]
        if h.start < c.start or text[h.end : c.end].strip():
            continue
        if following is None or following.start <= h.start or not text[h.end :].strip():
            continue
        places.append(Place(h.start, h.end, k,
                            "the heading ends this chunk; its text starts the next"))
    return places


def check_chunks(document: Document, chunks: list[Chunk],
                 limit: SizeLimit | None = None) -> IntegrityReport:
    """Every check of ``chunks`` (in document order) against ``document``; ``limit``: the size
    text chunks promise (default: the one their configuration names, if any)."""
    if limit is None and chunks:
        limit = size_limit(chunks[0].config)
    words, sentences = _cuts(document, chunks)
    found: dict[CheckKind, list[Place]] = {
        "offsets": _offsets(document, chunks),
        "empty": [Place(c.start, c.end, k, "no text but whitespace")
                  for k, c in enumerate(chunks) if not c.text.strip()],
        "over_size": [
            Place(c.start, c.end, k, f"{limit.measure(c):,} {limit.unit} > {limit.size:,}")
            for k, c in enumerate(chunks)
            if limit and c.chunk_type == "text" and limit.measure(c) > limit.size
        ],
        "uncovered": _uncovered(document, chunks),
        "over_table_max": _over_table_max(chunks, table_limit(chunks[0].config) if chunks
                                          else None),
        "cut_word": words,
        "cut_sentence": sentences,
        "split_table_row": _split_rows(document, chunks),
        "lonely_heading": _lonely_headings(document, chunks),
    }
    return IntegrityReport(tuple(Check(kind, tuple(found[kind])) for kind in LABELS))

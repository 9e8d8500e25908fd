"""Numbers that tell chunkings apart: sizes, tables kept whole, boundaries on natural breaks.

A *boundary* is where a chunk starts (every chunk but the first). It falls on a *break* when it
is the start of a block or a section, or only whitespace holding a blank line precedes it.
"""

from __future__ import annotations

import statistics
from typing import Any

from core.chunking.base import Chunk
from core.documents.model import Document
from core.tokens import DEFAULT_ENCODING, count_tokens


def _at_paragraph_break(text: str, position: int) -> bool:
    before = position
    while before > 0 and text[before - 1].isspace():
        before -= 1
    return before == 0 or text.count("\n", before, position) >= 2


def tables_intact(document: Document, chunks: list[Chunk]) -> int:
    """Tables whose whole span lies inside one chunk."""
    return sum(
        any(c.start <= t.start and t.end <= c.end for c in chunks) for t in document.tables
    )


def chunk_stats(
    document: Document, chunks: list[Chunk], target_tokens: int | None = None
) -> dict[str, Any]:
    """Counts and shares for one chunking of ``document`` (``target_tokens``: the size goal)."""
    ordered = sorted(chunks, key=lambda c: (c.start, c.end))
    tokens = [c.tokens for c in ordered]
    section_starts = {p for s in document.sections for p in (s.start, s.heading_start)}
    block_starts = {b.start for b in document.blocks}
    boundaries = [c.start for c in ordered[1:]]
    on_section = sum(p in section_starts for p in boundaries)
    on_break = sum(
        p in section_starts or p in block_starts or _at_paragraph_break(document.text, p)
        for p in boundaries
    )
    encoding = ordered[0].config.get("encoding", DEFAULT_ENCODING) if ordered else DEFAULT_ENCODING
    overlaps = [
        count_tokens(document.text[b.start : a.end], encoding)
        for a, b in zip(ordered, ordered[1:], strict=False)
        if b.start < a.end
    ]
    n_tables = len(document.tables)
    return {
        "chunks": len(ordered),
        "table chunks": sum(c.chunk_type == "table" for c in ordered),
        "mean tokens": round(statistics.fmean(tokens), 1) if tokens else 0.0,
        "median tokens": statistics.median(tokens) if tokens else 0,
        "max tokens": max(tokens, default=0),
        "within target": (
            round(sum(t <= target_tokens for t in tokens) / len(tokens), 3)
            if tokens and target_tokens
            else None
        ),
        "tables intact": f"{tables_intact(document, ordered)}/{n_tables}",
        "tables intact share": (
            round(tables_intact(document, ordered) / n_tables, 3) if n_tables else None
        ),
        "boundaries on section": round(on_section / len(boundaries), 3) if boundaries else None,
        "boundaries on section/paragraph": (
            round(on_break / len(boundaries), 3) if boundaries else None
        ),
        "overlap tokens": sum(overlaps),
        "mean overlap tokens": round(statistics.fmean(overlaps), 1) if overlaps else 0.0,
    }

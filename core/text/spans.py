"""A span of text without its surrounding whitespace."""

from __future__ import annotations


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without surrounding whitespace (``(end, end)`` when it is all whitespace)."""
    piece = text[start:end]
    kept = piece.lstrip()
    if not kept:
        return end, end
    start += len(piece) - len(kept)
    return start, end - (len(kept) - len(kept.rstrip()))

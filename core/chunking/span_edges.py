"""Span edges: stripping whitespace, and where sentences and words start (the places a chunk
may begin without cutting one).

A sentence ends at ``.``, ``!`` or ``?`` (closing quotes and brackets included) followed by
whitespace, or at a line break; a word starts at a non-space character after whitespace.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# ends where the next sentence starts (consuming the punctuation is twice as fast as a look-behind)
SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+|\n\s*")
WORD_START = re.compile(r"(?<=\s)(?=\S)")
LOOK_BACK = 64  # a sentence end that begins this far before a range can still end inside it


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without surrounding whitespace (``(end, end)`` when it is all whitespace)."""
    piece = text[start:end]
    kept = piece.lstrip()
    if not kept:
        return end, end
    start += len(piece) - len(kept)
    return start, end - (len(kept) - len(kept.rstrip()))


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Stripped sentence spans of ``text[start:end]``: ends at ``.!?`` + space, or a newline."""
    cuts = [start, *(m.end() for m in SENTENCE_END.finditer(text, start, end)), end]
    spans = (strip_span(text, a, b) for a, b in zip(cuts, cuts[1:], strict=False))
    return [(a, b) for a, b in spans if b > a]


def sentence_starts(text: str, start: int, end: int) -> Iterator[int]:
    """Positions in ``[start, end)`` where a sentence starts, ascending."""
    for match in SENTENCE_END.finditer(text, max(0, start - LOOK_BACK), end):
        if start <= match.end() < end:
            yield match.end()


def word_starts(text: str, start: int, end: int) -> Iterator[int]:
    """Positions in ``[start, end)`` where a word starts, ascending."""
    return (m.start() for m in WORD_START.finditer(text, start, end))


def non_space(text: str, start: int, end: int) -> Iterator[int]:
    """Every position in ``[start, end)`` holding a non-space character, ascending."""
    return (p for p in range(start, end) if not text[p].isspace())

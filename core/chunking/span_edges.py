"""Span edges: where words start, the places a chunk may begin without cutting one (sentences
start where :mod:`core.text.sentences` says). A word starts at a non-space character after
whitespace.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

WORD_START = re.compile(r"(?<=\s)(?=\S)")


def word_starts(text: str, start: int, end: int) -> Iterator[int]:
    """Positions in ``[start, end)`` where a word starts, ascending."""
    return (m.start() for m in WORD_START.finditer(text, start, end))


def non_space(text: str, start: int, end: int) -> Iterator[int]:
    """Every position in ``[start, end)`` holding a non-space character, ascending."""
    return (p for p in range(start, end) if not text[p].isspace())

"""Recursive splitting on offsets, with exact token counts.

The algorithm is LangChain's ``RecursiveCharacterTextSplitter`` (keep the separator at the start
of the next piece, strip chunk edges): split on the first separator that occurs in the text;
pieces under the target are merged greedily up to the target, and each chunk starts with the
last pieces of the previous one up to ``overlap``; a piece at or over the target is split again
with the next separators. With ``overlap_mode="trailing_pieces"``,
``tests/test_chunking_parity.py`` shows the boundaries are LangChain's with ``unit="chars"``.

Overlap, two ways (``overlap_mode``):

- ``"guaranteed"`` (the default): the splitting above makes cores of at most
  ``size - overlap`` with no overlap, and each core after the first is widened backwards into
  the previous chunk (:mod:`core.chunking.overlap`): consecutive text chunks always share
  between half the overlap and the overlap, from a sentence or word start;
- ``"trailing_pieces"``: LangChain's rule. A chunk starts with the last whole pieces of the
  previous one that fit in ``overlap``; when the last piece alone is larger (paragraphs of
  90 tokens under an overlap of 50), consecutive chunks share nothing.

Where we differ from LangChain, on purpose:

- the size of a candidate chunk is the exact token count of its text, not the sum of the counts
  of its pieces (LangChain's chunks reach 501 tokens at a 500 target);
- a piece that no separator brings under the target (a URL, a long word) is cut into windows
  of ``size`` with ``overlap`` — at token boundaries — instead of being emitted whole, so no
  text chunk exceeds the target;
- with ``"trailing_pieces"``, like LangChain, overlap is carried between the chunks merged
  from one run of pieces; the first chunk after a piece that had to be split again starts
  clean, at a higher-level break.

Speed: the document is encoded once (:class:`TokenIndex`); merge decisions use the document's
token offsets and only counts within a few tokens of the target are checked exactly.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from functools import cache
from typing import Literal

from pydantic import Field, field_validator

from core.chunking.table_aware import (
    Cut,
    Overlap,
    SegmentChunker,
    Size,
    SizedConfig,
    Tables,
)
from core.chunking.token_index import TokenIndex
from core.text.spans import strip_span

DEFAULT_SEPARATORS = ("\n\n", "\n", ". ", " ")
EXACT_MARGIN = 4  # token estimates this close to the target are checked exactly


@cache
def _literal(separator: str) -> re.Pattern[str]:
    return re.compile(re.escape(separator))


class RecursiveConfig(SizedConfig):
    size: Size = 500
    overlap: Overlap = 50
    tables: Tables = True
    overlap_mode: Literal["guaranteed", "trailing_pieces"] = Field(
        "guaranteed",
        description="guaranteed: consecutive chunks always share between half the overlap and "
                    "the overlap, from a sentence or word start; trailing_pieces: LangChain's "
                    "rule, carry only the last whole pieces that fit in the overlap (often none)")
    separators: list[str] = Field(default_factory=lambda: list(DEFAULT_SEPARATORS),
                                  description="Separators tried in order, as a JSON list")

    @field_validator("separators")
    @classmethod
    def _no_empty_separator(cls, value: list[str]) -> list[str]:
        if any(not s for s in value):
            raise ValueError("separators must be non-empty strings")
        return value


class RecursiveChunker(SegmentChunker):
    strategy = "recursive"
    config: RecursiveConfig

    def split(self, index: TokenIndex, start: int, end: int) -> Iterator[Cut]:
        separators = self.config.separators
        if self.config.overlap_mode == "trailing_pieces":
            return self._split(index, start, end, separators, self.config.size,
                               self.config.overlap)
        cores = self._split(index, start, end, separators, self.core_size(), 0)
        return self.overlapped(index, cores)

    def _split(self, index: TokenIndex, lo: int, hi: int, separators: list[str], size: int,
               overlap: int) -> Iterator[Cut]:
        """Cut ``[lo, hi)`` into chunks of at most ``size``, carrying trailing pieces up to
        ``overlap``."""
        text = index.text
        separator, rest = None, []
        for i, candidate in enumerate(separators):
            if text.find(candidate, lo, hi) != -1:
                separator, rest = candidate, separators[i + 1 :]
                break
        bounds = [lo]
        if separator is not None:  # a compiled search finds them faster than a str.find loop
            matches = _literal(separator).finditer(text, lo, hi)
            bounds += [m.start() for m in matches if m.start() > lo]
        bounds.append(hi)
        marks = bounds if self.config.unit == "chars" else index.indices(bounds)
        run = None  # first piece of the current run of pieces under the target
        for i in range(len(bounds) - 1):
            if marks[i + 1] - marks[i] < size:
                run = i if run is None else run
                continue
            if run is not None:
                yield from self._merge(index, bounds, marks, run, i, size, overlap)
                run = None
            if rest:
                yield from self._split(index, bounds[i], bounds[i + 1], rest, size, overlap)
            else:
                yield from self.window_cut(index, bounds[i], bounds[i + 1], size, overlap)
        if run is not None:
            yield from self._merge(index, bounds, marks, run, len(bounds) - 1, size, overlap)

    def _merge(self, index: TokenIndex, bounds: list[int], marks: list[int], first: int,
               stop: int, size: int, overlap: int) -> list[Cut]:
        """Merge pieces ``first..stop-1`` into chunks of at most ``size``, with overlap."""
        text = index.text
        by_tokens = self.config.unit == "tokens"

        def fits(i: int, j: int) -> bool:
            estimate = marks[j] - marks[i]
            if not by_tokens or estimate < size - EXACT_MARGIN:
                return estimate <= size
            if estimate > size + EXACT_MARGIN:
                return False
            return index.count(*strip_span(text, bounds[i], bounds[j])) <= size

        out: list[Cut] = []
        i = first
        while i < stop:
            # ``marks`` never decreases, so the pieces that fit by estimate alone are found by
            # bisection (speed: a chunk holds many pieces); ``fits`` decides the rest
            if by_tokens:
                j = bisect_left(marks, marks[i] + size - EXACT_MARGIN, i + 1, stop + 1) - 1
            else:
                j = bisect_right(marks, marks[i] + size, i + 1, stop + 1) - 1
            j = max(j, i + 1)
            while j < stop and fits(i, j + 1):
                j += 1
            while True:  # verify the chunk's exact count; drop trailing pieces if over
                a, b = strip_span(text, bounds[i], bounds[j])
                tokens = index.count(a, b) if b > a else 0
                if not by_tokens or tokens <= size or j == i + 1:
                    break
                j -= 1
            if b > a:
                if by_tokens and tokens > size:  # one piece the estimate let through
                    out += self.window_cut(index, a, b, size, overlap)
                else:
                    out.append(Cut(a, b, tokens))
            if j >= stop:
                break
            # the next chunk starts at the first piece within ``overlap`` of the end that
            # leaves room for the piece after this chunk
            k = bisect_left(marks, max(marks[j] - overlap, marks[j + 1] - size), i, j)
            i = k if k > i else j
        return out

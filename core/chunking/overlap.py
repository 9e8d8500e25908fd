"""Overlap that is really there: where a chunk starts inside the one before it.

A strategy with overlap first cuts a text segment into *cores* that do not overlap, each at
most ``size - overlap``; every core after the first is then widened backwards into the
previous chunk. The promise, in the configuration's unit (tokens by exact count, or
characters): two consecutive text chunks of one segment share at least half the overlap
(rounded up) and at most the overlap, and the widened chunk stays within ``size``.

The shared part starts at the earliest sentence start that keeps it in that range; failing
that, the earliest word start; failing that (a word longer than half the overlap fills the
previous chunk's tail), any non-space character. Only when no position at all gives a share
in range (the tail is one long run of whitespace, or the previous chunk is shorter than half
the overlap) does the chunk share less: from the earliest word start that fits, else nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from core.chunking.span_edges import non_space, word_starts
from core.chunking.token_index import TokenIndex
from core.text.sentences import sentence_starts

C = TypeVar("C", bound=tuple[int, int, int])  # a core: start, end, tokens
ESTIMATE_MARGIN = 8  # token estimates this close to a bound are checked by exact count


class OverlapPlanner:
    """Where each chunk of a segment starts, for one unit, size and overlap."""

    def __init__(self, index: TokenIndex, by_tokens: bool, size: int, overlap: int) -> None:
        self.index = index
        self.by_tokens = by_tokens
        self.size = size
        self.overlap = overlap
        self.low = (overlap + 1) // 2

    def start(self, prev_start: int, prev_end: int, core: tuple[int, int, int]
              ) -> tuple[int, int | None]:
        """Where the chunk whose own text is ``core`` (start, end, tokens) starts, given the
        previous chunk ``[prev_start, prev_end)``; and the chunk's size when it was measured."""
        core_start, core_end, _ = core
        text, index = self.index.text, self.index
        # candidates lie in [first, last): estimated shares from overlap to low, with margins
        if self.by_tokens:
            end_token = index.index(prev_end)
            first = index.position(end_token - self.overlap - ESTIMATE_MARGIN)
            last = index.position(end_token - self.low + ESTIMATE_MARGIN + 1)
            # exact counts from each start to both ends, from one rank per end (speed): the
            # last split found from prev_start is at or after any split a start finds
            prev_rank = index.end_rank(prev_end, prev_start)
            core_rank = index.end_rank(core_end, prev_start)
        else:
            first, last = prev_end - self.overlap, prev_end - self.low + 1
        first, last = max(first, prev_start + 1), min(last, prev_end)

        def measure(p: int) -> tuple[int, int]:
            """The share and the chunk's size when the chunk starts at ``p``, exact."""
            if not self.by_tokens:
                return prev_end - p, core_end - p
            ranked = index.start_rank(p, prev_end)
            if ranked is None or prev_rank is None or core_rank is None:
                return index.count(p, prev_end), index.count(p, core_end)
            return prev_rank - ranked[1], core_rank - ranked[1]

        for finder in (sentence_starts, word_starts, non_space):
            candidates = list(finder(text, first, last))
            if not candidates:
                continue
            if self.by_tokens:  # one search for all (speed)
                guesses = [end_token - i for i in index.indices(candidates)]
            else:
                guesses = [prev_end - p for p in candidates]
            found = self._in_range(candidates, guesses, measure)
            if found is not None:
                return found
        for p in word_starts(text, first, prev_end):  # a share below half, rather than none
            share, size = measure(p)
            if share <= self.overlap and size <= self.size:
                return p, size
        return core_start, None

    def _in_range(self, candidates: list[int], guesses: list[int],
                  measure: Callable[[int], tuple[int, int]]) -> tuple[int, int] | None:
        """The first candidate whose exact share is in ``[low, overlap]`` and whose chunk fits,
        with its chunk's size; candidates estimated within the bounds first (ascending: the
        larger share), then those estimated just over the top bound (exact counts may be
        lower)."""
        margin = ESTIMATE_MARGIN if self.by_tokens else 0
        over: list[int] = []
        for p, guess in zip(candidates, guesses, strict=True):
            if guess > self.overlap + margin:
                continue
            if guess < self.low - margin:
                break
            if guess > self.overlap:
                over.append(p)
                continue
            share, size = measure(p)
            if self.low <= share <= self.overlap and size <= self.size:
                return p, size
        for p in reversed(over):
            share, size = measure(p)
            if self.low <= share <= self.overlap and size <= self.size:
                return p, size
        return None

    def widen(self, cores: Iterable[C]) -> Iterator[tuple[C, int, int | None]]:
        """Each core of a segment (start, end, tokens), as the cores come, with where its chunk
        starts once widened into the previous chunk and the chunk's size in the unit when it
        was measured (``None`` when the core is left as it is)."""
        prev: tuple[int, int] | None = None
        for core in cores:
            core_start, core_end, _ = core
            start, size = core_start, None
            if prev is not None and self.overlap:
                start, size = self.start(prev[0], prev[1], core)
                if start >= core_start:
                    start, size = core_start, None
            prev = (start, core_end)
            yield core, start, size

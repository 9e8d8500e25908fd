"""Autocut: keep ranked hits up to the first large jump in their scores instead of a fixed k.

The rule vector databases ship under this name (Weaviate's ``autocut``): the scores of the
ranked window (best first, at most the limit asked for) are scaled to run from 0 at the best to
1 at the last, and set against an even descent (the straight line from first to last). A score
that falls much further than the even pace lifts the scaled curve above that line; where the
lift peaks, relevance fell off a cliff. Hits are kept up to, not including, the hit where the
``jumps``-th such peak sits; with no peak, the whole window is kept. So a question with one
clearly relevant passage gets one or two hits and a vague one gets the whole window.

A ``floor`` keeps at least that many hits whatever the scores: a jump among the first ``floor``
does not count, and the cut falls at the first one after them. Autocut alone trades a little
recall for IoU (``bench.bench_autocut``); the floor is how a cut keeps recall.

Autocut is a step after ranking (and after any reranking, whose scores it then reads): it only
shortens a ranked list, so the window (``k`` or the limit) is the most it keeps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

from core.retrieval.modes import DEFAULT_JUMPS

T = TypeVar("T")


def autocut(scores: Sequence[float], jumps: int = DEFAULT_JUMPS, floor: int = 0) -> int:
    """How many of ``scores`` (best first, non-increasing) to keep: everything before the
    ``jumps``-th jump at or past position ``floor``, or all of them when there are fewer jumps
    (or ``jumps`` < 1)."""
    n = len(scores)
    if n <= 2 or jumps < 1:
        return n
    first, last = float(scores[0]), float(scores[-1])
    if not math.isfinite(first - last) or first == last:
        return n
    lift = [(float(s) - first) / (last - first) - i / (n - 1) for i, s in enumerate(scores)]
    found = 0
    for i in range(1, n):
        after = lift[i + 1] if i + 1 < n else lift[i - 2]  # the last point has no next one
        if i >= floor and lift[i] > lift[i - 1] and lift[i] > after:
            found += 1
            if found >= jumps:
                return i
    return n


def cut(ranked: Sequence[T], scores: Sequence[float], jumps: int | None, floor: int = 0
        ) -> list[T]:
    """``ranked`` up to its autocut (``jumps`` None: all of it) keeping at least ``floor``;
    ``scores`` are its scores."""
    if jumps is None:
        return list(ranked)
    return list(ranked[: autocut(scores, jumps, floor)])

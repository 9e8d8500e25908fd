"""Reciprocal rank fusion (Cormack et al., 2009): merge rankings without comparing their scores."""

from __future__ import annotations

RRF_K = 60


def fused_scores(rankings: list[list[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """``(item, Σ 1 / (k + rank))`` best first; rank is 1-based within each ranking.

    Ties keep the order of first appearance (earlier ranking, higher place), so the result is
    deterministic.
    """
    totals: dict[int, float] = {}
    for ranking in rankings:
        for place, item in enumerate(ranking, start=1):
            totals[item] = totals.get(item, 0.0) + 1.0 / (k + place)
    first_seen = {item: n for n, item in enumerate(totals)}
    return sorted(totals.items(), key=lambda pair: (-pair[1], first_seen[pair[0]]))


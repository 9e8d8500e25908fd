"""How a question may retrieve, as a user picks it on a page or in the CLI: the rankings
(:mod:`core.retrieval.ranking`) and how many score jumps autocut passes by default
(:mod:`core.retrieval.autocut`)."""

from __future__ import annotations

from typing import Literal

RankMode = Literal["vector", "bm25", "hybrid"]
RANK_MODES: tuple[str, ...] = ("vector", "bm25", "hybrid")

# Jumps to pass before cutting: chosen on the shipped question sets and checked on the
# benchmark corpus (bench/bench_autocut.py).
DEFAULT_JUMPS = 1

"""What Compare shows of a chunking beside its chunks: its figures (sizes against the size it
aims at, tables kept whole, starts on natural breaks, what the embedder reads of it) and its
integrity checks."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.chunking.checks import IntegrityReport, check_chunks
from core.chunking.chunk import Chunk
from core.chunking.stats import ChunkStats, chunk_stats
from core.documents.model import Document
from core.store.views import read_figures

FIGURE_LABELS = {
    "chunks": "chunks", "table_chunks": "table chunks", "mean_tokens": "mean tokens",
    "median_tokens": "median tokens", "max_tokens": "max tokens",
    "within_target": "within the chosen size", "boundaries_on_section": "starts on a section",
    "boundaries_on_break": "starts on a section or paragraph",
    "overlap_tokens": "overlap tokens", "mean_overlap_tokens": "mean overlap tokens",
}
SHARES = {"within_target", "boundaries_on_section", "boundaries_on_break"}
FIGURE_DETAILS = {  # what the less obvious rows count
    "within the chosen size": "the share of chunks no longer than the size set (counted in "
    "tokens; a size in characters is not counted).",
    "starts on a section / paragraph": "the share of chunks that begin where the document does.",
    "text read when searching": "the share of the chunks' text the built-in embedder (MiniLM) "
    "reads; a chunk longer than it reads at once is embedded in overlapping windows, so every "
    "word counts.",
    "pieces embedded": "the vectors stored for the chunks, one per chunk, more for a long "
    "chunk's windows (a table embedded by its summary is one).",
}


@dataclass(frozen=True)
class ChunkReview:
    stats: ChunkStats
    read: float  # the share of the chunks' text the embedder reads
    views: int  # the texts embedded for them
    integrity: IntegrityReport


def review(document: Document, chunks: list[Chunk], settings: Mapping[str, Any]) -> ChunkReview:
    """The figures and checks of ``chunks``, made with ``settings``: their size is a target
    only when it counts tokens."""
    target = settings.get("size") if settings.get("unit", "tokens") == "tokens" else None
    read, views = read_figures(chunks)
    return ChunkReview(chunk_stats(document, chunks, target), read, views,
                       check_chunks(document, chunks))


def share(value: float) -> str:
    """``73 %`` rounded down, so a share below one never reads ``100 %`` (``99.7 %`` near
    it, ``0.4 %`` near zero)."""
    percent = value * 100
    if percent >= 100:
        return "100 %"
    digits = 1 if percent > 99 or 0 < percent < 1 else 0
    return f"{math.floor(percent * 10**digits) / 10**digits:.{digits}f} %"


def shown_figures(figures: ChunkReview) -> dict[str, str]:
    """The figures as Compare's table and its report show them, by row label: counts with
    separators, shares as percentages."""
    stats, shown = figures.stats, {}
    for field, label in FIGURE_LABELS.items():
        value = getattr(stats, field)
        if value is None:
            shown[label] = "no size in tokens" if field == "within_target" else "–"
        elif field in SHARES:
            shown[label] = f"{value:.0%}"
        else:
            shown[label] = f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"
    shown["tables kept whole"] = f"{stats.tables_intact} of {stats.tables}"
    shown["tables split by rows"] = f"{stats.tables_split} of {stats.tables}"
    shown["text read when searching"] = share(figures.read)
    shown["pieces embedded"] = f"{figures.views:,}"
    return shown

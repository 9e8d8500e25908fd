"""What Compare shows of a chunking beside its chunks: its figures (sizes against the size it
aims at, tables kept whole, starts on natural breaks, what the embedder reads of it) and its
integrity checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.chunking.checks import IntegrityReport, check_chunks
from core.chunking.chunk import Chunk
from core.chunking.stats import ChunkStats, chunk_stats
from core.documents.model import Document
from core.store.views import read_figures


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

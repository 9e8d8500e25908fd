"""Rank chunks for a question in memory: vector (cosine), BM25, or both fused (hybrid).

Pure functions over a list of chunks (or plain texts); retrieval from a chunk set and the
evaluation both use them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.chunking.chunk import Chunk
from core.embeddings.encoder import embed
from core.retrieval.autocut import cut
from core.retrieval.bm25 import BM25Index
from core.retrieval.fusion import RRF_K, fused_scores
from core.retrieval.modes import RANK_MODES, RankMode
from core.retrieval.packs import merge_adjacent, merge_depth
from core.store.views import embedding_views

DEFAULT_LIMIT = 10
# Reciprocal-rank constant of small-to-big hybrid ranking. Walked twice as deep, the fused
# ranking is better led by what either ranking puts at its very top: with 10 instead of 60 a
# small chunk that BM25 or the vectors rank first beats chunks both rank middling (higher recall
# and IoU on the long mixed set of bench.bench_retrieval_quality than 60).
MERGED_FUSION_K = 10


def _texts(chunks: Sequence[Chunk | str]) -> list[str]:
    return [c if isinstance(c, str) else c.text for c in chunks]


def vector_scores(query: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    """Cosine similarity of the query vector to each row of ``embeddings``."""
    norms = np.linalg.norm(embeddings, axis=1) * (np.linalg.norm(query) or 1.0)
    return embeddings @ query / np.where(norms == 0, 1.0, norms)


@dataclass(frozen=True)
class ChunkVectors:
    """The vectors of every view of every chunk (:func:`core.store.views.embedding_views`):
    row ``i`` of ``matrix`` is a view of chunk ``owners[i]``. Owners are non-decreasing and
    every chunk ``0 .. n-1`` has at least one row; a chunk scores the best of its views."""

    matrix: np.ndarray
    owners: np.ndarray

    def __post_init__(self) -> None:
        owners = np.asarray(self.owners, dtype=np.int64)
        steps = np.diff(np.r_[-1, owners])
        if len(owners) != len(self.matrix) or np.any((steps != 0) & (steps != 1)):
            raise ValueError("Chunk vector owners must run 0, 1, … in order, without gaps.")
        object.__setattr__(self, "owners", owners)
        object.__setattr__(self, "matrix", np.asarray(self.matrix, dtype=np.float32))

    @classmethod
    def single(cls, embeddings: np.ndarray) -> ChunkVectors:
        """One vector per chunk."""
        return cls(np.asarray(embeddings), np.arange(len(embeddings)))

    @classmethod
    def from_views(cls, views: Sequence[Sequence[str]], vectors: np.ndarray) -> ChunkVectors:
        """``vectors`` of the flattened ``views`` (a list of view texts per chunk)."""
        owners = np.repeat(np.arange(len(views)), [len(v) for v in views])
        return cls(vectors, owners)

    @classmethod
    def stacked(cls, parts: Sequence[ChunkVectors]) -> ChunkVectors:
        """The vectors of several lists of chunks, one list after another."""
        if len(parts) == 1:
            return parts[0]
        offsets = np.cumsum([0, *(len(part) for part in parts[:-1])])
        return cls(np.vstack([part.matrix for part in parts]),
                   np.concatenate([part.owners + offset
                                   for part, offset in zip(parts, offsets, strict=True)]))

    def __len__(self) -> int:
        return 0 if not len(self.owners) else int(self.owners[-1]) + 1

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Per chunk, the best cosine of the query vector and one of its views."""
        by_view = vector_scores(np.asarray(query, dtype=np.float32), self.matrix)
        if len(by_view) == len(self):
            return by_view
        starts = np.flatnonzero(np.r_[True, np.diff(self.owners) != 0])
        return np.maximum.reduceat(by_view, starts)


def chunk_vectors(chunks: Sequence[Chunk | str]) -> ChunkVectors:
    """Embed every view of ``chunks`` (a plain text is its own single view) in one batch."""
    views = [[c] if isinstance(c, str) else embedding_views(c) for c in chunks]
    return ChunkVectors.from_views(views, embed([text for v in views for text in v]))


def ordered(scores: np.ndarray, positive_only: bool = False) -> list[tuple[int, float]]:
    """``(index, score)`` best first, ties by index; optionally without zero scores."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    return [(int(i), float(scores[i])) for i in order if not positive_only or scores[i] > 0]


def hybrid(
    question: str, index: BM25Index, by_vector: Sequence[tuple[int, float]],
    fusion_k: int = RRF_K,
) -> list[tuple[int, float]]:
    """Fuse a vector ranking with the BM25 ranking of the same texts."""
    by_words = ordered(index.scores(question), positive_only=True)
    return fused_scores([[i for i, _ in by_vector], [i for i, _ in by_words]], fusion_k)


def rank_chunks(
    question: str,
    chunks: Sequence[Chunk | str],
    ranking: RankMode = "vector",
    embeddings: np.ndarray | ChunkVectors | None = None,
    limit: int | None = DEFAULT_LIMIT,
    query_embedding: np.ndarray | None = None,
    bm25_index: BM25Index | None = None,
    fusion_k: int = RRF_K,
) -> list[tuple[int, float]]:
    """The best ``limit`` chunks as ``(index into chunks, score)``, best first.

    vector: cosine of ``query_embedding`` and ``embeddings`` — one row per chunk, or a
    :class:`ChunkVectors` with several views per chunk, scored by the best view (computed with
    :func:`chunk_vectors` when not given, from the texts the store embeds).
    bm25: BM25 score; chunks sharing no term with the question are left out.
    hybrid: reciprocal rank fusion of the full vector ranking and the BM25 ranking; the score
    is the fused score (``fusion_k``: see :func:`core.retrieval.fusion.fused_scores`). Pass
    ``bm25_index`` (built on the same texts) to rank many questions
    against one corpus without rebuilding it.
    """
    if ranking not in RANK_MODES:
        raise ValueError(f"Unknown ranking {ranking!r}; choose one of {', '.join(RANK_MODES)}.")
    if not chunks:
        return []
    texts = _texts(chunks)
    words = bm25_index
    if words is None and ranking != "vector":
        words = BM25Index(texts)
    result: list[tuple[int, float]]
    if ranking == "bm25":
        assert words is not None
        result = ordered(words.scores(question), positive_only=True)
    else:
        if embeddings is None:
            embeddings = chunk_vectors(chunks)
        elif not isinstance(embeddings, ChunkVectors):
            embeddings = ChunkVectors.single(embeddings)
        if query_embedding is None:
            query_embedding = embed([question])[0]
        by_vector = ordered(embeddings.scores(query_embedding))
        if ranking == "vector":
            result = by_vector
        else:
            assert words is not None
            result = hybrid(question, words, by_vector, fusion_k)
    return result if limit is None else result[:limit]


Reorder = Callable[[list[tuple[int, float]]], list[tuple[int, float]]]


def rank_merged(
    question: str,
    chunks: Sequence[Chunk],
    ranking: RankMode = "vector",
    limit: int = DEFAULT_LIMIT,
    reorder: Reorder | None = None,
    autocut: int | None = None,
    floor: int = 0,
    **options: Any,
) -> list[tuple[list[int], float]]:
    """Small-to-big: rank ``chunks`` as :func:`rank_chunks` does (``options`` are its keyword
    arguments), walk the best :func:`~core.retrieval.packs.merge_depth` — with ``autocut``
    (jumps), only those before the jump past the first ``floor``
    (:mod:`core.retrieval.autocut`) — and merge hits
    that are neighbours in their document (:func:`core.retrieval.packs.merge_adjacent`).
    Hybrid ranking fuses with :data:`MERGED_FUSION_K`. ``reorder`` (a reranking step) gets the
    whole ranking before the walk (and before autocut, which then reads its scores). Returns up
    to ``limit`` runs best first, each as ``(indices into chunks in document order, best hit's
    score)``.
    """
    depth = merge_depth(limit)
    ranked = rank_chunks(question, chunks, ranking, limit=None if reorder else depth,
                         fusion_k=MERGED_FUSION_K, **options)
    if reorder:
        ranked = reorder(ranked)[:depth]
    ranked = cut(ranked, [s for _, s in ranked], autocut, floor)
    order = sorted(range(len(chunks)), key=lambda i: (chunks[i].doc_id, chunks[i].start,
                                                      chunks[i].end))
    position = {index: place for place, index in enumerate(order)}
    runs = merge_adjacent([(chunks[i].doc_id, position[i]) for i, _ in ranked], limit)
    return [(sorted((ranked[n][0] for n in run), key=position.__getitem__), ranked[run[0]][1])
            for run in runs]

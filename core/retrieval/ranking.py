"""Rank chunks for a question in memory: vector (cosine), BM25, or both fused (hybrid).

Pure functions over a list of chunks (or plain texts); the store-backed :func:`retrieve` and the
evaluation reuse them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from core.chunking.base import Chunk
from core.retrieval.bm25 import BM25Index
from core.retrieval.fusion import fused_scores

RankMode = Literal["vector", "bm25", "hybrid"]
RANK_MODES: tuple[str, ...] = ("vector", "bm25", "hybrid")
DEFAULT_LIMIT = 10


def _texts(chunks: Sequence[Chunk | str]) -> list[str]:
    return [c if isinstance(c, str) else c.text for c in chunks]


def vector_scores(query: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    """Cosine similarity of the query vector to each row of ``embeddings``."""
    norms = np.linalg.norm(embeddings, axis=1) * (np.linalg.norm(query) or 1.0)
    return embeddings @ query / np.where(norms == 0, 1.0, norms)


def ordered(scores: np.ndarray, positive_only: bool = False) -> list[tuple[int, float]]:
    """``(index, score)`` best first, ties by index; optionally without zero scores."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    return [(int(i), float(scores[i])) for i in order if not positive_only or scores[i] > 0]


def hybrid(
    question: str, index: BM25Index, by_vector: Sequence[tuple[int, float]]
) -> list[tuple[int, float]]:
    """Fuse a vector ranking with the BM25 ranking of the same texts."""
    by_words = ordered(index.scores(question), positive_only=True)
    return fused_scores([[i for i, _ in by_vector], [i for i, _ in by_words]])


def rank(
    question: str,
    chunks: Sequence[Chunk | str],
    mode: RankMode = "vector",
    embeddings: np.ndarray | None = None,
    limit: int | None = DEFAULT_LIMIT,
    query_embedding: np.ndarray | None = None,
    bm25_index: BM25Index | None = None,
) -> list[tuple[int, float]]:
    """The best ``limit`` chunks as ``(index into chunks, score)``, best first.

    vector: cosine of ``query_embedding`` and ``embeddings`` (each computed with
    :func:`core.embeddings.embed` when not given, chunks from the text the store embeds).
    bm25: BM25 score; chunks sharing no term with the question are left out.
    hybrid: reciprocal rank fusion of the full vector ranking and the BM25 ranking; the score
    is the fused score. Pass ``bm25_index`` (built on the same texts) to rank many questions
    against one corpus without rebuilding it.
    """
    if mode not in RANK_MODES:
        raise ValueError(f"Unknown rank mode {mode!r}; choose one of {', '.join(RANK_MODES)}.")
    if not chunks:
        return []
    texts = _texts(chunks)
    if mode != "vector" and bm25_index is None:
        bm25_index = BM25Index(texts)
    result: list[tuple[int, float]]
    if mode == "bm25":
        result = ordered(bm25_index.scores(question), positive_only=True)
    else:
        if embeddings is None or query_embedding is None:
            from core.embeddings import embed

            if embeddings is None:
                from core.embedding_input import embedding_text

                embeddings = embed([c if isinstance(c, str) else embedding_text(c)
                                    for c in chunks])
            query_embedding = embed([question])[0] if query_embedding is None else query_embedding
        by_vector = ordered(vector_scores(np.asarray(query_embedding, dtype=np.float32),
                                          np.asarray(embeddings, dtype=np.float32)))
        result = by_vector if mode == "vector" else hybrid(question, bm25_index, by_vector)
    return result if limit is None else result[:limit]

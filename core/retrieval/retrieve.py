"""Retrieve from a chunk set: rank its chunks for a question and turn the hits into packs.

Vector ranking asks the store (Chroma), the question embedded by the set's own embedder; BM25
and hybrid rank the set's chunks in memory with :func:`core.retrieval.ranking.rank_chunks`, the
same function the evaluation uses. An optional reranker reorders the best hits before the cut
(:mod:`core.retrieval.rerank`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.chunking.chunk import Chunk
from core.embeddings.port import Embedder
from core.embeddings.settings import EmbeddingSettings
from core.errors import ChunkLabError, StoreError
from core.retrieval.autocut import cut
from core.retrieval.bm25 import BM25Index
from core.retrieval.front_matter import retrievable
from core.retrieval.fusion import RRF_K
from core.retrieval.modes import RANK_MODES, RankMode
from core.retrieval.pack import Pack
from core.retrieval.packs import build_packs, merge_depth, merged_packs
from core.retrieval.ranking import MERGED_FUSION_K, hybrid, rank_chunks
from core.retrieval.rerank import Reranker, rerank_hits
from core.store import ChunkStore

Filters = Mapping[str, Any]  # chunk field → value, or a list of accepted values
HYBRID_CANDIDATES = 100  # vector hits fused with BM25 (at least 10 × limit)
FRONT_MATTER_ROOM = 20  # vector hits asked for beyond the limit, for front matter to leave


class RetrievalError(ChunkLabError):
    """Retrieval settings that cannot work (unknown ranking, limit below one…)."""


def where_clause(filters: Filters | None) -> dict | None:
    """The Chroma ``where`` for ``filters`` (equality, ``$in`` for lists, ``$and`` for several)."""
    parts = [
        {key: {"$in": list(value)} if isinstance(value, list | tuple | set) else value}
        for key, value in sorted((filters or {}).items())
    ]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"$and": parts}


def chunk_filter(filters: Filters | None):
    """A predicate on chunks with the same meaning as :func:`where_clause`."""
    def accepts(chunk: Chunk) -> bool:
        for key, value in (filters or {}).items():
            field = getattr(chunk, key, None)
            allowed = value if isinstance(value, list | tuple | set) else [value]
            if field not in allowed:
                return False
        return True
    return accepts


def _hits(
    store: ChunkStore, name: str, question: str, limit: int, ranking: RankMode,
    filters: Filters | None, fusion_k: int, embedder: Embedder | None,
    include_front_matter: bool,
) -> list[tuple[Chunk, float]]:
    where = where_clause(filters)
    if ranking == "vector":
        found = store.query(name, question, limit, where=where, embedder=embedder)
        kept = [(c, s) for c, s in found if retrievable(c, include_front_matter)]
        if len(kept) < len(found):  # some were front matter: ask for more
            found = store.query(name, question, limit + FRONT_MATTER_ROOM, where=where,
                                embedder=embedder)
            kept = [(c, s) for c, s in found if retrievable(c, include_front_matter)][:limit]
        return kept
    chunks = [c for c in store.get_chunks(name) if chunk_filter(filters)(c)
              and retrievable(c, include_front_matter)]
    if ranking == "bm25":
        ranked = rank_chunks(question, chunks, "bm25", limit=limit)
    else:
        index = {c.id: i for i, c in enumerate(chunks)}
        k = min(len(chunks), max(HYBRID_CANDIDATES, 10 * limit))
        by_vector = [(index[c.id], s) for c, s in store.query(name, question, k, where=where,
                                                               embedder=embedder)
                     if c.id in index] if k else []
        ranked = hybrid(question, BM25Index([c.text for c in chunks]), by_vector,
                        fusion_k)[:limit]
    return [(chunks[i], score) for i, score in ranked]


def retrieve(
    question: str,
    limit: int = 5,
    per_hit_neighbors: int = 0,
    ranking: RankMode = "vector",
    chunk_set: str | None = None,
    filters: Filters | None = None,
    store: ChunkStore | None = None,
    merge_adjacent: bool = False,
    autocut: int | None = None,
    embedding: EmbeddingSettings | None = None,
    reranker: Reranker | None = None,
    autocut_floor: int = 0,
    include_front_matter: bool = False,
) -> list[Pack]:
    """Up to ``limit`` packs for ``question`` from ``chunk_set`` (default: the active set).

    Each hit becomes a pack with its ``per_hit_neighbors`` neighbours on each side (document
    order, unfiltered); hits whose windows share chunks merge, so fewer than ``limit`` packs can
    come back. ``filters`` restrict the hits, e.g. ``{"chunk_type": "table"}`` or
    ``{"doc_id": [a, b]}``. A blank question retrieves nothing. ``merge_adjacent`` is
    small-to-big retrieval: the best :func:`~core.retrieval.packs.merge_depth` hits are
    walked and hits that are neighbours in their document come back as one pack (then with
    no extra neighbours). ``autocut`` (jumps) keeps the ranked hits only up to the first
    large drop in their scores (:mod:`core.retrieval.autocut`), keeping at least
    ``autocut_floor``, after any reranking and before any merging. ``embedding`` are the
    session's endpoint settings (the key of a set embedded at an endpoint); ``reranker``
    reorders the best hits before the cut. Front matter (covers, contents, lists of figures,
    indexes: :func:`~core.retrieval.front_matter.retrievable`) is left out unless
    ``include_front_matter``.
    """
    if ranking not in RANK_MODES:
        raise RetrievalError(
            f"Unknown ranking “{ranking}”; choose one of {', '.join(RANK_MODES)}.")
    if limit < 1 or per_hit_neighbors < 0:
        raise RetrievalError("The limit must be at least 1 and neighbours cannot be negative.")
    if autocut is not None and autocut < 1:
        raise RetrievalError("Autocut cuts at a jump in the scores: give it at least 1 jump.")
    store = store or ChunkStore()
    name = chunk_set or store.active_set()
    if not name:
        raise StoreError("No chunk set is active: create one on the Chunk sets page first.")
    if not question.strip():
        return []
    depth = merge_depth(limit) if merge_adjacent else limit
    embedder = store.embedder(name, embedding) if ranking != "bm25" else None
    fetch = max(depth, reranker.settings.top_n) if reranker else depth
    hits = _hits(store, name, question, fetch, ranking, filters,
                 MERGED_FUSION_K if merge_adjacent else RRF_K, embedder, include_front_matter)
    if reranker:
        hits = rerank_hits(reranker, question, hits, lambda c: c.text)[:depth]
    hits = cut(hits, [score for _, score in hits], autocut, autocut_floor)
    doc_chunks: dict[str, Sequence[Chunk]] = {}
    if per_hit_neighbors or merge_adjacent:
        for doc_id in dict.fromkeys(c.doc_id for c, _ in hits):
            doc_chunks[doc_id] = sorted(store.get_chunks(name, doc_id=doc_id),
                                        key=lambda c: (c.start, c.end))
    if merge_adjacent:
        return merged_packs(hits, limit, doc_chunks)
    return build_packs(hits, per_hit_neighbors, doc_chunks)

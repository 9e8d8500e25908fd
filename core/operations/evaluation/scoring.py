"""Rank and score every question of one candidate: embed the views of all its chunks in one
batch (a chunk scores the best of its views), rank the chunks of the question's documents — its
own, and any an alternative of it names — in memory (vector, BM25 or hybrid), keep the top
``k`` — or, with a ``budget``, the best chunks until that many tokens, the last one cut to fit
(:mod:`core.evaluation.budget`), or with ``autocut`` the top ``k`` up to the first large drop
in their scores (:mod:`core.retrieval.autocut`) — and score them against the best of the
question's options (:mod:`core.evaluation.across_documents`), counting every question's
retrieved tokens."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from core.chunking.chunk import Chunk
from core.embeddings import Embedder
from core.evaluation.across_documents import Place, question_places, score_across_documents
from core.evaluation.budget import within_budget
from core.evaluation.metrics import aggregate, touches
from core.evaluation.questions import Question
from core.operations.evaluation.candidates import Candidate, Retrieval
from core.operations.evaluation.results import CandidateResult, QuestionResult, RetrievedChunk
from core.retrieval.autocut import cut
from core.retrieval.bm25 import BM25Index
from core.retrieval.modes import RankMode
from core.retrieval.ranking import ChunkVectors, rank_chunks, rank_merged
from core.retrieval.rerank import Reranker, rerank_hits
from core.store.views import embedding_views
from core.tokens import count_tokens

Step = Callable[[float, str], None]  # fraction of one candidate done, what it is doing


@dataclass(frozen=True)
class _Pool:
    """The chunks one question searches: those of its own document, and of each document an
    alternative names, as one list, with each chunk's place, their vectors and BM25 index, and
    the text length of each document (what scoring across documents needs)."""

    chunks: list[Chunk]
    places: list[Place]  # of each chunk, in its document
    vectors: ChunkVectors | None
    bm25: BM25Index | None
    lengths: dict[str, int]

    @classmethod
    def of(cls, searched: tuple[str, ...], chunks: dict[str, list[Chunk]],
           vectors: dict[str, ChunkVectors], texts: dict[str, str],
           ranking: RankMode) -> _Pool:
        """The pool of the documents ``searched`` (a BM25 index of their chunks together, so
        its term statistics are those of what the question searches)."""
        items = [c for cid in searched for c in chunks[cid]]
        return cls(items, [Place(cid, c.start, c.end) for cid in searched for c in chunks[cid]],
                   ChunkVectors.stacked([vectors[cid] for cid in searched]) if vectors else None,
                   BM25Index([c.text for c in items]) if ranking != "vector" else None,
                   {cid: len(texts[cid]) for cid in searched})


def score_candidate(
    questions: list[Question],
    chunks: dict[str, list[Chunk]],
    texts: dict[str, str],
    candidate: Candidate,
    ranking: RankMode,
    retrieval: Retrieval,
    embedded: tuple[Embedder, np.ndarray] | None,
    step: Step,
    reranker: Reranker | None,
) -> CandidateResult:
    """Rank and score every question; ``embedded`` is the embedder with the questions' vectors
    (None for BM25 ranking)."""
    k, budget, autocut = retrieval.k, retrieval.budget, retrieval.autocut
    corpus_ids = sorted(chunks)
    vectors: dict[str, ChunkVectors] = {}
    question_vectors = None if embedded is None else embedded[1]
    dimension = 0
    if embedded is not None:
        step(0.3, "embedding chunks")
        views = {cid: [embedding_views(c) for c in chunks[cid]] for cid in corpus_ids}
        matrix = embedded[0].embed([text for cid in corpus_ids for view in views[cid]
                                    for text in view])
        dimension = int(matrix.shape[1])
        offset = 0
        for cid in corpus_ids:
            count = sum(len(view) for view in views[cid])
            vectors[cid] = ChunkVectors.from_views(views[cid], matrix[offset : offset + count])
            offset += count
    searched = [tuple(cid for cid in q.corpus_ids if cid in chunks) for q in questions]
    pools = {group: _Pool.of(group, chunks, vectors, texts, ranking) for group in set(searched)}

    step(0.8, "reranking, ranking and scoring" if reranker else "ranking and scoring")
    tokens = _TokenCounts(texts)  # shared by the questions (threads with a reranker)

    def one(qi: int) -> QuestionResult:
        q = questions[qi]
        pool = pools[searched[qi]]
        options: dict[str, Any] = {
            "embeddings": pool.vectors, "bm25_index": pool.bm25,
            "query_embedding": None if question_vectors is None else question_vectors[qi]}
        accepted = [option for option in question_places(q)
                    if all(p.corpus_id in chunks for p in option)]
        reorder = None if reranker is None else (
            lambda ranked: rerank_hits(reranker, q.question, ranked,
                                       lambda i: pool.chunks[i].text))
        if candidate.merge_adjacent:
            merged = rank_merged(q.question, pool.chunks, ranking, limit=k, reorder=reorder,
                                 autocut=autocut, floor=retrieval.floor, **options)
            hits = [_merged_range(pool, neighbours, s) for neighbours, s in merged]
        else:
            ranked = rank_chunks(q.question, pool.chunks, ranking,
                                 limit=None if budget or reorder else k, **options)
            if reorder is not None:
                ranked = reorder(ranked)[: None if budget else k]
            ranked = cut(ranked, [s for _, s in ranked], autocut, retrieval.floor)
            hits = _retrieved(ranked, pool, budget)
        score, chosen = score_across_documents(
            [place for place, _ in hits], accepted, pool.places, pool.lengths,
            retrieved_tokens=sum(tokens.of(p.corpus_id, p.start, p.end) for p, _ in hits))
        references = accepted[chosen] if accepted else []
        return QuestionResult(
            row=q.row, question=q.question, corpus_id=q.corpus_id, kind=q.kind,
            references=[(p.start, p.end) for p in references],
            retrieved=[_hit(place, n, made, q.corpus_id, references)
                       for n, (place, made) in enumerate(hits, 1)],
            scores=score,
            reference_corpus_ids=([p.corpus_id for p in references]
                                  if any(p.corpus_id != q.corpus_id for p in references)
                                  else []))

    if reranker is None:
        rows = [one(qi) for qi in range(len(questions))]
    else:  # one request per question: as many at once as the endpoint allows
        with ThreadPoolExecutor(max_workers=reranker.settings.concurrency) as executor:
            rows = list(executor.map(one, range(len(questions))))
    scored = [(row.corpus_id, row.kind, row.scores) for row in rows]
    return CandidateResult(candidate, ranking, k, aggregate(scored), rows,
                           {cid: len(chunks[cid]) for cid in corpus_ids}, seconds=0.0,
                           budget=budget, autocut=autocut, floor=retrieval.floor,
                           dimension=dimension)


class _TokenCounts:
    """Tokens (cl100k) of spans of the documents, each span counted once per run: a chunk
    retrieved for many questions is not counted again."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts
        self.counts: dict[tuple[str, int, int], int] = {}

    def of(self, corpus_id: str, start: int, end: int) -> int:
        key = (corpus_id, start, end)
        if key not in self.counts:
            self.counts[key] = count_tokens(self.texts[corpus_id][start:end])
        return self.counts[key]


@dataclass(frozen=True)
class _Made:
    """How a hit was made: its score, its kind, and whether the budget cut it short."""

    score: float
    chunk_type: str
    cut: bool = False


def _retrieved(ranked: list[tuple[int, float]], pool: _Pool,
               budget: int | None) -> list[tuple[Place, _Made]]:
    """The ranked chunks a question retrieves: all of ``ranked`` (already the top k), or those
    that fill the token budget."""
    chunks = pool.chunks
    if budget is None:
        spans = [(i, chunks[i].start, chunks[i].end, False) for i, _ in ranked]
    else:
        picks = within_budget([(chunks[i].start, chunks[i].text) for i, _ in ranked], budget)
        spans = [(ranked[p.index][0], p.start, p.end, p.cut) for p in picks]
    scores = dict(ranked)
    return [(Place(pool.places[i].corpus_id, start, end),
             _Made(round(scores[i], 6), chunks[i].chunk_type, cut))
            for i, start, end, cut in spans]


def _merged_range(pool: _Pool, neighbours: list[int], score: float) -> tuple[Place, _Made]:
    """Neighbouring chunks (document order) retrieved as one range; a table when one of them is."""
    chunks = pool.chunks
    kind = "table" if any(chunks[i].chunk_type == "table" for i in neighbours) else "text"
    place = replace(pool.places[neighbours[0]], end=chunks[neighbours[-1]].end)
    return place, _Made(round(score, 6), kind)


def _hit(place: Place, rank: int, made: _Made, own: str,
         references: list[Place]) -> RetrievedChunk:
    """A retrieved range as the result keeps it (its document named when not ``own``)."""
    touching = [(p.start, p.end) for p in references if p.corpus_id == place.corpus_id]
    return RetrievedChunk(rank, place.start, place.end, made.score, made.chunk_type,
                          touches((place.start, place.end), touching), made.cut,
                          "" if place.corpus_id == own else place.corpus_id)

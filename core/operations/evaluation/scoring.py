"""Rank and score every question of one candidate: embed the views of all its chunks in one
batch (a chunk scores the best of its views), rank the chunks of the question's own document in
memory (vector, BM25 or hybrid), keep the top ``k`` — or, with a ``budget``, the best chunks
until that many tokens, the last one cut to fit (:mod:`core.evaluation.budget`), or with
``autocut`` the top ``k`` up to the first large drop in their scores
(:mod:`core.retrieval.autocut`) — and score them with :mod:`core.evaluation.metrics`, counting
every question's retrieved tokens."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np

from core.chunking.chunk import Chunk
from core.embeddings import Embedder
from core.evaluation.budget import within_budget
from core.evaluation.metrics import Range, aggregate, score_alternatives, touches
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
    bm25 = (
        {cid: BM25Index([c.text for c in chunks[cid]]) for cid in corpus_ids}
        if ranking != "vector" else {}
    )

    step(0.8, "reranking, ranking and scoring" if reranker else "ranking and scoring")
    tokens = _TokenCounts(texts)  # shared by the questions (threads with a reranker)

    def one(qi: int) -> QuestionResult:
        q = questions[qi]
        doc_chunks = chunks[q.corpus_id]
        options: dict[str, Any] = {
            "embeddings": vectors.get(q.corpus_id), "bm25_index": bm25.get(q.corpus_id),
            "query_embedding": None if question_vectors is None else question_vectors[qi]}
        refs = [r.span for r in q.references]
        reorder = None if reranker is None else (
            lambda ranked: rerank_hits(reranker, q.question, ranked,
                                       lambda i: doc_chunks[i].text))
        if candidate.merge_adjacent:
            merged = rank_merged(q.question, doc_chunks, ranking, limit=k, reorder=reorder,
                                 autocut=autocut, floor=retrieval.floor, **options)
            retrieved = [_merged_range(n, doc_chunks, neighbours, s, refs)
                         for n, (neighbours, s) in enumerate(merged, 1)]
        else:
            ranked = rank_chunks(q.question, doc_chunks, ranking,
                                 limit=None if budget or reorder else k, **options)
            if reorder is not None:
                ranked = reorder(ranked)[: None if budget else k]
            ranked = cut(ranked, [s for _, s in ranked], autocut, retrieval.floor)
            retrieved = _retrieved(ranked, doc_chunks, refs, budget)
        score, chosen = score_alternatives(
            [(r.start, r.end) for r in retrieved], q.accepted,
            [(c.start, c.end) for c in doc_chunks],
            retrieved_tokens=sum(tokens.of(q.corpus_id, r.start, r.end) for r in retrieved),
        )
        if chosen:  # an alternative counted: the result shows it as the reference
            refs = q.accepted[chosen]
            retrieved = [replace(r, touches_reference=touches((r.start, r.end), refs))
                         for r in retrieved]
        return QuestionResult(row=q.row, question=q.question, corpus_id=q.corpus_id,
                              kind=q.kind, references=refs, retrieved=retrieved, scores=score)

    if reranker is None:
        rows = [one(qi) for qi in range(len(questions))]
    else:  # one request per question: as many at once as the endpoint allows
        with ThreadPoolExecutor(max_workers=reranker.settings.concurrency) as pool:
            rows = list(pool.map(one, range(len(questions))))
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


def _retrieved(ranked: list[tuple[int, float]], chunks: list[Chunk], refs: list[Range],
               budget: int | None) -> list[RetrievedChunk]:
    """The ranked chunks a question retrieves: all of ``ranked`` (already the top k), or those
    that fill the token budget."""
    if budget is None:
        spans = [(i, chunks[i].start, chunks[i].end, False) for i, _ in ranked]
    else:
        picks = within_budget([(chunks[i].start, chunks[i].text) for i, _ in ranked], budget)
        spans = [(ranked[p.index][0], p.start, p.end, p.cut) for p in picks]
    scores = dict(ranked)
    return [RetrievedChunk(n, start, end, round(scores[i], 6), chunks[i].chunk_type,
                           touches((start, end), refs), cut)
            for n, (i, start, end, cut) in enumerate(spans, 1)]


def _merged_range(rank: int, chunks: list[Chunk], neighbours: list[int], score: float,
                  refs: list[Range]) -> RetrievedChunk:
    """Neighbouring chunks (document order) retrieved as one range; a table when one of them is."""
    kind = "table" if any(chunks[i].chunk_type == "table" for i in neighbours) else "text"
    start, end = chunks[neighbours[0]].start, chunks[neighbours[-1]].end
    return RetrievedChunk(rank, start, end, round(score, 6), kind, touches((start, end), refs))

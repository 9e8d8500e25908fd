"""The evaluation loop: each candidate is chunked (:mod:`.chunk_memo`), read
from the result cache (:mod:`.cache_keys`) or scored (:mod:`.scoring`); the questions are
embedded once per embedder and shared by every candidate. A candidate that fails with a typed
error becomes a :class:`CandidateFailure` and the others go on."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from core.chunking.checks import LABELS as CHECK_LABELS
from core.chunking.checks import check_chunks
from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.embeddings import Embedder, EmbedderRef, EmbeddingSettings, resolve
from core.embeddings.settings import load_embedding_settings
from core.errors import ChunkLabError, EmbeddingError
from core.evaluation.questions import Question, QuestionSet
from core.files import write_json
from core.operations.evaluation.cache_keys import cache_dir, result_key
from core.operations.evaluation.candidates import (
    Candidate,
    EvaluationError,
    Retrieval,
)
from core.operations.evaluation.chunk_memo import as_embedded, chunks_for
from core.operations.evaluation.results import (
    CandidateFailure,
    CandidateResult,
    ChunkSpan,
    Evaluation,
)
from core.operations.evaluation.scoring import Step, score_candidate
from core.operations.strategies import embeds
from core.progress import Cancelled, ProgressFn, Tracker
from core.retrieval.front_matter import SetApart, retrievable
from core.retrieval.modes import RANK_MODES, RankMode
from core.retrieval.rerank import resolve_reranker
from core.retrieval.rerank_settings import RerankSettings
from core.store import ChunkStore


def evaluate(
    question_set: QuestionSet,
    documents: dict[str, Document],
    candidates: Sequence[Candidate],
    *,
    ranking: RankMode = "vector",
    retrieval: Retrieval | None = None,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
    store: ChunkStore | None = None,
    embedding: EmbeddingSettings | None = None,
    reranking: RerankSettings | None = None,
) -> Evaluation:
    """Evaluate each candidate on the (validated) question set; results in input order. Each
    question retrieves as ``retrieval`` says (default the top k; or a token budget, or autocut;
    front matter left out unless it is included); a candidate with a retrieval of its own retrieves
    that instead. ``embedding`` and ``reranking`` are the session's endpoint settings (their
    keys).

    An unanswerable question has nothing to retrieve: it is left out.
    Settings that concern the whole run (ranking, k, budget, no question) raise
    :class:`EvaluationError`; a candidate that fails with a typed error is reported in
    :attr:`Evaluation.failures` and the others go on. Progress counts candidates (fractions
    within one) and reaches the end whatever failed; cancelling stops at the next step.
    """
    if ranking not in RANK_MODES:
        raise EvaluationError(
            f"Unknown ranking {ranking!r}; choose one of {', '.join(RANK_MODES)}.")
    retrieval = retrieval or Retrieval()
    questions = [q for q in question_set.questions if q.corpus_id in documents and q.answerable]
    if not questions:
        raise EvaluationError("The question set has no valid question to evaluate.")
    tracker = Tracker(progress, len(candidates), cancel, what="The evaluation")
    run = _Shared(questions, documents, ranking, retrieval, use_cache, store, embedding, reranking)
    outcomes: list[CandidateResult | CandidateFailure] = []
    for index, candidate in enumerate(candidates):

        def step(fraction: float, message: str, index: int = index,
                 label: str = candidate.label) -> None:
            tracker.step(index + fraction, f"{label}: {message}")

        try:
            candidate = _with_set_embedder(candidate, store)
            outcomes.append(run.candidate(candidate, step))
        except Cancelled:
            raise
        except ChunkLabError as err:
            outcomes.append(CandidateFailure.of(candidate, err))
    failed = sum(isinstance(o, CandidateFailure) for o in outcomes)
    tracker.step(len(candidates), f"Done; {failed} of {len(candidates)} configurations failed"
                 if failed else "Done")
    return Evaluation(outcomes, ranking, retrieval.k, retrieval.budget, retrieval.autocut)


class _Shared:
    """What the candidates of one evaluation share: the questions, their documents, the
    ranking, retrieval and endpoint settings, and the question vectors of each embedder
    (embedded once, by the first candidate that needs them)."""

    def __init__(self, questions: list[Question], documents: dict[str, Document],
                 ranking: RankMode, retrieval: Retrieval, use_cache: bool,
                 store: ChunkStore | None, embedding: EmbeddingSettings | None,
                 reranking: RerankSettings | None) -> None:
        self.questions = questions
        self.documents = documents
        self.ranking = ranking
        self.retrieval = retrieval
        self.use_cache = use_cache
        self.store = store
        self.embedding = embedding
        self.reranking = reranking
        self.question_vectors: dict[EmbedderRef, np.ndarray] = {}

    def candidate(self, candidate: Candidate, step: Step) -> CandidateResult:
        """``candidate``'s result; a typed error (a missing chunk set, an endpoint that fails)
        is raised for the caller to report as this configuration's failure."""
        retrieval = candidate.retrieves_with(self.retrieval)
        retrieval.check_merging(candidate.merge_adjacent)
        started = time.perf_counter()
        chunker_embedder = (self.embedder(candidate)
                            if embeds(candidate.strategy, candidate.settings) else None)
        chunked = {cid: as_embedded(items, candidate) for cid, items in
                   _chunk_corpora(self.questions, self.documents, candidate, step,
                                  self.store, chunker_embedder).items()}
        every = [c for items in chunked.values() for c in items]
        set_apart = SetApart.of(every, retrieval.include_front_matter)
        chunks = {cid: [c for c in items if retrievable(c, retrieval.include_front_matter)]
                  for cid, items in chunked.items()}
        key = result_key(self.questions, self.documents, self.ranking, retrieval,
                         candidate.key(), chunks)
        cache_path = cache_dir() / f"{key}.json"
        if self.use_cache and cache_path.exists():
            cached = CandidateResult.from_json(json.loads(cache_path.read_text()))
            cached.integrity = integrity_counts(self.documents, chunked)
            cached.chunk_spans = _spans(chunked)
            cached.set_apart = set_apart
            step(1.0, "cached")
            return cached
        ranks = candidate.ranking or self.ranking
        embedder = self.embedder(candidate) if ranks != "bm25" else None
        if embedder is not None and embedder.ref not in self.question_vectors:
            step(0.2, "embedding the questions")
            self.question_vectors[embedder.ref] = embedder.embed_queries(
                [q.question for q in self.questions])
        texts = {cid: self.documents[cid].text for cid in chunks}
        reranker = (resolve_reranker(candidate.rerank, self.reranking)
                    if candidate.rerank is not None else None)
        embedded = None if embedder is None else (embedder, self.question_vectors[embedder.ref])
        try:
            result = score_candidate(self.questions, chunks, texts, candidate, ranks,
                                     retrieval, embedded, step, reranker)
        finally:
            if reranker is not None:
                reranker.close()
        result.seconds = time.perf_counter() - started
        result.integrity = integrity_counts(self.documents, chunked)
        result.chunk_spans = _spans(chunked)
        result.set_apart = set_apart
        write_json(cache_path, result.cache_json())
        return result

    def embedder(self, candidate: Candidate) -> Embedder:
        """The embedder of ``candidate``. A configuration that names an endpoint (a preset
        saved with one) needs an endpoint configured; a chunk set asks the address it was
        embedded at."""
        ref = candidate.embedder
        if ref.local or candidate.chunk_set:
            return resolve(ref, self.embedding)
        settings = self.embedding or load_embedding_settings()
        if not settings.configured:
            raise EmbeddingError(f"This configuration embeds with {ref.label}, but no embedding "
                                 "endpoint is configured: set one on Settings (Embeddings) or "
                                 "in EMBEDDING_BASE_URL and EMBEDDING_MODEL.")
        return resolve(ref, settings)


def _spans(chunks: dict[str, list[Chunk]]) -> dict[str, list[ChunkSpan]]:
    return {cid: [ChunkSpan.of(c) for c in items] for cid, items in chunks.items()}


def _with_set_embedder(candidate: Candidate, store: ChunkStore | None) -> Candidate:
    """A chunk set's candidate is embedded by the set's own embedder."""
    if not candidate.chunk_set:
        return candidate
    ref = (store or ChunkStore()).info(candidate.chunk_set).embedder_ref
    return candidate if ref == candidate.embedder else replace(candidate, embedder=ref)


def integrity_counts(documents: dict[str, Document],
                     chunks: dict[str, list[Chunk]]) -> dict[str, int]:
    """Places each integrity check found, summed over the corpora that were chunked."""
    totals: dict[str, int] = dict.fromkeys(CHECK_LABELS, 0)
    for corpus_id, items in chunks.items():
        for kind, count in check_chunks(documents[corpus_id], items).counts().items():
            totals[kind] += count
    return totals


def _chunk_corpora(
    questions: list[Question], documents: dict[str, Document], candidate: Candidate,
    step: Step, store: ChunkStore | None, embedder: Embedder | None,
) -> dict[str, list[Chunk]]:
    """The chunks of every document the questions search: each question's own (which must
    give chunks) and each one an alternative names that is loaded (which a chunk set may lack:
    its questions then search their own document)."""
    own = {q.corpus_id for q in questions}
    corpus_ids = sorted(own | {cid for q in questions for cid in q.corpus_ids
                               if cid in documents})
    chunks: dict[str, list[Chunk]] = {}
    for n, corpus_id in enumerate(corpus_ids):
        step(0.2 * n / len(corpus_ids), f"chunking {corpus_id}")
        found = chunks_for(documents[corpus_id], candidate, store, embedder)
        if found:
            chunks[corpus_id] = found
        elif corpus_id not in own:
            continue
        elif candidate.chunk_set:
            raise EvaluationError(
                f"The chunk set “{candidate.chunk_set}” holds no chunk of {corpus_id}: add "
                "that document to the set, or evaluate the set on questions about its own "
                "documents.")
        else:
            raise EvaluationError(f"{candidate.label} produced no chunks for {corpus_id}.")
    return chunks

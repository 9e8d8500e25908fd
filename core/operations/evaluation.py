"""Score chunkings on a question set, side by side.

For each candidate (a strategy with settings, or a stored chunk set): chunk every document of the
set (memoised by document text and candidate), embed the views of all chunks in one batch (the
embeddings module caches vectors by text hash; a chunk scores the best of its views), embed all
questions in one batch (once per run, shared by every candidate), rank the chunks of the
question's own document in memory (vector, BM25 or hybrid), keep the top ``k`` — or, with a
``budget``, the best chunks until that many tokens, the last one cut to fit
(:mod:`core.evaluation.budget`), or with ``autocut`` the top ``k`` up to the first large drop
in their scores (:mod:`core.retrieval.autocut`) — and score them with
:mod:`core.evaluation.metrics`. Every question's retrieved tokens are counted, so
configurations are compared at a known cost.

Contextual retrieval is a dimension of a candidate: with ``contextual=False`` the same chunks
are embedded without the LLM's contextual prefixes, so the two can be compared. So are the
embedder (MiniLM, or the user's endpoint: the same chunking under two embedders is two
candidates, compared pair by pair like any others; a chunk set is evaluated with its own) and
an optional reranker that reorders the best hits before the cut. Every result names its
embedder: model, where it ran, dimension. A candidate may bring its own ranking and its own
k, budget or autocut (a preset saved from a tune): it retrieves that way whatever the run's.

A candidate's result is cached on disk under ``data_dir()/evaluation`` by a content hash of
everything that decides it (questions and references, document texts, chunks, ranking, k or
budget, embedder, metrics version), so re-running an unchanged candidate is instant.

Each candidate stands on its own: one that fails with a typed error (a chunk set without one of
the documents, an embedding endpoint down…) becomes a :class:`CandidateFailure` with its reason,
and the others are still evaluated and kept (:class:`Evaluation`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, overload

import numpy as np

from core.chunking.checks import LABELS as CHECK_LABELS
from core.chunking.checks import check_chunks
from core.chunking.chunk import Chunk
from core.config import data_dir
from core.documents.model import Document
from core.embeddings import BUILTIN, Embedder, EmbedderRef, EmbeddingSettings, resolve
from core.embeddings.settings import load_embedding_settings
from core.errors import ChunkLabError, EmbeddingError
from core.evaluation.budget import within_budget
from core.evaluation.metrics import (
    Aggregate,
    QuestionScore,
    Range,
    aggregate,
    score_question,
    touches,
)
from core.evaluation.questions import Question, QuestionSet
from core.files import write_json
from core.operations.strategies import chunk
from core.progress import Cancelled, ProgressFn, Tracker
from core.retrieval.autocut import cut
from core.retrieval.bm25 import BM25Index
from core.retrieval.packs import MERGE_DEPTH_FACTOR
from core.retrieval.ranking import (
    MERGED_FUSION_K,
    RANK_MODES,
    ChunkVectors,
    RankMode,
    rank_chunks,
    rank_merged,
)
from core.retrieval.rerank import (
    Reranker,
    RerankRef,
    RerankSettings,
    rerank_hits,
    resolve_reranker,
)
from core.store import ChunkStore
from core.store.views import EMBEDDING_INPUT_VERSION, embedding_views
from core.tokens import count_tokens

DEFAULT_K = 5
RESULTS_VERSION = "5"  # bump when metrics or the result layout change: old cache entries go stale
_CHUNK_MEMO_SIZE = 256  # documents × configurations: a tune's trials share chunkings


class EvaluationError(ChunkLabError):
    """An evaluation that cannot run: no questions, unknown ranking, bad k, unknown chunk set."""


@dataclass(frozen=True)
class Retrieval:
    """How much each question retrieves: the top ``k``; with ``budget`` (tokens), ranked chunks
    until that much text instead; with ``autocut`` (jumps), the top ``k`` up to the first large
    drop in their scores, keeping at least ``floor``. Values no evaluation can run raise
    :class:`EvaluationError`."""

    k: int = DEFAULT_K
    budget: int | None = None
    autocut: int | None = None
    floor: int = 0  # with autocut: hits kept whatever the scores

    def __post_init__(self) -> None:
        if self.k < 1:
            raise EvaluationError(f"k must be at least 1, not {self.k}.")
        if self.budget is not None and self.budget < 1:
            raise EvaluationError(f"The token budget must be at least 1, not {self.budget}.")
        if self.autocut is not None and (self.autocut < 1 or self.budget is not None):
            raise EvaluationError("Autocut cuts the top k at a jump in the scores: give it at "
                                  "least 1 jump, and no token budget.")
        if self.floor and (self.autocut is None or not 0 < self.floor <= self.k):
            raise EvaluationError("A floor is the fewest hits autocut keeps: give it with "
                                  f"autocut, from 1 to k ({self.k}).")

    @property
    def label(self) -> str:
        """``top-5``, ``1,000-token budget`` or ``autocut of top-10`` (``, at least 3``)."""
        return retrieval_label(self.k, self.budget, self.autocut, self.floor)

    def check_merging(self, merge_adjacent: bool) -> None:
        """Small-to-big retrieval (``merge_adjacent``) is measured at top k, never by budget."""
        if merge_adjacent and self.budget is not None:
            raise EvaluationError("Small-to-big retrieval is measured at top k: evaluate it "
                                  "without a token budget.")

    def as_dict(self) -> dict[str, int | None]:
        return asdict(self)


@dataclass(frozen=True)
class Candidate:
    """A chunking to evaluate: a strategy with settings, or a stored chunk set (``chunk_set``);
    ``contextual=False`` embeds its chunks without their LLM contextual prefixes; ``embedder``
    embeds chunks and questions (a chunk set's own replaces it; ``own_embedder``: the
    configuration names it, so the embedders chosen for a run do not replace it); ``rerank``
    reorders the best hits before the cut; ``retrieval``, when given, is how much it retrieves
    instead of the run's k, budget or autocut."""

    label: str
    strategy: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    chunk_set: str | None = None
    contextual: bool = True
    ranking: RankMode | None = None  # None: the evaluation's ranking
    merge_adjacent: bool = False  # small-to-big: neighbouring hits come back as one range
    embedder: EmbedderRef = BUILTIN
    rerank: RerankRef | None = None
    retrieval: Retrieval | None = None  # None: the evaluation's
    own_embedder: bool = False

    def chunking_key(self) -> str:
        """What decides the chunks (not how they are embedded)."""
        if self.chunk_set:
            return json.dumps({"chunk_set": self.chunk_set})
        return json.dumps({"strategy": self.strategy, "settings": self.settings}, sort_keys=True)

    def key(self) -> str:
        own: dict[str, Any] = {"ranking": self.ranking} if self.ranking else {}
        if self.merge_adjacent:  # what decides the merged ranking, so a change re-evaluates
            own["merge_adjacent"] = [MERGE_DEPTH_FACTOR, MERGED_FUSION_K]
        if not self.embedder.builtin:
            own["embedder"] = self.embedder.key()
        if self.rerank is not None:
            own["rerank"] = self.rerank.key()
        if self.retrieval is not None:
            own["retrieval"] = self.retrieval.as_dict()
        return (self.chunking_key() + ("" if self.contextual else "|no prefixes")
                + (json.dumps(own, sort_keys=True) if own else ""))

    def ranks_with(self, ranking: RankMode) -> str:
        """How it retrieves when the evaluation ranks by ``ranking``: "vector", or its own
        "hybrid, neighbours merged"."""
        return (self.ranking or ranking) + (", neighbours merged" if self.merge_adjacent else "")

    def retrieves_with(self, retrieval: Retrieval) -> Retrieval:
        """How much it retrieves when the evaluation retrieves ``retrieval``: its own, if any."""
        return self.retrieval or retrieval

    def without_prefixes(self) -> Candidate:
        return replace(self, label=f"{self.label} (no prefixes)", settings=dict(self.settings),
                       contextual=False)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "strategy": self.strategy, "settings": self.settings,
                "chunk_set": self.chunk_set, "contextual": self.contextual,
                "ranking": self.ranking, "merge_adjacent": self.merge_adjacent,
                "embedder": self.embedder.model_dump(), "own_embedder": self.own_embedder,
                "rerank": None if self.rerank is None else self.rerank.model_dump(),
                "retrieval": None if self.retrieval is None else self.retrieval.as_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Candidate:
        rerank, retrieval = data.get("rerank"), data.get("retrieval")
        return cls(**{**data, "embedder": EmbedderRef(**(data.get("embedder") or {})),
                      "rerank": RerankRef(**rerank) if rerank else None,
                      "retrieval": Retrieval(**retrieval) if retrieval else None})


@dataclass(frozen=True)
class RetrievedChunk:
    rank: int  # 1-based
    start: int
    end: int
    score: float
    chunk_type: str
    touches_reference: bool
    cut: bool = False  # cut short to fit the token budget


@dataclass(frozen=True)
class QuestionResult:
    row: int
    question: str
    corpus_id: str
    kind: str
    references: list[Range]
    retrieved: list[RetrievedChunk]
    scores: QuestionScore

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QuestionResult:
        return cls(**{**data, "references": [tuple(r) for r in data["references"]],
                      "retrieved": [RetrievedChunk(**r) for r in data["retrieved"]],
                      "scores": QuestionScore(**data["scores"])})


@dataclass
class CandidateResult:
    candidate: Candidate
    ranking: RankMode
    k: int
    metrics: Aggregate
    questions: list[QuestionResult]
    chunk_counts: dict[str, int]  # corpus_id -> number of chunks
    seconds: float  # time the evaluation took when it was computed
    cached: bool = False
    integrity: dict[str, int] = field(default_factory=dict)  # check kind -> places, all corpora
    budget: int | None = None  # tokens retrieved per question instead of the top k
    autocut: int | None = None  # jumps: the top k cut at the first large drop in score
    floor: int = 0  # hits autocut keeps whatever the scores
    dimension: int = 0  # of the embedder's vectors (0: none were needed, BM25 ranking)

    def embedder_json(self) -> dict[str, Any]:
        """The embedder this result was measured with: name, where it ran, dimension."""
        ref = self.candidate.embedder
        return {"name": ref.model, "where": ref.where, "dimension": self.dimension,
                "label": ref.label}

    @property
    def retrieval(self) -> str:
        """``top-5``, ``1,000-token budget`` or ``autocut of top-10``."""
        return retrieval_label(self.k, self.budget, self.autocut, self.floor)

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.candidate.as_dict(),
            "embedder": self.embedder_json(),
            "ranking": self.ranking,
            "k": self.k,
            "budget": self.budget,
            "autocut": self.autocut,
            "floor": self.floor,
            "values": "fractions (0..1)",
            "metrics": self.metrics.to_json(),
            "chunk_counts": self.chunk_counts,
            "seconds": round(self.seconds, 3),
            "integrity": self.integrity,
            "questions": [q.to_json() for q in self.questions],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CandidateResult:
        return cls(Candidate.from_dict(data["config"]), data["ranking"], data["k"],
                   Aggregate.from_json(data["metrics"]),
                   [QuestionResult.from_json(q) for q in data["questions"]],
                   data["chunk_counts"], data["seconds"], cached=True,
                   integrity=data.get("integrity", {}), budget=data.get("budget"),
                   autocut=data.get("autocut"), floor=data.get("floor", 0),
                   dimension=(data.get("embedder") or {}).get("dimension", 0))


@dataclass(frozen=True)
class CandidateFailure:
    """A configuration that could not be evaluated, and why (the typed error's sentence)."""

    candidate: Candidate
    reason: str
    error: str  # the error's kind: its class name, e.g. "EvaluationError"

    @classmethod
    def of(cls, candidate: Candidate, err: ChunkLabError) -> CandidateFailure:
        return cls(candidate, str(err), type(err).__name__)

    def to_json(self) -> dict[str, Any]:
        ref = self.candidate.embedder
        return {"config": self.candidate.as_dict(), "status": "failed",
                "embedder": {"name": ref.model, "where": ref.where, "label": ref.label},
                "error": self.error, "reason": self.reason}


class Evaluation(Sequence[CandidateResult]):
    """What one run gives: the results of the configurations that ran (a sequence, input
    order) and the failures of those that could not (:attr:`failures`)."""

    def __init__(self, outcomes: Sequence[CandidateResult | CandidateFailure], ranking: RankMode,
                 k: int, budget: int | None = None, autocut: int | None = None) -> None:
        self.outcomes = list(outcomes)  # every configuration, in input order
        self.results = [o for o in self.outcomes if isinstance(o, CandidateResult)]
        self.failures = [o for o in self.outcomes if isinstance(o, CandidateFailure)]
        self.ranking = ranking
        self.k = k
        self.budget = budget
        self.autocut = autocut

    @property
    def retrieval(self) -> str:
        """How much the run retrieves, as :attr:`CandidateResult.retrieval`."""
        return retrieval_label(self.k, self.budget, self.autocut)

    def retrieval_of(self, outcome: CandidateResult | CandidateFailure) -> str:
        """How much ``outcome``'s configuration retrieved (or was to): its own, else the run's."""
        if isinstance(outcome, CandidateResult):
            return outcome.retrieval
        return outcome.candidate.retrieves_with(
            Retrieval(self.k, self.budget, self.autocut)).label

    @overload
    def __getitem__(self, index: int) -> CandidateResult: ...
    @overload
    def __getitem__(self, index: slice) -> list[CandidateResult]: ...
    def __getitem__(self, index: int | slice) -> CandidateResult | list[CandidateResult]:
        return self.results[index]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[CandidateResult]:
        return iter(self.results)

    def require_all(self) -> list[CandidateResult]:
        """Every configuration's result, or :class:`EvaluationError` naming the first that
        failed (for callers that need them all, such as a benchmark)."""
        if self.failures:
            first = self.failures[0]
            raise EvaluationError(f"{first.candidate.label}: {first.reason}")
        return self.results


def retrieval_label(k: int, budget: int | None = None, autocut: int | None = None,
                    floor: int = 0) -> str:
    """How many chunks a question retrieves, in words: ``top-5``, ``1,000-token budget``,
    ``autocut of top-10`` (``autocut (2 jumps) of top-10`` past the first jump, ``…, at least
    3`` with a floor)."""
    if budget is not None:
        return f"{budget:,}-token budget"
    if autocut is not None:
        jumps = "" if autocut == 1 else f" ({autocut} jumps)"
        return f"autocut{jumps} of top-{k}" + (f", at least {floor}" if floor else "")
    return f"top-{k}"


_chunk_memo: OrderedDict[tuple[str, str], list[Chunk]] = OrderedDict()


def chunks_for(document: Document, candidate: Candidate,
               store: ChunkStore | None = None) -> list[Chunk]:
    """The chunks of ``document`` under ``candidate``, memoised by document text and key."""
    memo_key = (_text_hash(document), candidate.chunking_key())
    if memo_key in _chunk_memo:
        _chunk_memo.move_to_end(memo_key)
        return _chunk_memo[memo_key]
    if candidate.chunk_set:
        chunks = (store or ChunkStore()).get_chunks(candidate.chunk_set, doc_id=document.doc_id)
    else:
        chunks = chunk(document, candidate.strategy, candidate.settings)
    _chunk_memo[memo_key] = chunks
    if len(_chunk_memo) > _CHUNK_MEMO_SIZE:
        _chunk_memo.popitem(last=False)
    return chunks



def chunks_memoised(document: Document, candidate: Candidate) -> bool:
    """Whether :func:`chunks_for` holds this chunking of ``document`` already."""
    return (_text_hash(document), candidate.chunking_key()) in _chunk_memo


def evaluate(
    question_set: QuestionSet,
    documents: dict[str, Document],
    candidates: Sequence[Candidate],
    *,
    ranking: RankMode = "vector",
    k: int = DEFAULT_K,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
    store: ChunkStore | None = None,
    budget: int | None = None,
    autocut: int | None = None,
    embedding: EmbeddingSettings | None = None,
    reranking: RerankSettings | None = None,
) -> Evaluation:
    """Evaluate each candidate on the (validated) question set; results in input order. With
    ``budget`` (tokens), each question retrieves that much text instead of the top ``k``; with
    ``autocut`` (jumps), the top ``k`` up to the first large drop in their scores; a candidate
    with a retrieval of its own retrieves that instead. ``embedding`` and ``reranking`` are the
    session's endpoint settings (their keys).

    Settings that concern the whole run (ranking, k, budget, no question) raise
    :class:`EvaluationError`; a candidate that fails with a typed error is reported in
    :attr:`Evaluation.failures` and the others go on. Progress counts candidates (fractions
    within one) and reaches the end whatever failed; cancelling stops at the next step.
    """
    if ranking not in RANK_MODES:
        raise EvaluationError(
            f"Unknown ranking {ranking!r}; choose one of {', '.join(RANK_MODES)}.")
    retrieval = Retrieval(k, budget, autocut)
    questions = [q for q in question_set.questions if q.corpus_id in documents]
    if not questions:
        raise EvaluationError("The question set has no valid question to evaluate.")
    tracker = Tracker(progress, len(candidates), cancel, what="The evaluation")
    run = _Run(questions, documents, ranking, retrieval, use_cache, store, embedding, reranking)
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
    return Evaluation(outcomes, ranking, k, budget, autocut)


class _Run:
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

    def base_key(self, retrieval: Retrieval) -> str:
        """What decides every result retrieving ``retrieval``, candidates aside."""
        return (_questions_key(self.questions, self.documents, self.ranking, retrieval.k)
                + f"|budget={retrieval.budget}|autocut={retrieval.autocut}"
                + (f"|floor={retrieval.floor}" if retrieval.floor else ""))

    def candidate(self, candidate: Candidate, step: Step) -> CandidateResult:
        """``candidate``'s result; a typed error (a missing chunk set, an endpoint that fails)
        is raised for the caller to report as this configuration's failure."""
        retrieval = candidate.retrieves_with(self.retrieval)
        retrieval.check_merging(candidate.merge_adjacent)
        started = time.perf_counter()
        chunks = _chunk_corpora(self.questions, self.documents, candidate, step, self.store)
        key = _hash(self.base_key(retrieval) + candidate.key() + _chunks_key(chunks))
        cache_path = _cache_dir() / f"{key}.json"
        if self.use_cache and cache_path.exists():
            cached = CandidateResult.from_json(json.loads(cache_path.read_text()))
            cached.integrity = integrity_counts(self.documents, chunks)
            step(1.0, "cached")
            return cached
        ranks = candidate.ranking or self.ranking
        embedder = self.embedder(candidate) if ranks != "bm25" else None
        if embedder is not None and embedder.ref not in self.question_vectors:
            step(0.2, "embedding the questions")
            self.question_vectors[embedder.ref] = embedder.embed_queries(
                [q.question for q in self.questions])
        if not candidate.contextual:
            chunks = {cid: [without_prefix(c) for c in items] for cid, items in chunks.items()}
        texts = {cid: self.documents[cid].text for cid in chunks}
        reranker = (resolve_reranker(candidate.rerank, self.reranking)
                    if candidate.rerank is not None else None)
        embedded = None if embedder is None else (embedder, self.question_vectors[embedder.ref])
        try:
            result = _score(self.questions, chunks, texts, candidate, ranks, retrieval,
                            embedded, step, reranker)
        finally:
            if reranker is not None:
                reranker.close()
        result.seconds = time.perf_counter() - started
        result.integrity = integrity_counts(self.documents, chunks)
        write_json(cache_path, result.to_json())
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


Step = Callable[[float, str], None]


def _with_set_embedder(candidate: Candidate, store: ChunkStore | None) -> Candidate:
    """A chunk set's candidate is embedded by the set's own embedder."""
    if not candidate.chunk_set:
        return candidate
    ref = (store or ChunkStore()).info(candidate.chunk_set).embedder_ref
    return candidate if ref == candidate.embedder else replace(candidate, embedder=ref)


def without_prefix(chunk: Chunk) -> Chunk:
    """``chunk`` as embedded without its LLM contextual prefix."""
    if chunk.llm is None or not chunk.llm.context_prefix:
        return chunk
    return chunk.model_copy(update={"llm": chunk.llm.model_copy(update={"context_prefix": None})})


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
    step: Step, store: ChunkStore | None,
) -> dict[str, list[Chunk]]:
    corpus_ids = sorted({q.corpus_id for q in questions})
    chunks: dict[str, list[Chunk]] = {}
    for n, corpus_id in enumerate(corpus_ids):
        step(0.2 * n / len(corpus_ids), f"chunking {corpus_id}")
        chunks[corpus_id] = chunks_for(documents[corpus_id], candidate, store)
        if not chunks[corpus_id] and candidate.chunk_set:
            raise EvaluationError(
                f"The chunk set “{candidate.chunk_set}” holds no chunk of {corpus_id}: add "
                "that document to the set, or evaluate the set on questions about its own "
                "documents.")
        if not chunks[corpus_id]:
            raise EvaluationError(f"{candidate.label} produced no chunks for {corpus_id}.")
    return chunks


def _score(
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
            runs = rank_merged(q.question, doc_chunks, ranking, limit=k, reorder=reorder,
                               autocut=autocut, floor=retrieval.floor, **options)
            retrieved = [_run(n, doc_chunks, run, s, refs) for n, (run, s) in enumerate(runs, 1)]
        else:
            ranked = rank_chunks(q.question, doc_chunks, ranking,
                                 limit=None if budget or reorder else k, **options)
            if reorder is not None:
                ranked = reorder(ranked)[: None if budget else k]
            ranked = cut(ranked, [s for _, s in ranked], autocut, retrieval.floor)
            retrieved = _retrieved(ranked, doc_chunks, refs, budget)
        score = score_question(
            [(r.start, r.end) for r in retrieved], refs, [(c.start, c.end) for c in doc_chunks],
            retrieved_tokens=sum(tokens.of(q.corpus_id, r.start, r.end) for r in retrieved),
        )
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


def _run(rank: int, chunks: list[Chunk], run: list[int], score: float,
         refs: list[Range]) -> RetrievedChunk:
    """Neighbouring chunks (document order) retrieved as one range; a table when one of them is."""
    kind = "table" if any(chunks[i].chunk_type == "table" for i in run) else "text"
    start, end = chunks[run[0]].start, chunks[run[-1]].end
    return RetrievedChunk(rank, start, end, round(score, 6), kind, touches((start, end), refs))


def _questions_key(
    questions: list[Question], documents: dict[str, Document], ranking: str, k: int
) -> str:
    payload = {
        "version": RESULTS_VERSION,
        "embedding_input": EMBEDDING_INPUT_VERSION,
        "ranking": ranking,
        "k": k,
        "questions": [
            [q.row, q.question, q.corpus_id, q.kind, [r.span for r in q.references]]
            for q in questions
        ],
        "documents": {cid: _text_hash(doc) for cid, doc in sorted(documents.items())
                      if any(q.corpus_id == cid for q in questions)},
    }
    return json.dumps(payload, sort_keys=True)


def _chunks_key(chunks: dict[str, list[Chunk]]) -> str:
    """Hash of what retrieval sees of each chunk: its span and its text."""
    digest = hashlib.sha256()
    for corpus_id, items in sorted(chunks.items()):
        digest.update(corpus_id.encode())
        for c in items:
            digest.update(f"|{c.start}:{c.end}:{c.chunk_type}:".encode() + c.text.encode())
    return digest.hexdigest()


def _text_hash(document: Document) -> str:
    return _hash(document.text)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _cache_dir() -> Path:
    return data_dir() / "evaluation"

"""Score chunk configurations on a question set, side by side.

For each configuration: chunk every document of the set (memoised by document text + config
key), embed the views of all chunks in one batch (the embeddings module caches vectors by text
hash; a chunk scores the best of its views), embed all questions in one batch (once per run,
shared by every configuration), rank the chunks of the question's own document in memory
(vector, BM25 or hybrid), keep the top ``k`` and score them with :mod:`core.evaluation.metrics`.

A configuration's result is cached on disk under ``data_dir()/evaluation`` by a content hash of
everything that decides it (questions and references, document texts, configuration, rank mode,
k, embedder, metrics version), so re-running an unchanged configuration is instant.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from core.chunking.base import Chunk
from core.config import data_dir
from core.documents.model import Document
from core.embedding_input import EMBEDDING_INPUT_VERSION, embedding_views
from core.errors import ChunkLabError
from core.evaluation.metrics import Range, aggregate, score_question, touches
from core.evaluation.questions import Question, QuestionSet
from core.retrieval.bm25 import BM25Index
from core.retrieval.ranking import RANK_MODES, ChunkVectors
from core.retrieval.ranking import rank as rank_chunks

DEFAULT_K = 5
EMBEDDER = "all-MiniLM-L6-v2-int8"
RESULTS_VERSION = "1"  # bump when metrics or the result layout change: old cache entries go stale
_CHUNK_MEMO_SIZE = 64

Progress = Callable[[float, str], None]


class EvaluationError(ChunkLabError):
    """An evaluation that cannot run: no questions, unknown rank mode, bad k, unknown chunk set."""


@dataclass(frozen=True)
class ChunkConfig:
    """A chunking to evaluate: a strategy with settings, or a stored chunk set (``chunk_set``)."""

    label: str
    strategy: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    chunk_set: str | None = None

    def key(self) -> str:
        if self.chunk_set:
            return json.dumps({"chunk_set": self.chunk_set})
        return json.dumps({"strategy": self.strategy, "settings": self.settings}, sort_keys=True)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "strategy": self.strategy, "settings": self.settings,
                "chunk_set": self.chunk_set}


def preset_config(name: str) -> ChunkConfig:
    """The configuration of a chunking preset (``core.chunking.registry.PRESETS``)."""
    from core.chunking.registry import PRESETS

    if name not in PRESETS:
        raise EvaluationError(f"Unknown preset {name!r}; choose one of {', '.join(PRESETS)}.")
    strategy, settings = PRESETS[name]
    return ChunkConfig(label=name, strategy=strategy, settings=dict(settings))


@dataclass(frozen=True)
class RetrievedChunk:
    rank: int  # 1-based
    start: int
    end: int
    score: float
    chunk_type: str
    touches_reference: bool


@dataclass(frozen=True)
class QuestionResult:
    row: int
    question: str
    corpus_id: str
    kind: str
    references: list[Range]
    retrieved: list[RetrievedChunk]
    scores: dict[str, Any]


@dataclass
class ConfigResult:
    config: ChunkConfig
    rank: str
    k: int
    metrics: dict[str, Any]  # metrics.aggregate(): overall, per_corpus, per_kind, table accuracy
    questions: list[QuestionResult]
    chunk_counts: dict[str, int]  # corpus_id -> number of chunks
    seconds: float  # time the evaluation took when it was computed
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config.as_dict(),
            "rank": self.rank,
            "k": self.k,
            "values": "fractions (0..1)",
            "metrics": self.metrics,
            "chunk_counts": self.chunk_counts,
            "seconds": round(self.seconds, 3),
            "questions": [
                {**q.__dict__, "retrieved": [r.__dict__ for r in q.retrieved]}
                for q in self.questions
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ConfigResult:
        questions = [
            QuestionResult(**{**q, "references": [tuple(r) for r in q["references"]],
                              "retrieved": [RetrievedChunk(**r) for r in q["retrieved"]]})
            for q in data["questions"]
        ]
        return cls(ChunkConfig(**data["config"]), data["rank"], data["k"], data["metrics"],
                   questions, data["chunk_counts"], data["seconds"], cached=True)


_chunk_memo: OrderedDict[tuple[str, str], list[Chunk]] = OrderedDict()


def chunks_for(document: Document, config: ChunkConfig) -> list[Chunk]:
    """The chunks of ``document`` under ``config``, memoised by document text and config key."""
    memo_key = (_text_hash(document), config.key())
    if memo_key in _chunk_memo:
        _chunk_memo.move_to_end(memo_key)
        return _chunk_memo[memo_key]
    if config.chunk_set:
        from core.store import ChunkStore

        chunks = ChunkStore().get_chunks(config.chunk_set, doc_id=document.doc_id)
    else:
        from core.chunking.registry import chunk_document

        chunks = chunk_document(document, config.strategy, **config.settings)
    _chunk_memo[memo_key] = chunks
    if len(_chunk_memo) > _CHUNK_MEMO_SIZE:
        _chunk_memo.popitem(last=False)
    return chunks


def evaluate(
    question_set: QuestionSet,
    documents: dict[str, Document],
    configs: Sequence[ChunkConfig],
    *,
    rank: str = "vector",
    k: int = DEFAULT_K,
    progress: Progress | None = None,
    use_cache: bool = True,
) -> list[ConfigResult]:
    """Evaluate each configuration on the (validated) question set; results in input order."""
    if rank not in RANK_MODES:
        raise EvaluationError(f"Unknown rank mode {rank!r}; choose one of {', '.join(RANK_MODES)}.")
    if k < 1:
        raise EvaluationError(f"k must be at least 1, not {k}.")
    questions = [q for q in question_set.questions if q.corpus_id in documents]
    if not questions:
        raise EvaluationError("The question set has no valid question to evaluate.")
    report = progress or (lambda fraction, message: None)
    base_key = _questions_key(questions, documents, rank, k)
    question_vectors: np.ndarray | None = None
    results: list[ConfigResult] = []
    for index, config in enumerate(configs):
        step = index / len(configs)

        def sub(fraction: float, message: str, step: float = step, label: str = config.label):
            report(step + fraction / len(configs), f"{label}: {message}")

        started = time.perf_counter()
        chunks = _chunk_corpora(questions, documents, config, sub)
        cache_path = _cache_dir() / f"{_hash(base_key + config.key() + _chunks_key(chunks))}.json"
        if use_cache and cache_path.exists():
            results.append(ConfigResult.from_json(json.loads(cache_path.read_text())))
            sub(1.0, "cached")
            continue
        if rank != "bm25" and question_vectors is None:
            sub(0.2, "embedding the questions")
            question_vectors = _embed([q.question for q in questions])
        result = _score_config(questions, chunks, config, rank, k, question_vectors, sub)
        result.seconds = time.perf_counter() - started
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps(result.to_json()))
        results.append(result)
    report(1.0, "Done")
    return results


def _chunk_corpora(
    questions: list[Question], documents: dict[str, Document], config: ChunkConfig,
    report: Progress,
) -> dict[str, list[Chunk]]:
    corpus_ids = sorted({q.corpus_id for q in questions})
    chunks: dict[str, list[Chunk]] = {}
    for n, corpus_id in enumerate(corpus_ids):
        report(0.2 * n / len(corpus_ids), f"chunking {corpus_id}")
        chunks[corpus_id] = chunks_for(documents[corpus_id], config)
        if not chunks[corpus_id]:
            raise EvaluationError(f"{config.label} produced no chunks for {corpus_id}.")
    return chunks


def _score_config(
    questions: list[Question],
    chunks: dict[str, list[Chunk]],
    config: ChunkConfig,
    rank: str,
    k: int,
    question_vectors: np.ndarray | None,
    report: Progress,
) -> ConfigResult:
    corpus_ids = sorted(chunks)
    vectors: dict[str, ChunkVectors] = {}
    if rank != "bm25":
        report(0.3, "embedding chunks")
        views = {cid: [embedding_views(c) for c in chunks[cid]] for cid in corpus_ids}
        matrix = _embed([text for cid in corpus_ids for view in views[cid] for text in view])
        offset = 0
        for cid in corpus_ids:
            rows = sum(len(view) for view in views[cid])
            vectors[cid] = ChunkVectors.from_views(views[cid], matrix[offset : offset + rows])
            offset += rows
    bm25 = (
        {cid: BM25Index([c.text for c in chunks[cid]]) for cid in corpus_ids}
        if rank != "vector" else {}
    )

    report(0.8, "ranking and scoring")
    scored = []
    rows: list[QuestionResult] = []
    for qi, q in enumerate(questions):
        doc_chunks = chunks[q.corpus_id]
        ranking = rank_chunks(
            q.question, doc_chunks, rank, embeddings=vectors.get(q.corpus_id), limit=k,
            query_embedding=None if question_vectors is None else question_vectors[qi],
            bm25_index=bm25.get(q.corpus_id),
        )
        refs = [r.span for r in q.references]
        retrieved = [doc_chunks[i] for i, _ in ranking]
        score = score_question(
            [(c.start, c.end) for c in retrieved], refs, [(c.start, c.end) for c in doc_chunks]
        )
        scored.append((q.corpus_id, q.kind, score))
        rows.append(QuestionResult(
            row=q.row, question=q.question, corpus_id=q.corpus_id, kind=q.kind, references=refs,
            retrieved=[
                RetrievedChunk(n, c.start, c.end, round(s, 6), c.chunk_type,
                               touches((c.start, c.end), refs))
                for n, (c, (_, s)) in enumerate(zip(retrieved, ranking, strict=True), 1)
            ],
            scores=score.as_dict(),
        ))
    return ConfigResult(config, rank, k, aggregate(scored), rows,
                        {cid: len(chunks[cid]) for cid in corpus_ids}, seconds=0.0)


def _embed(texts: list[str]) -> np.ndarray:
    from core.embeddings import embed

    return np.asarray(embed(texts), dtype=np.float32)


def _questions_key(
    questions: list[Question], documents: dict[str, Document], rank: str, k: int
) -> str:
    payload = {
        "version": RESULTS_VERSION,
        "embedder": EMBEDDER,
        "embedding_input": EMBEDDING_INPUT_VERSION,
        "rank": rank,
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

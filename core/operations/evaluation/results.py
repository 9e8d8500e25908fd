"""What an evaluation gives: per question what was retrieved and its scores
(:class:`QuestionResult`), per configuration its figures (:class:`CandidateResult`) or why it
could not be evaluated (:class:`CandidateFailure`), and the whole run (:class:`Evaluation`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, overload

from core.chunking.chunk import Chunk
from core.errors import ChunkLabError
from core.evaluation.metrics import Aggregate, QuestionScore, Range
from core.operations.evaluation.candidates import (
    Candidate,
    EvaluationError,
    Retrieval,
    retrieval_label,
)
from core.retrieval.front_matter import SetApart
from core.retrieval.modes import RankMode
from core.store.views import embedding_text


@dataclass(frozen=True)
class RetrievedChunk:
    rank: int  # 1-based
    start: int
    end: int
    score: float
    chunk_type: str
    touches_reference: bool
    cut: bool = False  # cut short to fit the token budget
    corpus_id: str = ""  # its document when not the question's own (an alternative's document)


@dataclass(frozen=True)
class ChunkSpan:
    """One chunk of an evaluated configuration, as much as a map of it needs: its place in
    its document, its kind and headings, and the text its first vector was computed from when
    that is not the span's own text (a table's digest, a contextual prefix in front)."""

    id: str
    doc_id: str
    start: int
    end: int
    chunk_type: str
    heading_path: tuple[str, ...] = ()
    embedded: str | None = None  # None: the document's text[start:end]

    @classmethod
    def of(cls, chunk: Chunk) -> ChunkSpan:
        """``chunk`` as it was embedded (its contextual prefix already left out or not)."""
        text = embedding_text(chunk)
        return cls(chunk.id, chunk.doc_id, chunk.start, chunk.end, chunk.chunk_type,
                   tuple(chunk.heading_path), None if text == chunk.text else text)

    def embedded_text(self, document_text: str) -> str:
        """The text its first vector was computed from, ``document_text`` being its document's."""
        return document_text[self.start : self.end] if self.embedded is None else self.embedded

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChunkSpan:
        return cls(**{**data, "heading_path": tuple(data.get("heading_path", ()))})


@dataclass(frozen=True)
class QuestionResult:
    row: int
    question: str
    corpus_id: str
    kind: str
    references: list[Range]
    retrieved: list[RetrievedChunk]
    scores: QuestionScore
    # the document of each of ``references`` when one lies outside the question's own (an
    # alternative in another document counted); empty when they all lie in it
    reference_corpus_ids: list[str] = field(default_factory=list)

    def corpus_of(self, hit: RetrievedChunk) -> str:
        """The document ``hit`` was retrieved from."""
        return hit.corpus_id or self.corpus_id

    @property
    def reference_documents(self) -> list[str]:
        """The document of each of ``references``."""
        return self.reference_corpus_ids or [self.corpus_id] * len(self.references)

    def references_in(self, corpus_id: str) -> list[Range]:
        """The references lying in the document ``corpus_id``."""
        return [span for span, cid in zip(self.references, self.reference_documents,
                                          strict=True) if cid == corpus_id]

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
    # corpus_id -> its chunks in document order; None: a result kept before results held them
    chunk_spans: dict[str, list[ChunkSpan]] | None = None
    set_apart: SetApart = field(default_factory=SetApart)  # front matter left out, all corpora

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

    def cache_json(self) -> dict[str, Any]:
        """What the result cache keeps: :meth:`to_json` and the chunk spans."""
        spans = None if self.chunk_spans is None else {
            cid: [asdict(s) for s in items] for cid, items in self.chunk_spans.items()}
        return self.to_json() | {"chunk_spans": spans}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CandidateResult:
        """A result from :meth:`to_json` or :meth:`cache_json` (chunk spans when kept)."""
        spans = data.get("chunk_spans")
        return cls(Candidate.from_dict(data["config"]), data["ranking"], data["k"],
                   Aggregate.from_json(data["metrics"]),
                   [QuestionResult.from_json(q) for q in data["questions"]],
                   data["chunk_counts"], data["seconds"], cached=True,
                   integrity=data.get("integrity", {}), budget=data.get("budget"),
                   autocut=data.get("autocut"), floor=data.get("floor", 0),
                   dimension=(data.get("embedder") or {}).get("dimension", 0),
                   chunk_spans=None if spans is None else {
                       cid: [ChunkSpan.from_json(s) for s in items]
                       for cid, items in spans.items()})


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



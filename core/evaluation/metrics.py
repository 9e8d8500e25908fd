"""Retrieval metrics on character ranges, as in Chroma's "Evaluating Chunking Strategies for
Retrieval" (Smith & Troynikov, 2024; code: chroma-core/chunking_evaluation).

Per question, with the top-k retrieved chunk ranges and the reference ranges (the passages that
answer it), all as ``(start, end)`` character offsets into the same ``Document.text``:

- numerator = characters of the references covered by retrieved chunks, each character once
  (the union of the chunk∩reference intersections);
- recall    = numerator / reference characters (the union of the references);
- precision = numerator / retrieved characters, where retrieved characters are summed **per
  chunk**: a region shared by two overlapping retrieved chunks counts twice. This is what
  Chroma's ``sum_of_ranges`` over the retrieved metadatas does, and it is deliberate: an
  overlapping chunking makes the reader read those characters twice, so it pays for them;
- IoU       = numerator / (retrieved characters, per chunk as above + reference characters no
  retrieved chunk covers);
- precisionΩ = the IoU obtained by retrieving exactly the chunks of the document that touch a
  reference, with the touching chunks' characters counted **once** (union, as Chroma's
  ``_full_precision_score`` does): the best precision this chunking allows.
- hit = some retrieved chunk touches some reference; reciprocal rank = 1 / (1-based rank of the
  first retrieved chunk that touches a reference), 0 when none does.

A question may accept alternatives (other places that answer it as well): it is scored against
each (:func:`score_alternatives`) and the one found best counts — the highest recall, then IoU,
then precision — every figure of the question coming from that one, so that any alternative
found makes a hit.

"Touch" means sharing at least one character. (Chroma's ``intersect_two_ranges`` also counts a
chunk that merely ends where a reference starts; an empty intersection adds nothing to any
numerator, so the only difference is which chunks precisionΩ's denominator includes — ours
excludes chunks that share no character with a reference.)

Every value is a fraction in [0, 1].
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from statistics import fmean
from typing import Any

Range = tuple[int, int]

METRICS = ("recall", "precision", "iou", "precision_omega", "hit_rate", "mrr")
METRIC_LABELS = {
    "recall": "Recall",
    "precision": "Precision",
    "iou": "IoU",
    "precision_omega": "Precision Ω",
    "hit_rate": "Hit rate",
    "mrr": "MRR",
}


def question_value(score: QuestionScore, metric: str) -> float:
    """One question's value of an overall metric (a hit counts 1, a miss 0; MRR's is the
    reciprocal rank), so that :class:`Summary` values are means of these."""
    if metric not in METRICS:
        raise KeyError(metric)
    field = {"hit_rate": "hit", "mrr": "reciprocal_rank"}.get(metric, metric)
    return float(getattr(score, field))


def union_ranges(ranges: Iterable[Range]) -> list[Range]:
    """Merge overlapping or touching ranges; empty ranges vanish. Result sorted by start."""
    merged: list[Range] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def covered_chars(ranges: Iterable[Range]) -> int:
    """Characters covered by the ranges, each character once."""
    return sum(end - start for start, end in union_ranges(ranges))


def intersection(a: Range, b: Range) -> Range | None:
    """The shared characters of two ranges, or None when they share none."""
    start, end = max(a[0], b[0]), min(a[1], b[1])
    return (start, end) if start < end else None


def touches(chunk: Range, references: Sequence[Range]) -> bool:
    return any(intersection(chunk, ref) for ref in references)


def _covered_reference_ranges(chunks: Iterable[Range], references: Sequence[Range]) -> list[Range]:
    return union_ranges(
        hit for chunk in chunks for ref in references if (hit := intersection(chunk, ref))
    )


@dataclass(frozen=True)
class QuestionScore:
    recall: float
    precision: float
    iou: float
    precision_omega: float
    hit: bool
    reciprocal_rank: float
    first_hit_rank: int | None  # 1-based rank of the first retrieved chunk touching a reference
    covered_chars: int  # the numerator
    reference_chars: int
    retrieved_chars: int  # per chunk (overlaps counted per chunk)
    retrieved_tokens: int = 0  # per chunk, as the reader reads them (cl100k)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def score_question(
    retrieved: Sequence[Range], references: Sequence[Range], all_chunks: Sequence[Range],
    retrieved_tokens: int = 0,
) -> QuestionScore:
    """Score one question: ``retrieved`` in rank order (best first), ``all_chunks`` = every chunk
    of the question's document (for precisionΩ); ``retrieved_tokens`` is what the retrieved
    text costs the reader, counted by the caller who has the text."""
    reference_union = union_ranges(references)
    reference_chars = sum(end - start for start, end in reference_union)
    covered = _covered_reference_ranges(retrieved, reference_union)
    numerator = sum(end - start for start, end in covered)
    retrieved_chars = sum(end - start for start, end in retrieved)
    never_retrieved = reference_chars - numerator

    first_hit_rank = next(
        (rank for rank, chunk in enumerate(retrieved, 1) if touches(chunk, reference_union)), None
    )

    touching = [chunk for chunk in all_chunks if touches(chunk, reference_union)]
    omega_numerator = covered_chars(_covered_reference_ranges(touching, reference_union))
    omega_denominator = covered_chars(touching) + reference_chars - omega_numerator

    return QuestionScore(
        recall=_ratio(numerator, reference_chars),
        precision=_ratio(numerator, retrieved_chars),
        iou=_ratio(numerator, retrieved_chars + never_retrieved),
        precision_omega=_ratio(omega_numerator, omega_denominator),
        hit=first_hit_rank is not None,
        reciprocal_rank=1.0 / first_hit_rank if first_hit_rank else 0.0,
        first_hit_rank=first_hit_rank,
        covered_chars=numerator,
        reference_chars=reference_chars,
        retrieved_chars=retrieved_chars,
        retrieved_tokens=retrieved_tokens,
    )


def score_alternatives(
    retrieved: Sequence[Range], alternatives: Sequence[Sequence[Range]],
    all_chunks: Sequence[Range], retrieved_tokens: int = 0,
) -> tuple[QuestionScore, int]:
    """:func:`score_question` against each of ``alternatives`` (the references, then each
    alternative); the best score and the index of the alternative it was scored against."""
    scores = [score_question(retrieved, option, all_chunks, retrieved_tokens)
              for option in alternatives or [[]]]
    best = max(range(len(scores)),
               key=lambda i: (scores[i].recall, scores[i].iou, scores[i].precision, -i))
    return scores[best], best


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


@dataclass(frozen=True)
class Summary:
    """Means over questions; ``hit_rate`` is the share of hits, ``mrr`` the mean reciprocal
    rank. Every value is a fraction but ``mean_tokens``, the tokens retrieved per question:
    the cost at which the others were reached (not a metric of :data:`METRICS`, as fewer is
    neither better nor worse by itself)."""

    questions: int
    recall: float
    precision: float
    iou: float
    precision_omega: float
    hit_rate: float
    mrr: float
    mean_tokens: float = 0.0

    def value(self, metric: str) -> float:
        """One metric by its name in :data:`METRICS`."""
        if metric not in METRICS:
            raise KeyError(metric)
        return float(getattr(self, metric))


def summarize(scores: Sequence[QuestionScore]) -> Summary:
    if not scores:
        return Summary(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return Summary(
        questions=len(scores),
        recall=fmean(s.recall for s in scores),
        precision=fmean(s.precision for s in scores),
        iou=fmean(s.iou for s in scores),
        precision_omega=fmean(s.precision_omega for s in scores),
        hit_rate=fmean(1.0 if s.hit else 0.0 for s in scores),
        mrr=fmean(s.reciprocal_rank for s in scores),
        mean_tokens=fmean(s.retrieved_tokens for s in scores),
    )


@dataclass(frozen=True)
class Aggregate:
    """Summaries of one evaluation: overall, per corpus, per question kind, and the table-query
    accuracy (the hit rate on table questions; None when the set has none)."""

    overall: Summary
    per_corpus: dict[str, Summary]
    per_kind: dict[str, Summary]
    table_query_accuracy: float | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Aggregate:
        return cls(
            overall=Summary(**data["overall"]),
            per_corpus={k: Summary(**v) for k, v in data["per_corpus"].items()},
            per_kind={k: Summary(**v) for k, v in data["per_kind"].items()},
            table_query_accuracy=data["table_query_accuracy"],
        )


def aggregate(rows: Sequence[tuple[str, str, QuestionScore]]) -> Aggregate:
    """Summaries over ``(corpus_id, kind, score)`` rows."""
    per_corpus: dict[str, list[QuestionScore]] = {}
    per_kind: dict[str, list[QuestionScore]] = {}
    for corpus_id, kind, score in rows:
        per_corpus.setdefault(corpus_id, []).append(score)
        per_kind.setdefault(kind, []).append(score)
    tables = per_kind.get("table")
    return Aggregate(
        overall=summarize([score for _, _, score in rows]),
        per_corpus={name: summarize(scores) for name, scores in sorted(per_corpus.items())},
        per_kind={name: summarize(scores) for name, scores in sorted(per_kind.items())},
        table_query_accuracy=summarize(tables).hit_rate if tables else None,
    )


def relative_improvement(candidate: float | None, baseline: float | None) -> float | None:
    """(candidate − baseline) / baseline as a fraction; None when it is undefined."""
    if candidate is None or baseline is None or baseline == 0:
        return None
    return (candidate - baseline) / baseline

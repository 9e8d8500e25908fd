"""What an evaluation's results say: the metrics side by side, the table-question rule, exports.

The table-question rule: a table-aware chunking should answer table questions (``kind=table``)
at least 15 % better (relative hit rate) than the baseline, fixed 1000 characters without
table handling.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from core.chunking.checks import LABELS as CHECK_LABELS
from core.errors import ChunkLabError
from core.evaluation.metrics import METRIC_LABELS, METRICS, relative_improvement
from core.operations.evaluation.candidates import Candidate
from core.operations.evaluation.results import CandidateFailure, CandidateResult, RetrievedChunk
from core.operations.presets import BASELINE, BUILTIN_PRESETS
from core.operations.strategies import validated_config

TABLE_GAIN_TARGET = 0.15
TABLE_ACCURACY = "Table-query accuracy"


def is_baseline(candidate: Candidate) -> bool:
    """Whether ``candidate`` chunks like the baseline preset (defaults filled in), whatever its
    label."""
    baseline = BUILTIN_PRESETS[BASELINE]
    if candidate.chunk_set is not None or candidate.strategy != baseline.strategy:
        return False
    try:
        mine = validated_config(candidate.strategy, candidate.settings)
    except ChunkLabError:
        return False
    return mine == validated_config(baseline.strategy, baseline.settings)


def metrics_table(results: list[CandidateResult]) -> dict[str, dict[str, float | None]]:
    """``{candidate label: {metric label: value}}`` with the table-query accuracy last."""
    table: dict[str, dict[str, float | None]] = {}
    for result in results:
        overall = result.metrics.overall
        column: dict[str, float | None] = {METRIC_LABELS[m]: overall.value(m) for m in METRICS}
        column[TABLE_ACCURACY] = result.metrics.table_query_accuracy
        table[result.candidate.label] = column
    return table


@dataclass(frozen=True)
class TableGain:
    label: str
    accuracy: float | None
    gain: float | None  # relative to the baseline; None when undefined

    @property
    def meets_target(self) -> bool:
        return self.gain is not None and self.gain >= TABLE_GAIN_TARGET


@dataclass(frozen=True)
class TableVerdict:
    """The table-question rule on one run, or why it cannot be judged (``missing``)."""

    baseline: str = ""
    baseline_accuracy: float | None = None
    candidates: tuple[TableGain, ...] = ()
    missing: str = ""


def table_verdict(results: list[CandidateResult]) -> TableVerdict:
    baseline = next((r for r in results if is_baseline(r.candidate)), None)
    others = [r for r in results if r is not baseline and r.candidate.settings.get("tables")]
    if baseline is None or not others:
        return TableVerdict(missing=f"Include “{BASELINE}” (the baseline) and a table-aware "
                            "configuration to compare them on table questions.")
    base = baseline.metrics.table_query_accuracy
    if base is None:
        return TableVerdict(missing="This question set has no table questions (kind = table).")
    gains = tuple(
        TableGain(r.candidate.label, r.metrics.table_query_accuracy,
                  relative_improvement(r.metrics.table_query_accuracy, base))
        for r in others
    )
    return TableVerdict(baseline.candidate.label, base, gains)


def _span(hit: RetrievedChunk) -> str:
    return f"{hit.corpus_id}:{hit.start}-{hit.end}" if hit.corpus_id else f"{hit.start}-{hit.end}"


def results_csv(results: Sequence[CandidateResult],
                failures: Sequence[CandidateFailure] = ()) -> bytes:
    """One row per candidate and question: its scores, the tokens and spans it retrieved
    (``start-end``, or ``document:start-end`` in another document than the question's), then
    the candidate's integrity counts (``check_<kind>``, over every chunked document); a
    configuration that failed has one row with its reason under ``failed``."""
    checks = [f"check_{kind}" for kind in CHECK_LABELS]
    fields = ["configuration", "ranking", "k", "budget", "row", "corpus_id", "kind", "question",
              "recall", "precision", "iou", "precision_omega", "hit", "reciprocal_rank",
              "tokens", "retrieved", *checks, "failed"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, restval="")
    writer.writeheader()
    for result in results:
        for q in result.questions:
            s = q.scores
            writer.writerow({
                "configuration": result.candidate.label, "ranking": result.ranking,
                "k": result.k, "budget": result.budget or "", "row": q.row,
                "corpus_id": q.corpus_id, "kind": q.kind,
                "question": q.question, "recall": s.recall, "precision": s.precision,
                "iou": s.iou, "precision_omega": s.precision_omega, "hit": s.hit,
                "reciprocal_rank": s.reciprocal_rank, "tokens": s.retrieved_tokens,
                "retrieved": " ".join(_span(r) for r in q.retrieved),
                **{f"check_{kind}": count for kind, count in result.integrity.items()},
            })
    for failure in failures:
        writer.writerow({"configuration": failure.candidate.label, "failed": failure.reason})
    return buffer.getvalue().encode()

"""Evaluation runs kept for later: what was run and what it scored, to compare with an earlier
run and to see a history.

A run records the question set (name and version, which changes with any edit), the embedder,
the ranking, top-k or token budget, and per configuration its settings and overall metrics with
their 95 % intervals. Runs live as JSON files under ``data_dir()/evaluation_runs`` and export as
CSV (one row per run and configuration) and JSON.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.config import data_dir
from core.embeddings import EmbedderRef
from core.evaluation.metrics import METRICS
from core.evaluation.questions import QuestionSet
from core.files import write_json
from core.operations.evaluation import CandidateResult
from core.operations.evaluation_stats import intervals

MAX_RUNS = 200  # the oldest runs beyond this are removed


@dataclass(frozen=True)
class ConfigurationScore:
    config: dict[str, Any]  # label, strategy, settings, chunk_set, contextual
    metrics: dict[str, float]
    ci95: dict[str, tuple[float, float]]
    chunks: int

    @property
    def label(self) -> str:
        return str(self.config.get("label", ""))


@dataclass(frozen=True)
class RunRecord:
    id: str
    created: str  # ISO 8601, UTC
    question_set: str
    question_set_version: str
    questions: int
    embedder: str  # the configurations' embedders, named
    ranking: str
    k: int
    budget: int | None
    configurations: tuple[ConfigurationScore, ...]

    @property
    def retrieval(self) -> str:
        return f"top-{self.k}" if self.budget is None else f"{self.budget:,}-token budget"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        configurations = tuple(
            ConfigurationScore(c["config"], c["metrics"],
                               {m: (lo, hi) for m, (lo, hi) in c["ci95"].items()}, c["chunks"])
            for c in data["configurations"])
        return cls(**{**data, "configurations": configurations})


def _folder() -> Path:
    return data_dir() / "evaluation_runs"


def record_run(results: list[CandidateResult], question_set: QuestionSet) -> RunRecord:
    """Keep the run of ``results`` on ``question_set``; returns what was written."""
    first = results[0]
    now = datetime.now(UTC)
    created = now.isoformat(timespec="seconds")
    configurations = tuple(
        ConfigurationScore(r.candidate.as_dict(),
                           {m: r.metrics.overall.value(m) for m in METRICS},
                           intervals(r), sum(r.chunk_counts.values()))
        for r in results)
    digest = hashlib.sha256(json.dumps(
        [created, question_set.version, first.ranking, first.k, first.budget,
         [c.config for c in configurations]], sort_keys=True).encode()).hexdigest()[:8]
    record = RunRecord(
        id=f"{now:%Y%m%dT%H%M%S%f}-{digest}", created=created,
        question_set=question_set.name, question_set_version=question_set.version,
        questions=first.metrics.overall.questions,
        embedder=", ".join(dict.fromkeys(r.candidate.embedder.label for r in results)),
        ranking=first.ranking,
        k=first.k, budget=first.budget, configurations=configurations)
    write_json(_folder() / f"{record.id}.json", record.to_json(), indent=1)
    for old in sorted(_folder().glob("*.json"))[:-MAX_RUNS]:
        old.unlink(missing_ok=True)
    return record


def run_history() -> list[RunRecord]:
    """Every kept run, newest first; unreadable files are skipped."""
    records = []
    for path in sorted(_folder().glob("*.json"), reverse=True) if _folder().is_dir() else []:
        try:
            records.append(RunRecord.from_json(json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return records


def history_rows(records: list[RunRecord]) -> list[dict[str, Any]]:
    """One flat row per run and configuration (metrics as fractions, intervals beside)."""
    rows = []
    for record in records:
        for c in record.configurations:
            row: dict[str, Any] = {
                "run": record.id, "created": record.created, "question_set": record.question_set,
                "question_set_version": record.question_set_version,
                "questions": record.questions, "embedder": _embedder(c, record),
                "ranking": record.ranking, "retrieval": record.retrieval,
                "configuration": c.label, "strategy": c.config.get("strategy") or "",
                "settings": json.dumps(c.config.get("settings") or {}, sort_keys=True),
                "chunk_set": c.config.get("chunk_set") or "",
                "contextual_prefixes": c.config.get("contextual", True), "chunks": c.chunks,
            }
            for metric in METRICS:
                low, high = c.ci95[metric]
                row |= {metric: c.metrics[metric], f"{metric}_ci95_low": low,
                        f"{metric}_ci95_high": high}
            rows.append(row)
    return rows


def _embedder(score: ConfigurationScore, record: RunRecord) -> str:
    """The configuration's embedder (runs kept before embedders were chosen: the run's)."""
    ref = score.config.get("embedder")
    return EmbedderRef(**ref).label if isinstance(ref, dict) else record.embedder


def history_csv(records: list[RunRecord]) -> bytes:
    rows = history_rows(records)
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return buffer.getvalue().encode()


def history_json(records: list[RunRecord]) -> bytes:
    return json.dumps([r.to_json() for r in records], indent=1, ensure_ascii=False).encode()

"""Evaluation runs kept for later: what was run and what it scored, to compare with an earlier
run and to see a history.

A run records the question set (name and version, which changes with any edit), the embedder,
the ranking, top-k or token budget, per configuration its settings, overall metrics with their
95 % intervals and the mean tokens retrieved per question, and the configurations that failed
with their reasons. Runs live as JSON files under ``data_dir()/evaluation_runs`` and export as
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
from core.operations.evaluation.candidates import retrieval_label
from core.operations.evaluation.confidence import intervals
from core.operations.evaluation.results import Evaluation

MAX_RUNS = 200  # the oldest runs beyond this are removed


@dataclass(frozen=True)
class ConfigurationScore:
    config: dict[str, Any]  # label, strategy, settings, chunk_set, contextual
    metrics: dict[str, float]
    ci95: dict[str, tuple[float, float]]
    chunks: int
    mean_tokens: float | None = None  # None in runs kept before it was recorded

    @property
    def label(self) -> str:
        return str(self.config.get("label", ""))


@dataclass(frozen=True)
class ConfigurationFailure:
    config: dict[str, Any]
    error: str
    reason: str


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
    failures: tuple[ConfigurationFailure, ...] = ()
    autocut: int | None = None

    @property
    def retrieval(self) -> str:
        return retrieval_label(self.k, self.budget, self.autocut)

    def retrieval_of(self, config: dict[str, Any]) -> str:
        """How a kept configuration (its ``config``) ranked and retrieved: "hybrid · top-8",
        its own ranking and retrieval when it had them, else the run's."""
        own = config.get("retrieval")
        how = retrieval_label(**own) if isinstance(own, dict) else self.retrieval
        return f"{config.get('ranking') or self.ranking} · {how}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        configurations = tuple(
            ConfigurationScore(c["config"], c["metrics"],
                               {m: (lo, hi) for m, (lo, hi) in c["ci95"].items()}, c["chunks"],
                               c.get("mean_tokens"))
            for c in data["configurations"])
        failures = tuple(ConfigurationFailure(**f) for f in data.get("failures", ()))
        return cls(**{**data, "configurations": configurations, "failures": failures})


def _folder() -> Path:
    return data_dir() / "evaluation_runs"


def record_run(evaluation: Evaluation, question_set: QuestionSet) -> RunRecord | None:
    """Keep the run of ``evaluation`` on ``question_set``; returns what was written (None when
    no configuration could be evaluated: nothing to keep)."""
    results = evaluation.results
    if not results:
        return None
    now = datetime.now(UTC)
    created = now.isoformat(timespec="seconds")
    configurations = tuple(
        ConfigurationScore(r.candidate.as_dict(),
                           {m: r.metrics.overall.value(m) for m in METRICS},
                           intervals(r), sum(r.chunk_counts.values()),
                           r.metrics.overall.mean_tokens)
        for r in results)
    failures = tuple(ConfigurationFailure(f.candidate.as_dict(), f.error, f.reason)
                     for f in evaluation.failures)
    digest = hashlib.sha256(json.dumps(
        [created, question_set.version, evaluation.ranking, evaluation.retrieval,
         [c.config for c in configurations]], sort_keys=True).encode()).hexdigest()[:8]
    record = RunRecord(
        id=f"{now:%Y%m%dT%H%M%S%f}-{digest}", created=created,
        question_set=question_set.name, question_set_version=question_set.version,
        questions=results[0].metrics.overall.questions,
        embedder=", ".join(dict.fromkeys(o.candidate.embedder.label
                                         for o in evaluation.outcomes)),
        ranking=evaluation.ranking, k=evaluation.k, budget=evaluation.budget,
        configurations=configurations, failures=failures, autocut=evaluation.autocut)
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
    """One flat row per run and configuration (metrics as fractions, intervals beside); a
    configuration that failed has its reason under ``failed`` and no metrics."""
    rows = []
    for record in records:
        run = {"run": record.id, "created": record.created, "question_set": record.question_set,
               "question_set_version": record.question_set_version,
               "questions": record.questions, "embedder": record.embedder,
               "ranking": record.ranking, "retrieval": record.retrieval}
        for c in record.configurations:
            row = run | _config_columns(c.config, record) | {
                "chunks": c.chunks, "mean_tokens": c.mean_tokens, "failed": ""}
            for metric in METRICS:
                low, high = c.ci95[metric]
                row |= {metric: c.metrics[metric], f"{metric}_ci95_low": low,
                        f"{metric}_ci95_high": high}
            rows.append(row)
        for f in record.failures:
            rows.append(run | _config_columns(f.config, record) | {
                "chunks": None, "mean_tokens": None, "failed": f.reason,
                **{name: None for metric in METRICS
                   for name in (metric, f"{metric}_ci95_low", f"{metric}_ci95_high")}})
    return rows


def _config_columns(config: dict[str, Any], record: RunRecord) -> dict[str, Any]:
    return {"configuration": str(config.get("label", "")),
            "embedder": _embedder(config, record),
            "ranking": config.get("ranking") or record.ranking,  # a preset may rank its own way
            "strategy": config.get("strategy") or "",
            "settings": json.dumps(config.get("settings") or {}, sort_keys=True),
            "chunk_set": config.get("chunk_set") or "",
            "contextual_prefixes": config.get("contextual", True)}


def _embedder(config: dict[str, Any], record: RunRecord) -> str:
    """The configuration's embedder (runs kept before embedders were chosen: the run's)."""
    ref = config.get("embedder")
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


def last_runs(question_set: QuestionSet, labels: list[str], ranking: str,
              retrievals: list[str]) -> list[RunRecord]:
    """The newest kept run of each of ``retrievals`` that evaluated exactly the configurations
    ``labels`` on this version of ``question_set`` with ``ranking``: what a page shows for its
    inputs when their results are no longer in memory (a reload, a restart)."""
    wanted = sorted(labels)
    found: dict[str, RunRecord] = {}
    for record in run_history():
        if (record.retrieval in retrievals and record.retrieval not in found
                and record.question_set == question_set.name
                and record.question_set_version == question_set.version
                and record.ranking == ranking
                and sorted([c.label for c in record.configurations]
                           + [str(f.config.get("label", "")) for f in record.failures]) == wanted):
            found[record.retrieval] = record
    return [found[r] for r in retrievals if r in found]

"""Answer runs kept for later, beside the evaluation runs: each run's JSON (what
``python -m core answers`` prints) under ``data_dir()/answer_runs``, newest first, so a page
shows the last result again after a reload and a history of earlier ones."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.config import data_dir
from core.files import write_json
from core.operations.answers.report import run_json
from core.operations.answers.run import AnswerEvaluation

MAX_RUNS = 100  # the oldest runs beyond this are removed


def _folder() -> Path:
    return data_dir() / "answer_runs"


def record_answer_run(run: AnswerEvaluation) -> dict[str, Any]:
    """Keep ``run``; returns its JSON with ``id`` and ``created``."""
    now = datetime.now(UTC)
    data = run_json(run)
    digest = hashlib.sha256(json.dumps(data["variants"], sort_keys=True).encode()).hexdigest()
    data = {"id": f"{now:%Y%m%dT%H%M%S%f}-{digest[:8]}",
            "created": now.isoformat(timespec="seconds"), **data}
    write_json(_folder() / f"{data['id']}.json", data, ensure_ascii=False, indent=1)
    for old in sorted(_folder().glob("*.json"))[:-MAX_RUNS]:
        old.unlink(missing_ok=True)
    return data


def answer_history() -> list[dict[str, Any]]:
    """Every kept run, newest first; unreadable files are skipped."""
    runs = []
    for path in sorted(_folder().glob("*.json"), reverse=True) if _folder().is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "variants" in data:
            runs.append(data)
    return runs


def history_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per kept run: when, which set, the arms and the verdicts."""
    return [{"created": run.get("created", ""), "question set": run.get("question_set", ""),
             "questions": len({a["index"] for a in run.get("answers", [])}),
             "variants": " | ".join(v["label"] for v in run["variants"]),
             "temperature": run.get("temperature"),
             "verdict": " ".join(c["verdict"] for c in run.get("comparison", []))}
            for run in runs]

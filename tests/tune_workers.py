"""Tune processes started together that add trials to one study at a storage URL, as a team's
workers do, and what they must leave: one study holding every worker's trials."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "sample_docs" / "questions" / "technical_handbook.csv"
DOCS = ROOT / "sample_docs"
STUDY = "team"


def run_workers(url: str, data_dirs: list[Path], trials: int = 3,
                study: str = STUDY) -> list[dict]:
    """One ``python -m core tune`` per data folder, all at once, each adding ``trials`` to
    ``study`` at ``url``; their JSON outputs (each must exit 0)."""
    command = [sys.executable, "-m", "core", "tune", "--questions", str(SET), "--docs",
               str(DOCS), "--trials", str(trials), "--storage", url, "--study", study, "--quiet"]
    workers = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "CHUNKLAB_DATA_DIR": str(data)})
               for data in data_dirs]
    outputs = []
    for worker in workers:
        out, err = worker.communicate(timeout=900)
        assert worker.returncode == 0, err
        outputs.append(json.loads(out))
    return outputs


def assert_one_study(url: str, outputs: list[dict], total: int, study: str = STUDY) -> None:
    """The study at ``url`` holds ``total`` finished trials; each output names it, counts the
    trials finished when it reported (the last to finish: all of them) and recommends."""
    import optuna

    assert {o["study"]["name"] for o in outputs} == {study}
    counts = [o["study"]["trials"] for o in outputs]
    assert max(counts) == total and all(total // len(outputs) <= n <= total for n in counts)
    stored = optuna.load_study(study_name=study, storage=url)
    complete = [t for t in stored.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert len(complete) == total
    assert all(o["recommended"] is not None for o in outputs)

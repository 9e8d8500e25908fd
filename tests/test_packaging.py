"""The project as a package: its declared dependencies, its command's name, and (opt-in, minutes)
a fresh virtual environment where ``pip install .`` gives a command that works."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from core.cli import command_name

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_docs" / "insurance_policy.docx"
QUESTIONS = ROOT / "sample_docs" / "questions" / "insurance_policy.csv"


def _pins() -> dict[str, Requirement]:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    pins = [Requirement(line.split("#")[0]) for line in lines if line.split("#")[0].strip()]
    return {pin.name.lower(): pin for pin in pins}


def _declared() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {r.name.lower(): r for r in map(Requirement, project["dependencies"])}


def test_pyproject_declares_every_pinned_runtime_package_in_a_range_holding_its_pin():
    pins, declared = _pins(), _declared()
    assert sorted(declared) == sorted(pins)
    for name, pin in pins.items():
        (version,) = [spec.version for spec in pin.specifier]
        assert declared[name].specifier.contains(version), (name, str(declared[name].specifier))
        assert declared[name].extras == pin.extras, name


def test_help_names_the_command_as_it_was_typed():
    assert command_name("/opt/venv/bin/chunklab") == "chunklab"
    assert command_name(str(ROOT / "core" / "__main__.py")) == "python -m core"
    result = subprocess.run([sys.executable, "-m", "core", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("usage: python -m core ")


def _copy_project(to: Path) -> Path:
    """The project's sources without what a working copy gathers (environments, data, builds)."""
    ignore = shutil.ignore_patterns(".git", ".venv", "data", "build", "*.egg-info", "__pycache__",
                                    ".*_cache", ".hypothesis", "test-artifacts")
    return Path(shutil.copytree(ROOT, to / "src", ignore=ignore))


@pytest.mark.install
def test_pip_install_in_a_fresh_environment_gives_a_command_that_converts_chunks_evaluates(
        tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    source = _copy_project(tmp_path)
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-compile",
                              str(source)], capture_output=True, text=True, timeout=1800)
    assert install.returncode == 0, install.stderr[-3000:]

    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    shutil.copy(SAMPLE, work / "docs")
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": os.environ.get("HOME", str(tmp_path)),
           "CHUNKLAB_DATA_DIR": str(tmp_path / "data")}

    def chunklab(*args: str) -> str:
        result = subprocess.run(["chunklab", *args], cwd=work, env=env, capture_output=True,
                                text=True, timeout=900)
        assert result.returncode == 0, (args, result.stderr[-3000:])
        return result.stdout

    assert chunklab("--help").startswith("usage: chunklab ")
    document = json.loads(chunklab("convert", "docs/insurance_policy.docx"))
    assert "dwelling" in document["text"].lower() and document["sections"]
    chunks = [json.loads(line) for line in
              chunklab("chunk", "docs/insurance_policy.docx", "--strategy", "recursive").split("\n")
              if line.strip()]
    assert len(chunks) > 3
    assert all(document["text"][c["start"]:c["end"]] == c["text"] for c in chunks)
    report = json.loads(chunklab("eval", "--questions", str(QUESTIONS), "--docs", "docs",
                                 "--strategy", "recursive"))
    assert report["status"] == "ok" and report["overall"]["recall"] > 0.5

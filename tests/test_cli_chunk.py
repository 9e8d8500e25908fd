"""`python -m core chunk`: JSON lines with every Chunk field; bad arguments exit 2, one line."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.chunking.base import Chunk
from core.chunking.edits import Merge
from core.cli import main
from core.cli.chunk_output import print_output
from core.documents import convert
from core.operations.hand_edits import edited_config, save_edited
from core.operations.presets import preset
from core.operations.strategies import chunk

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "chunk", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "notes.md"
    table = "| Plan | Limit |\n|---|---|\n| Basic | $1,000 |\n| Plus | $5,000 |"
    path.write_text("# Notes\n\n" + "Some words here. " * 200 + "\n\n" + table + "\n\nThe end.\n")
    return path


def test_chunks_as_json_lines(sample: Path) -> None:
    result = run(str(sample), "--strategy", "recursive", "--size", "100", "--overlap", "10")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) > 3
    assert set(rows[0]) == set(Chunk.model_fields)
    assert any(r["chunk_type"] == "table" for r in rows)
    assert all(r["tokens"] <= 100 for r in rows if r["chunk_type"] == "text")
    for before, after in zip(rows, rows[1:], strict=False):
        if before["chunk_type"] == after["chunk_type"] == "text" and after["end"] < 3000:
            assert after["start"] < before["end"]  # consecutive text chunks overlap
    langchain = run(str(sample), "--size", "100", "--overlap", "10", "--overlap-mode",
                    "trailing_pieces")
    assert langchain.returncode == 0 and langchain.stdout != result.stdout
    rows_each = run(str(sample), "--table-split", "rows", "--table-max-tokens", "5")
    tables = [json.loads(line) for line in rows_each.stdout.splitlines()
              if json.loads(line)["chunk_type"] == "table"]
    assert len(tables) == 2 and tables[1]["table_header"] == "| Plan | Limit |\n|---|---|"
    flat = run(str(sample), "--strategy", "fixed", "--size", "300", "--unit", "chars",
               "--no-tables")
    assert flat.returncode == 0
    assert all(json.loads(line)["chunk_type"] == "text" for line in flat.stdout.splitlines())


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--size", "0"], "size must be at least 1"),
        (["--overlap", "900", "--size", "100"], "overlap must be between"),
        (["--unit", "words"], "invalid choice"),
        (["--strategy", "magic"], "invalid choice"),
        (["--size", "ten"], "invalid int value"),
        (["--strategy", "semantic", "--overlap-mode", "guaranteed"], "does not take"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(sample: Path, args, needle) -> None:
    result = run(str(sample), *args)
    assert result.returncode == 2
    assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope.md"))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1


def test_check_prints_counts_and_passes(sample: Path) -> None:
    result = run(str(sample), "--strategy", "fixed", "--size", "300", "--unit", "chars",
                 "--no-tables", "--check")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    counts = {line[:22].strip(): int(line[22:30]) for line in lines[:-1]}
    assert counts["offsets wrong"] == 0 and counts["over the size"] == 0
    assert counts["cut words"] > 0  # fixed windows cut words: a warning, not a failure
    assert lines[-1] == "ok: every invariant holds"


def test_check_exits_1_when_an_invariant_is_broken(tmp_path: Path, capsys) -> None:
    path = tmp_path / "broken.md"
    path.write_text("# T\n\n" + "word " * 50 + "\n")
    document = convert(path.read_bytes(), path.name)
    chunks = chunk(document, "recursive", {"size": 20, "overlap": 0})
    broken = [chunks[0], *chunks[2:]]  # the second chunk's text is now in no chunk
    args = argparse.Namespace(check=True, format="chunks")
    assert print_output(args, path, document, "recursive", {}, broken) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "broken: text not in any chunk"
    assert print_output(args, path, document, "recursive", {}, chunks) == 0


@pytest.mark.parametrize("shape", ["jsonl", "langchain", "llamaindex", "python"])
def test_export_formats(sample: Path, shape: str) -> None:
    result = run(str(sample), "--size", "100", "--format", shape)
    assert result.returncode == 0, result.stderr
    if shape == "jsonl":
        assert {"text", "start", "end", "metadata"} <= set(json.loads(
            result.stdout.splitlines()[0]))
    elif shape == "python":
        assert "chunk(document, 'recursive', settings)" in result.stdout
    else:
        assert isinstance(json.loads(result.stdout), list)


def _spans(out: str) -> list[tuple[int, int]]:
    return [(row["start"], row["end"]) for row in map(json.loads, out.splitlines())]


def test_preset_runs_a_saved_configuration(sample: Path, capsys) -> None:
    assert main(["chunk", str(sample), "--preset", "recursive 500/50"]) == 0
    by_name = _spans(capsys.readouterr().out)
    settings = preset("recursive 500/50").settings
    expected = chunk(convert(sample.read_bytes(), sample.name), "recursive", settings)
    assert by_name == [(c.start, c.end) for c in expected]
    assert main(["chunk", str(sample), "--size", "100"]) == 0  # no preset: recursive, as before
    assert len(_spans(capsys.readouterr().out)) > len(by_name)


def test_preset_runs_hand_edits(sample: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    document = convert(sample.read_bytes(), sample.name)
    base_settings = {"size": 100, "overlap": 0}
    base = chunk(document, "recursive", base_settings)
    save_edited("merged by hand", edited_config("recursive 100", "recursive", base_settings,
                                                document.doc_id, [Merge(index=0)]))
    assert main(["chunk", str(sample), "--preset", "merged by hand"]) == 0
    captured = capsys.readouterr()
    assert _spans(captured.out) == [(base[0].start, base[1].end),
                                    *((c.start, c.end) for c in base[2:])]
    assert captured.err == ""
    other = tmp_path / "other.md"
    other.write_text("# Other\n\n" + "Different words here. " * 60 + "\n")
    assert main(["chunk", str(other), "--preset", "merged by hand", "--format", "jsonl"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == len(
        chunk(convert(other.read_bytes(), other.name), "recursive", base_settings))
    assert "no hand edits for other.md" in captured.err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--preset", "no such preset"], "Unknown preset"),
        (["--preset", "semantic", "--size", "100"], "--size goes with --strategy"),
        (["--preset", "semantic", "--no-tables"], "--no-tables goes with --strategy"),
        (["--preset", "semantic", "--strategy", "fixed"], "either --strategy"),
    ],
)
def test_bad_preset_exits_2_with_one_line(sample: Path, capsys, args, needle) -> None:
    assert main(["chunk", str(sample), *args]) == 2
    captured = capsys.readouterr()
    assert needle in captured.err and len(captured.err.strip().splitlines()) == 1
    assert captured.out == ""


def test_cluster_strategy(sample: Path) -> None:
    result = run(str(sample), "--strategy", "cluster", "--size", "120")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    text = convert(sample.read_bytes(), sample.name).text
    assert all(r["text"] == text[r["start"]:r["end"]] for r in rows)
    assert {r["strategy"] for r in rows} == {"cluster"}
    assert [r["chunk_type"] for r in rows].count("table") == 1
    assert all(r["tokens"] <= 120 for r in rows if r["chunk_type"] == "text")
    refused = run(str(sample), "--strategy", "cluster", "--overlap", "10")
    assert refused.returncode == 2 and "do not overlap" in refused.stderr

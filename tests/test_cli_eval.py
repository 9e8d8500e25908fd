"""`python -m core eval`: metrics JSON on a shipped set; bad input exits 2 with one line."""

import json
from contextlib import nullcontext
from pathlib import Path

import pytest

from core.cli import main

ROOT = Path(__file__).resolve().parents[1]
SET = str(ROOT / "sample_docs" / "questions" / "product_manual.csv")
DOCS = str(ROOT / "sample_docs")


def test_eval_prints_metrics_json(capsys):
    code = main(["eval", "--questions", SET, "--docs", DOCS, "--strategy", "fixed",
                 "--size", "1000", "--unit", "chars", "--no-tables", "--rank", "bm25"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["values"] == "fractions (0..1)" and out["ranking"] == "bm25" and out["k"] == 5
    assert out["config"]["settings"] == {"size": 1000, "unit": "chars", "tables": False}
    assert set(out["per_corpus"]) == {"product_manual.html"}
    assert {"text", "table"} == set(out["per_kind"])
    assert 0 < out["overall"]["recall"] <= 1 and out["invalid_rows"] == []
    assert out["table_query_accuracy"] == out["per_kind"]["table"]["hit_rate"]


@pytest.mark.parametrize("argv, message", [
    (["--strategy", "fixed", "--k", "0"], "k must be at least 1"),
    (["--strategy", "fixed", "--size", "-5"], ""),
    (["--preset", "no such preset"], "Unknown preset"),
    (["--strategy", "fixed", "--rank", "magic"], "invalid choice"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) if "magic" in argv else nullcontext():
        code = main(["eval", "--questions", SET, "--docs", DOCS, *argv])
        assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_missing_folder_is_one_line(capsys, tmp_path):
    code = main(["eval", "--questions", SET, "--docs", str(tmp_path / "nope"),
                 "--strategy", "fixed"])
    assert code == 2
    assert "is not a folder of documents" in capsys.readouterr().err


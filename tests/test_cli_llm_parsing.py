# ruff: noqa: F811  (pytest fixtures imported from tests.fakellm_slips are redefined as arguments)
"""`--llm-parsing strict|tolerant` on `chunk` and `ingest`, against a server that slips."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from fakes.llm import FakeLLM, Reply
from tests.fakellm_slips import slipping_llm  # noqa: F401  (fixture)

GUIDE = b"# Guide\n\nOne paragraph here.\n\n## Part\n\nAnother paragraph. And more.\n\n" \
        b"## Last\n\nClosing words. The end.\n"
NOTES = b"# Notes\n\nFirst note. Second sentence.\n\n## More\n\nMore notes follow here.\n"


def messages(err: str) -> list[str]:
    """The stderr lines other than progress bars ("[####....] step…") and the estimate told
    before the run ("LLM chunking: about …")."""
    return [line for line in err.strip().splitlines()
            if not line.startswith(("[", "LLM chunking: about"))]


@pytest.fixture
def docs(tmp_path, monkeypatch, slipping_llm):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_BASE_URL", slipping_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    (tmp_path / "guide.md").write_bytes(GUIDE)
    (tmp_path / "notes.md").write_bytes(NOTES)
    return tmp_path


def test_chunk_tolerant_repairs_and_warns(docs, capsys):
    assert main(["chunk", str(docs / "guide.md"), "--strategy", "llm",
                 "--llm-parsing", "tolerant"]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and all(r["config"]["parsing"] == "tolerant" for r in rows)
    assert any(line.startswith("[") for line in err.splitlines())  # progress shown
    warnings = messages(err)
    assert warnings and all(line.startswith("warning: ") for line in warnings)
    assert any("phase 1 (structure analysis)" in line for line in warnings)
    assert any("×" in line and "first at line" in line for line in warnings)


def test_chunk_strict_is_the_default_and_fails_with_phase_line_and_text(docs, capsys):
    assert main(["chunk", str(docs / "guide.md"), "--strategy", "llm"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(messages(err)) == 1
    assert messages(err)[0].startswith("error: phase 1 (structure analysis) failed: line ")
    assert "— line was '" in err


def test_no_llm_summaries_asks_only_for_sections_and_boundaries(docs, capsys):
    assert main(["chunk", str(docs / "guide.md"), "--strategy", "llm", "--llm-parsing",
                 "tolerant", "--no-llm-summaries"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and all(r["config"]["summaries"] is False for r in rows)
    assert not any(r.get("summary") or r.get("context_prefix") for r in rows)


@pytest.mark.parametrize(("args", "needle"), [
    (["--strategy", "recursive", "--llm-parsing", "tolerant"],
     "The recursive strategy does not take --llm-parsing."),
    (["--strategy", "fixed", "--no-llm-summaries"],
     "The fixed strategy does not take --no-llm-summaries."),
    (["--strategy", "llm", "--llm-parsing", "lenient"], "invalid choice"),
])
def test_bad_parsing_options_exit_2_with_one_line(docs, capsys, args, needle):
    try:
        code = main(["chunk", str(docs / "guide.md"), *args])
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_ingest_tolerant_stores_every_document_and_strict_goes_on_past_failures(docs, capsys):
    paths = [str(docs / "guide.md"), str(docs / "notes.md")]
    assert main(["ingest", *paths, "--chunk-set", "tolerant", "--strategy", "llm",
                 "--llm-parsing", "tolerant"]) == 0
    out, err = capsys.readouterr()
    assert "stored 2 documents" in out
    assert "warning: guide.md: " in err and "warning: notes.md: " in err

    assert main(["ingest", *paths, "--chunk-set", "strict", "--strategy", "llm"]) == 2
    out, err = capsys.readouterr()
    assert "stored 0 documents" in out and "2 failed" in out
    assert "warning: guide.md: phase 1 (structure analysis) failed" in err
    assert "warning: notes.md: phase 1 (structure analysis) failed" in err


def test_chunk_llm_tells_each_retry_on_stderr(tmp_path, monkeypatch, capsys):
    fake = FakeLLM().start()
    try:
        fake.script([Reply(status=503, text="busy")])
        monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
        monkeypatch.setenv("LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("LLM_MODEL", "fake")
        (tmp_path / "guide.md").write_bytes(GUIDE)
        assert main(["chunk", str(tmp_path / "guide.md"), "--strategy", "llm"]) == 0
    finally:
        fake.stop()
    err = capsys.readouterr().err
    retries = [line for line in messages(err) if line.startswith("retry: ")]
    assert len(retries) == 1 and "HTTP 503" in retries[0] and "attempt 2 of" in retries[0]

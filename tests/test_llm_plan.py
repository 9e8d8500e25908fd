"""LLM chunking says what it will cost before it runs: its model calls (about as many as the
run makes) and their time at the measured speed, or that the speed is not measured yet."""

from __future__ import annotations

import pytest

from core.cli import main
from core.documents import convert
from core.llm.speed import SPEEDS, Speed
from core.operations.strategies import RunOptions, llm_estimate, run_llm
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK, SMALL_GUIDE

# ruff: noqa: F811  (the fixture is redefined as an argument)


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))


@pytest.mark.parametrize("source", [(SMALL_GUIDE, "guide.md"),
                                    (CLAIMS_HANDBOOK.encode(), "claims_handbook.md")])
def test_the_calls_told_are_about_the_calls_made(fake_llm, source):
    document = convert(*source)
    settings = {"cache": False, "size": 200}
    options = RunOptions(llm=fake_llm.settings())
    planned = llm_estimate([document], "llm", settings, options)
    assert planned is not None
    run_llm([document], settings, options)
    made = len(fake_llm.calls)
    assert made / 2 <= planned.calls <= made * 2, (planned.calls, made)


def test_the_time_is_told_at_the_measured_speed_and_not_guessed_before(fake_llm):
    document = convert(SMALL_GUIDE, "guide.md")
    options = RunOptions(llm=fake_llm.settings())
    before = llm_estimate([document], "llm", {}, options)
    assert before is not None and before.time.seconds is None
    assert "not measured yet" in before.sentence()
    assert before.sentence().startswith(f"LLM chunking: about {before.calls} model call")
    SPEEDS.record(fake_llm.base_url, "fake", Speed(answer=2.0, prompt=20.0))
    after = llm_estimate([document], "llm", {}, options)
    assert after is not None and after.time.seconds and after.time.seconds > 10
    assert "measured pace" in after.sentence()
    assert llm_estimate([document], "recursive", {}, options) is None  # no model, no calls


def test_the_cli_tells_it_on_stderr_before_it_runs(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    (tmp_path / "guide.md").write_bytes(SMALL_GUIDE)
    assert main(["chunk", str(tmp_path / "guide.md"), "--strategy", "llm"]) == 0
    err = capsys.readouterr().err
    assert "LLM chunking: about " in err and " model call" in err

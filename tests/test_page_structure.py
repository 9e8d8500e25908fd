"""The Structure page under AppTest against the fake LLM server."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.docfactory import GUIDE_MARKDOWN
from tests.fakellm import Reply, fake_llm  # noqa: F401  (fixture)
from tests.pages import page_path, use_samples
from ui.resources import LLM_SETTINGS

PAGE = page_path("structure")


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    yield from use_samples(tmp_path, monkeypatch, {"guide.md": GUIDE_MARKDOWN})


def page(fake=None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    if fake is not None:
        at.session_state[LLM_SETTINGS] = fake.settings()
    at.run()
    assert not at.exception, at.exception
    return at


def run_button(at: AppTest):
    return next(b for b in at.button if b.label == "Run LLM chunking")


def test_without_an_endpoint_it_says_what_to_configure(data_dir):
    at = page()
    assert any("LLM_BASE_URL" in w.value for w in at.warning)
    assert run_button(at).disabled
    assert at.dataframe[0].value["title"].str.strip().tolist() == [
        "Field Guide", "Install", "Operate"]


def test_run_shows_both_structures_boundaries_and_cache_stats(data_dir, fake_llm):  # noqa: F811
    at = page(fake_llm)
    run_button(at).click()
    at.run()
    assert not at.exception, at.exception
    assert not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Requests"]) == len(fake_llm.requests) > 0
    assert metrics["Cache hits"] == "0"
    docling, llm = at.dataframe[0].value, at.dataframe[1].value
    assert docling["title"].str.strip().tolist() == ["Field Guide", "Install", "Operate"]
    assert llm["title"].str.strip().tolist() == ["Field Guide", "Install", "Operate"]
    assert "snap (chars)" in llm.columns
    html = "".join(h.proto.body for h in at.get("html"))
    assert "<mark" in html and "section break" in html and 'class="cl-table"' in html
    assert "SECTION_BREAK: " in html  # justification in the tooltip
    boundaries = at.dataframe[2].value
    assert {"type", "justification", "snap (chars)"} <= set(boundaries.columns)
    log = at.dataframe[-1].value
    assert set(log["phase"]) >= {"structure_analysis", "boundary_detection"}

    sent = len(fake_llm.requests)
    run_button(at).click()
    at.run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Requests"] == "0" and int(metrics["Cache hits"]) > 0
    assert len(fake_llm.requests) == sent


def test_a_failed_phase_shows_the_sentence_and_keeps_the_page(data_dir, fake_llm):  # noqa: F811
    fake_llm.script([Reply(text="```\nnot tsv\n```")])
    at = page(fake_llm)
    run_button(at).click()
    at.run()
    assert not at.exception
    assert any("phase 1 (structure analysis) failed" in e.value for e in at.error)
    assert any("llm_log.jsonl" in e.value for e in at.error)

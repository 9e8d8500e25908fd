"""The Structure page under AppTest against the fake LLM server."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from core.llm.cache import LLMCache
from core.llm.phases import boundaries
from fakes.llm import Reply, fake_llm  # noqa: F401  (fixture)
from tests.docfactory import GUIDE_MARKDOWN
from tests.fakellm_slips import slipping_llm  # noqa: F401  (fixture)
from tests.pages import page_path, texts, use_samples
from ui.persist import SHADOW
from ui.resources import LLM_SETTINGS

PAGE = page_path("structure")


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.0)  # the guide's sections are short
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
    html = "".join(h.proto.body for h in at.get("html"))
    assert "<mark" in html and 'class="cl-table"' in html
    assert "section break: " in html  # the justification in the tooltip, named as in the legend
    assert "SECTION_BREAK" not in html and "DOCUMENT_START" not in html
    boundaries = at.dataframe[2].value
    assert list(boundaries.columns) == ["position", "kind", "justification"]  # anchors: no move
    assert set(boundaries["kind"]) <= {"document start", "section break", "topic shift",
                                       "size limit"}
    headers = [c for frame in at.dataframe for c in frame.value.columns]
    assert not [c for c in headers if "_" in c]  # no raw field names
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


def test_a_failed_run_marks_the_earlier_result_as_stale(data_dir, fake_llm):  # noqa: F811
    at = page(fake_llm)
    run_button(at).click()
    at.run()
    assert "Last run: max 500 tokens" in texts(at)
    fake_llm.script(["Field Guide\t1\tone\t2\tROOT"])
    cache = LLMCache()
    cache.clear()  # so that phase 1 is asked again and meets the broken answer
    cache.close()
    run_button(at).click()
    at.run()
    assert not at.exception
    assert any("phase 1 (structure analysis) failed" in e.value for e in at.error)
    shown = texts(at)
    assert "the result of an earlier run (max 500 tokens" in shown
    assert "the last run failed" in shown
    assert at.dataframe[1].value["title"].str.strip().tolist() == [
        "Field Guide", "Install", "Operate"]


def test_tolerant_parsing_lists_its_repairs(data_dir, slipping_llm):  # noqa: F811
    at = page(slipping_llm)
    parsing = at.radio[1]
    assert parsing.label == "Parsing of the model's answers" and parsing.value == "strict"
    run_button(at).click()
    at.run()
    assert any("phase 1 (structure analysis) failed: line" in e.value for e in at.error)
    at.radio[1].set_value("tolerant")
    run_button(at).click()
    at.run()
    assert not at.exception and not at.error
    warning = next(w.value for w in at.warning if w.value.startswith("Done with"))
    assert "×" in warning
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Warnings"]) > 0
    table = next(f.value for f in at.dataframe if "raw line" in f.value.columns)
    assert len(table) == int(metrics["Warnings"].replace(",", ""))
    assert table["raw line"].str.len().max() > 0
    assert "tolerant parsing" in texts(at)


def test_the_inputs_are_kept_for_the_session(data_dir, fake_llm):  # noqa: F811
    at = page(fake_llm)
    at.number_input[0].set_value(300)
    at.radio[0].set_value("offsets")
    at.radio[1].set_value("tolerant")
    at.checkbox[0].uncheck()
    at.run()
    keys = [SHADOW + k for k in ("structure_size", "structure_mode", "structure_parsing",
                                 "structure_summaries")]
    kept = {key: at.session_state[key] for key in keys}
    assert list(kept.values()) == [300, "offsets", "tolerant", False]
    again = AppTest.from_file(PAGE, default_timeout=90)  # the page drawn afresh, as after a
    for key, value in kept.items():                      # visit to another page: only the
        again.session_state[key] = value                 # kept copies are left
    again.session_state[LLM_SETTINGS] = fake_llm.settings()
    again.run()
    assert again.number_input[0].value == 300 and again.radio[0].value == "offsets"
    assert again.radio[1].value == "tolerant" and again.checkbox[0].value is False


LONG = "# Long\n\n" + " ".join(f"Sentence number {i} says a little more." for i in range(60)) + "\n"


def test_chunks_cut_by_the_size_limit_are_noted(tmp_path, monkeypatch, fake_llm):  # noqa: F811
    for _ in use_samples(tmp_path, monkeypatch, {"long.md": LONG}):
        at = page(fake_llm)
        at.number_input[0].set_value(50)
        run_button(at).click()
        at.run()
        assert not at.exception and not at.error
        note = next(c.value for c in at.caption if "cut by the size limit" in c.value)
        assert re.match(r"\d+ chunks \(#2, ", note)
        assert note.endswith("were cut by the size limit of 50 tokens without asking the model.")

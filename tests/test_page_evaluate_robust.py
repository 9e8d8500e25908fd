"""The Evaluate page under AppTest: one configuration that cannot run (a chunk set that lacks the
question set's document) is reported as failed in its own row with its reason while the other
configurations' results are kept and shown and the progress bar is gone; mean tokens per
question beside recall and IoU; the map with the drill-down's question; autocut as a way to
retrieve."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.store import ChunkStore
from tests.pages import page_path, texts, use_samples
from tests.retrieval_helpers import HANDBOOK, SAMPLES, handbook_set

PAGE = page_path("evaluate")
POLICY = "insurance_policy.docx"
BROKEN = "chunk set: handbook only"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from use_samples(tmp_path_factory.mktemp("failures"), monkeypatch, {
            POLICY: (SAMPLES / POLICY).read_bytes(), HANDBOOK: (SAMPLES / HANDBOOK).read_text()})


@pytest.fixture(scope="module")
def ran(data) -> AppTest:
    handbook_set(ChunkStore(), "handbook only")  # holds no chunk of the insurance policy
    at = AppTest.from_file(PAGE, default_timeout=240).run()
    at.selectbox(key="evaluate_set").set_value("insurance_policy").run()
    at.multiselect(key="evaluate_configs").set_value(
        ["fixed 1000 chars", BROKEN, "recursive 500/50"]).run()
    at.radio(key="evaluate_rank").set_value("bm25").run()
    at.button(key="evaluate_run").click().run()
    assert not at.exception, at.exception
    return at


def test_a_failed_configuration_has_its_own_row_and_the_others_are_kept(ran):
    rows = ran.table[0].value
    assert list(rows.index) == ["fixed 1000 chars", BROKEN, "recursive 500/50"]
    assert list(rows["Status"]) == ["ok", "failed", "ok"]
    reason = rows.loc[BROKEN, "Reason"]
    assert "holds no chunk of insurance_policy" in reason
    assert "1 of 3 configurations failed" in texts(ran)
    metrics = ran.dataframe[0].value
    assert list(metrics.columns) == ["fixed 1000 chars", "recursive 500/50", "Winner"]
    evaluation = ran.session_state["evaluate_results"]["groups"]["top-5"]
    assert [r.candidate.label for r in evaluation] == ["fixed 1000 chars", "recursive 500/50"]
    assert not ran.error
    history = next(d for d in ran.dataframe if "Failed" in d.value.columns).value
    assert list(history["Configuration"]) == ["fixed 1000 chars", "recursive 500/50", BROKEN]
    assert "holds no chunk" in history["Failed"].iloc[2] and history["Failed"].iloc[0] == ""


def test_the_progress_bar_ends(ran):
    assert not ran.get("progress")


def test_mean_tokens_per_question_sit_beside_recall_and_iou(ran):
    rows = ran.table[0].value
    assert {"Recall", "IoU", "Mean tokens / question"} <= set(rows.columns)
    ok = rows[rows["Status"] == "ok"]
    assert all(float(v.replace(",", "")) > 0 for v in ok["Mean tokens / question"])
    evaluation = ran.session_state["evaluate_results"]["groups"]["top-5"]
    fixed = evaluation[0].metrics.overall.mean_tokens
    assert ok["Mean tokens / question"].iloc[0] == f"{fixed:,.0f}"


def test_the_map_shows_the_drill_down_question_with_what_it_retrieved(ran):
    ran.toggle(key="evaluate_map_on").set_value(True).run()
    assert not ran.exception, ran.exception
    [chart] = ran.get("plotly_chart")[1:]  # after the metrics' bars
    traces = {t["name"]: t for t in json.loads(chart.proto.spec)["data"]}
    assert {"insurance_policy.docx", "retrieved (rank)", "reference excerpt", "question",
            "chunk with reference text"} <= set(traces)
    evaluation = ran.session_state["evaluate_results"]["groups"]["top-5"]
    first = evaluation[0].questions[0]
    assert traces["question"]["hovertext"] == [first.question]
    assert traces["retrieved (rank)"]["text"] == [f"#{r.rank}" for r in first.retrieved]
    ran.selectbox(key="evaluate_map_config").set_value("recursive 500/50").run()
    assert not ran.exception


def test_autocut_is_a_way_to_retrieve(ran):
    ran.radio(key="evaluate_retrieval").set_value("autocut").run()
    ran.number_input(key="evaluate_k").set_value(10).run()
    ran.button(key="evaluate_run").click().run()
    assert not ran.exception, ran.exception
    evaluation = ran.session_state["evaluate_results"]["groups"]["autocut of top-10"]
    assert evaluation.autocut == 1 and len(evaluation.failures) == 1
    assert "ranking bm25 · autocut of top-10 · chunks" in texts(ran)
    assert all(len(q.retrieved) <= 10 for r in evaluation for q in r.questions)
    assert any(len(q.retrieved) < 10 for q in evaluation[0].questions)

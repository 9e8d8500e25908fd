"""The Evaluate page under AppTest when one configuration cannot run: a chunk set that lacks the
question set's document is reported as failed in its own row with its reason, the other
configurations' results are kept and shown, and the progress bar is gone."""

from __future__ import annotations

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
    rows = next(d for d in ran.dataframe if "Status" in d.value.columns).value
    assert list(rows["Configuration"]) == ["fixed 1000 chars", BROKEN, "recursive 500/50"]
    assert list(rows["Status"]) == ["ok", "failed", "ok"]
    reason = rows.set_index("Configuration").loc[BROKEN, "Reason"]
    assert "holds no chunk of insurance_policy" in reason
    assert "1 of 3 configurations failed" in texts(ran)
    metrics = ran.dataframe[0].value
    assert list(metrics.columns) == ["fixed 1000 chars", "recursive 500/50", "Winner"]
    evaluation = ran.session_state["evaluate_results"]["groups"]["top-5"]
    assert [r.candidate.label for r in evaluation] == ["fixed 1000 chars", "recursive 500/50"]
    assert not ran.error


def test_the_progress_bar_ends(ran):
    assert not ran.get("progress")


def test_mean_tokens_per_question_sit_beside_recall_and_iou(ran):
    rows = next(d for d in ran.dataframe if "Status" in d.value.columns).value
    assert {"Recall", "IoU", "Mean tokens / question"} <= set(rows.columns)
    ok = rows[rows["Status"] == "ok"]
    assert all(float(v.replace(",", "")) > 0 for v in ok["Mean tokens / question"])
    evaluation = ran.session_state["evaluate_results"]["groups"]["top-5"]
    fixed = evaluation[0].metrics.overall.mean_tokens
    assert ok["Mean tokens / question"].iloc[0] == f"{fixed:,.0f}"

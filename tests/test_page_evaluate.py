"""The Evaluate page under AppTest: pick a shipped set, run two presets, see metrics and the
table-question comparison, drill down, and keep earlier results when a later run fails."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "evaluate.py")


@pytest.fixture(scope="module")
def ran() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.run()
    assert not at.exception
    at.selectbox(key="evaluate_set").set_value("insurance_policy").run()
    at.multiselect(key="evaluate_configs").set_value(
        ["fixed 1000 chars", "recursive 500/50"]).run()
    at.radio(key="evaluate_rank").set_value("hybrid").run()
    at.button(key="evaluate_run").click().run()
    assert not at.exception, at.exception
    return at


def test_metrics_table_has_one_column_per_configuration_and_a_winner(ran):
    frame = ran.dataframe[0].value
    assert list(frame.columns) == ["fixed 1000 chars", "recursive 500/50", "Winner"]
    assert {"Recall", "Precision", "IoU", "Precision Ω", "Hit rate", "MRR",
            "Table-query accuracy"} <= set(frame.index)
    assert any("★" in str(v) for v in frame.values.ravel())
    assert not ran.error


def test_table_query_comparison_is_shown(ran):
    labels = [m.label for m in ran.metric]
    assert "Baseline: fixed 1000 chars" in labels and "recursive 500/50" in labels
    assert any("15% target" in c.value for c in ran.caption)


def test_drill_down_lists_each_reference_per_configuration(ran):
    coverage = ran.dataframe[1].value
    assert list(coverage.columns) == ["Reference", "fixed 1000 chars", "recursive 500/50"]
    assert all(v == "missed" or v.startswith("ranks ") for v in coverage.iloc[:, 1:].values.ravel())
    ran.selectbox(key="evaluate_question").set_value(3).run()
    assert not ran.exception


def test_rerun_is_cached_and_a_failing_run_keeps_results(ran):
    ran.button(key="evaluate_run").click().run()
    assert any("cached" in c.value for c in ran.caption)
    ran.multiselect(key="evaluate_configs").set_value(["fixed 1000 chars"]).run()
    assert ran.button(key="evaluate_run").disabled  # one configuration is not a comparison
    assert ran.dataframe[0].value.shape[1] == 3  # the earlier results stay

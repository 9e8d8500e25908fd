"""The Compare page under AppTest: two to four configurations, stats, errors, presets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.state
from core.chunking.registry import user_presets
from core.llm.settings import SESSION_KEY
from tests.fakellm import fake_llm  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "compare.py")
TABLE = "| Plan | Deductible | Limit |\n|---|---|---|\n" + "".join(
    f"| Plan {i} | ${i}00 | ${i},000 |\n" for i in range(40))
MARKDOWN = (
    "# Policy\n\n" + "The dwelling is covered against fire and wind. " * 60 + "\n\n"
    "## Limits\n\nTable 1: Coverage limits\n\n" + TABLE + "\n"
    "## Exclusions\n\n" + "Flood damage is excluded unless endorsed. " * 80 + "\n"
)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "policy.md").write_text(MARKDOWN)
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LLM_BASE_URL", raising=False)
    monkeypatch.delenv("LLM_MODEL", raising=False)
    monkeypatch.setattr(ui.state, "SAMPLES_DIR", samples)
    ui.state.library.clear()
    yield tmp_path / "data"
    ui.state.library.clear()


def run(at: AppTest | None = None) -> AppTest:
    at = at or AppTest.from_file(PAGE, default_timeout=90)
    at.run()
    assert not at.exception, at.exception
    return at


def stats(at: AppTest) -> dict:
    return at.dataframe[0].value.to_dict()


def test_two_configurations_side_by_side(data_dir) -> None:
    at = run()
    table = stats(at)
    assert list(table) == ["1. fixed 1000 chars", "2. recursive 500/50"]
    assert table["1. fixed 1000 chars"]["tables intact"] == "0/1"
    assert table["2. recursive 500/50"]["tables intact"] == "1/1"
    html = [h.proto.body for h in at.get("html")]
    assert len(html) == 2 and all("<mark" in h for h in html)
    assert 'class="cl-table"' in html[1] and 'class="cl-table"' not in html[0]
    assert len(at.get("plotly_chart")) == 3  # the shared strip and one histogram per column
    assert at.number_input(key="cmp_inspect_1").value == 1
    assert not at.error


def test_a_bad_setting_fails_only_its_column(data_dir) -> None:
    at = run()
    at.number_input(key="cmp_1_recursive 500/50_recursive_overlap").set_value(900)
    run(at)
    assert len(at.error) == 1 and "overlap must be between" in at.error[0].value
    assert "1. fixed 1000 chars" in stats(at)
    assert len(at.get("html")) == 1


def test_four_configurations_and_llm_without_endpoint(data_dir) -> None:
    at = run()
    at.radio(key="cmp_count").set_value(4)
    run(at)
    at.selectbox(key="cmp_strategy_3_recursive 500/50 by section").set_value("llm")
    run(at)
    assert len(stats(at)) == 3
    assert any("LLM_BASE_URL" in e.value for e in at.error)
    assert stats(at)["3. semantic"]["tables intact"] == "1/1"


def test_llm_uses_the_settings_typed_on_the_settings_page(data_dir, fake_llm) -> None:  # noqa: F811
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state[SESSION_KEY] = fake_llm.settings()
    at.run()
    at.selectbox(key="cmp_strategy_1_recursive 500/50").set_value("llm")
    at.run()
    assert not at.exception, at.exception
    assert not at.error
    assert "2. recursive 500/50 (edited)" in stats(at)
    assert fake_llm.requests, "the session's endpoint was not called"


def test_edit_and_save_a_named_preset(data_dir) -> None:
    at = run()
    at.number_input(key="cmp_1_recursive 500/50_recursive_size").set_value(200)
    run(at)
    assert "2. recursive 500/50 (edited)" in stats(at)
    assert int(stats(at)["2. recursive 500/50 (edited)"]["max tokens"]) > 200  # the table
    at.text_input(key="cmp_preset_name").set_value("small recursive")
    at.selectbox[-1].set_value(1)
    at.button[0].click()
    run(at)
    assert user_presets()["small recursive"][1]["size"] == 200
    assert json.loads((data_dir / "chunk_presets.json").read_text())
    assert "small recursive" in at.selectbox(key="cmp_preset_0").options

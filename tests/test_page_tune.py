"""The Tune page under AppTest: pick a shipped set, run a short tune, see the recommendation with
its held-back evidence, the front and every trial; save the winner as a preset; hand a
configuration of the front to Compare beside the best; a failing input keeps the last result."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import core.operations.tune.run
from core.config import SAMPLE_QUESTIONS_DIR
from core.errors import ChunkLabError
from core.evaluation.questions import parse_questions
from core.operations.presets import user_presets
from core.operations.questions.sets import save_set
from tests.pages import page_path, texts
from ui.persist import SHADOW
from ui.render import md_escape

PAGE = page_path("tune")


@pytest.fixture(scope="module")
def ran() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=600)
    at.run()
    assert not at.exception
    at.selectbox(key="tune_set").set_value("technical_handbook").run()
    at.number_input(key="tune_trials").set_value(4).run()
    at.button(key="tune_run").click().run()
    assert not at.exception, at.exception
    return at


def test_recommendation_says_what_and_how_sure_on_the_held_back_questions(ran):
    result = ran.session_state["tune_result"]["result"]
    assert len(result.trials) == 4
    [sentence] = [s.value for s in ran.success]
    assert result.recommendation.outcome.label in sentence.replace("\\", "")
    assert "held-back questions" in sentence
    assert any("search questions" in c.value for c in ran.caption)
    assert any("served from cache" in c.value for c in ran.caption)


def test_which_held_back_configuration_is_best_is_said_in_one_sentence(ran):
    state = ran.session_state["tune_result"]
    result = state["result"]
    best = result.recommendation.outcome.plan.key()
    two = {best: result.held_back[best],
           **dict([next((k, f) for k, f in result.held_back.items() if k != best)])}
    # two held back: the recommendation's comparison says it
    assert replace(result, held_back=two).held_back_best() is None
    figures = two[best]
    third = next(o for o in result.trials if o.plan.key() not in two)
    held = {**two, third.plan.key(): replace(figures, values=(0.0,) * len(figures.values))}
    at = AppTest.from_file(PAGE, default_timeout=600)
    at.session_state["tune_result"] = {**state, "result": replace(result, held_back=held)}
    at.run()
    assert not at.exception, at.exception
    best = at.session_state["tune_result"]["result"].held_back_best()
    assert best is not None and third.label in best.ruled_out
    assert best.sentence() in texts(at) and "held-back questions" in best.sentence()
    assert "Probability of being best" in [e.label for e in at.expander]


def test_front_table_and_trials_are_shown(ran):
    frames = {tuple(d.value.columns): d.value for d in ran.dataframe}
    front = next(f for cols, f in frames.items() if "held-back recall" in cols)
    result = ran.session_state["tune_result"]["result"]
    assert list(front["Configuration"]) == [o.label for o in result.front]
    assert "★" in set(front[""])
    trials = next(f for cols, f in frames.items() if "Trial" in cols)
    assert list(trials["Trial"]) == [1, 2, 3, 4]
    assert [c.key for c in ran.get("plotly_chart")].count("tune_pareto") == 1


def test_the_space_and_each_strategys_best_pair_are_shown(ran):
    [space] = [e for e in ran.expander if e.label == "What Tune tries"]
    shown = "\n".join(m.value for m in space.markdown)
    assert md_escape("floor: 0, 1, 2, 3 (retrieve autocut)") in shown
    assert md_escape("budget: 250, 500, 1000, 1500, 2000 (retrieve budget)") in shown  # ≤ 2,000
    result = ran.session_state["tune_result"]["result"]
    frames = {tuple(d.value.columns): d.value for d in ran.dataframe}
    table = next(f for cols, f in frames.items() if "Best configuration" in cols)
    assert list(table["Strategy"]) == [b.strategy for b in result.best_per_strategy()]
    assert {o.plan.candidate.strategy for o in result.trials} == set(table["Strategy"])
    assert md_escape(result.best_found_sentence()) in [i.value for i in ran.info]


def test_save_the_winner_as_a_preset(ran):
    ran.text_input(key="tune_preset_name").set_value("handbook winner").run()
    ran.button(key="tune_save").click().run()
    assert not ran.exception
    saved = user_presets()["handbook winner"]
    best = ran.session_state["tune_result"]["result"].recommendation.outcome
    assert saved.strategy == best.plan.candidate.strategy
    assert saved.ranking == best.plan.candidate.ranking
    assert any("handbook winner" in i.value for i in ran.info)


def test_the_saved_preset_keeps_the_whole_configuration(ran):
    ran.text_input(key="tune_preset_name").set_value("handbook whole").run()
    ran.button(key="tune_save").click().run()
    assert not ran.exception
    saved = user_presets()["handbook whole"]
    plan = ran.session_state["tune_result"]["result"].recommendation.outcome.plan
    assert (saved.embedder, saved.retrieval) == (plan.candidate.embedder, plan.retrieval)
    assert saved.merge_adjacent == plan.candidate.merge_adjacent
    assert saved.candidate().retrieval == plan.retrieval  # evaluated as the tune measured it


def test_open_a_configuration_in_compare_beside_the_best(ran):
    result = ran.session_state["tune_result"]["result"]
    other = next((o for o in result.front if o is not result.recommendation.outcome),
                 result.front[0])
    ran.selectbox(key="tune_pick").set_value(other.label)
    ran.button(key="tune_compare").click().run()
    state = ran.session_state
    best = result.recommendation.outcome
    assert state[SHADOW + "cmp0:label"] == best.label
    assert state[SHADOW + "cmp1:label"] == other.label or other is best
    chosen = state[SHADOW + "cmp0:preset"]
    strategy = best.plan.candidate.strategy
    assert state[SHADOW + f"cmp0:{chosen}:strategy"] == strategy
    for name, value in best.plan.candidate.settings.items():
        if name != "table_split":
            assert state[SHADOW + f"cmp0:{chosen}:{strategy}:{name}"] == value


def test_the_budget_and_the_knee_are_shown(ran):
    result = ran.session_state["tune_result"]["result"]
    assert result.budget.tokens == 2000  # no answer model configured in the tests
    assert any("Budget: no answer model is configured: 2,000 tokens" in c.value
               for c in ran.caption)
    assert all(o.search.tokens <= 2000 for o in [result.recommendation.outcome])
    [chart] = [c for c in ran.get("plotly_chart") if c.key == "tune_pareto"]
    figure = chart.proto.spec
    assert "budget 2,000 tokens" in figure and "recommended (the knee)" in figure


def test_a_reload_shows_the_last_result_for_the_inputs(ran):
    shown = ran.session_state["tune_result"]["result"]
    again = AppTest.from_file(PAGE, default_timeout=600)  # a new session: a reload
    again.run()
    assert not again.exception, again.exception
    assert again.number_input(key="tune_trials").value == 4  # the inputs were kept
    assert again.selectbox(key="tune_set").value == "technical_handbook"
    restored = again.session_state["tune_result"]["result"]
    assert [o.label for o in restored.trials] == [o.label for o in shown.trials]
    assert restored.recommendation.outcome.label == shown.recommendation.outcome.label
    assert any("read back from its study" in c.value for c in again.caption)
    assert again.get("plotly_chart")


def test_too_small_a_set_is_explained_before_the_click_and_the_last_result_stays(ran):
    before = ran.session_state["tune_result"]["result"]
    handbook = parse_questions(Path(SAMPLE_QUESTIONS_DIR, "technical_handbook.csv").read_bytes(),
                               "technical_handbook.csv")
    save_set("three questions", handbook.questions[:3])
    ran.run()
    ran.selectbox(key="tune_set").set_value("saved: three questions").run()
    assert not ran.exception
    assert any("at least 8 valid questions" in w.value for w in ran.warning)
    assert ran.button(key="tune_run").disabled and ran.button(key="tune_resume").disabled
    assert not [b for b in ran.button if b.key == "tune_cancel"]  # nothing looks under way
    assert ran.session_state["tune_result"]["result"] is before
    assert ran.get("plotly_chart")  # the last result is still drawn


def test_question_sets_page_says_what_tune_needs():
    at = AppTest.from_file(page_path("questions"), default_timeout=120)
    at.run()
    assert any("Tune needs at least 8 valid questions" in c.value for c in at.caption)


def test_include_front_matter_reaches_the_tune_and_its_stored_result(monkeypatch):
    tuned, looked_up = [], []

    def tune_seen(*_, include_front_matter, **__):
        tuned.append(include_front_matter)
        raise ChunkLabError("stopped before any trial")

    def stored_seen(*_, include_front_matter, **__):
        looked_up.append(include_front_matter)

    monkeypatch.setattr(core.operations.tune.run, "tune", tune_seen)
    monkeypatch.setattr(core.operations.tune.run, "stored_result", stored_seen)
    at = AppTest.from_file(PAGE, default_timeout=600)
    at.run()
    at.selectbox(key="tune_set").set_value("technical_handbook").run()
    assert at.checkbox(key="tune_front_matter").label == "Include front matter"
    at.checkbox(key="tune_front_matter").check().run()
    at.button(key="tune_run").click().run()
    assert tuned == [True]
    assert looked_up and looked_up[-1] is True
    at.checkbox(key="tune_front_matter").uncheck().run()
    at.button(key="tune_run").click().run()
    assert tuned == [True, False]

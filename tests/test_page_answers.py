"""The Answers page under AppTest: two prompt variants over one configuration on a shipped set
with the fake LLM server; the verdict, the figures, the answers side by side (escaped), the
disagreement filter, and the result back from the run history in a new session."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import core.operations.answers.run
import ui.resources
from core.errors import ChunkLabError
from core.operations.evaluation import Retrieval
from core.operations.presets import save_user_preset
from core.prompts.library import PromptLibrary
from core.store import ChunkSetInfo, ChunkStore
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.answer_variants import judge_or_quote, no_citation_text, quote_first_passage
from tests.pages import page_path, texts
from ui.answers_view import answer_html, passage_html

PAGE = page_path("answers")


@pytest.fixture
def page(tmp_path, monkeypatch, fake_llm):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    ui.resources.clear()
    PromptLibrary().save_variant("rag_system", "no cites", no_citation_text())
    fake_llm.respond(quote_first_passage)
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.run()
    assert not at.exception, at.exception
    yield at
    ui.resources.clear()


def test_two_variants_run_and_the_verdict_is_shown(page):
    at = page
    at.selectbox(key="answers_set").set_value("product_manual").run()
    at.selectbox(key="answers_config").set_value("preset: fixed 1000 chars").run()
    assert at.multiselect(key="answers_variants").value == ["default", "no cites"]
    at.number_input(key="answers_limit").set_value(8).run()
    assert "16 answers to grade" in texts(at)
    at.button(key="answers_run").click().run()
    assert not at.exception, at.exception
    [verdict] = [i.value for i in at.info]
    assert "no cites is worse than default on citing a source" in verdict.replace("\\", "")
    figures = next(d.value for d in at.dataframe if "variant" in d.value.columns)
    assert list(figures["variant"]) == ["default", "no cites"]
    assert figures["citing a source"][0].startswith("1.00 [")
    assert "temperature 0.0" in texts(at)
    # the answers of the first question side by side, markers linked to the passages
    bodies = [h.proto.body for h in at.get("html")]
    assert any('<a href="#a0-0-s1">[1]</a>' in b for b in bodies)
    assert any('id="a0-0-s1"' in b for b in bodies)
    assert any("<mark" in b and "reference excerpt" in b for b in bodies)
    at.checkbox(key="answers_disagree").check().run()
    assert not at.exception
    assert "of 8 questions" in texts(at)

    fresh = AppTest.from_file(PAGE, default_timeout=300)
    fresh.run()  # a new session: the last result comes back from the run history
    assert any("no cites is worse" in i.value.replace("\\", "") for i in fresh.info)
    assert any("Run history (1 kept)" in e.label for e in fresh.expander)


def test_the_judge_is_shown_apart_when_switched_on(page, fake_llm):  # noqa: F811
    fake_llm.respond(judge_or_quote)
    at = page
    at.selectbox(key="answers_set").set_value("product_manual").run()
    at.number_input(key="answers_limit").set_value(1).run()
    at.checkbox(key="answers_judge").check().run()
    assert "2 answers to grade and to judge" in texts(at)
    at.button(key="answers_run").click().run()
    assert not at.exception, at.exception
    judged = next(d.value for d in at.dataframe if "not judged" in d.value.columns)
    assert list(judged["faithfulness"]) == ["5.00 [5.00, 5.00]", "3.00 [3.00, 3.00]"]
    assert "Judge: 5/5 — cited" in texts(at)


def test_three_variants_say_which_is_best_and_how_sure(page):
    brief = json.loads(no_citation_text())
    brief["default"]["format_instruction"] = "Cite the passages as [1]."
    PromptLibrary().save_variant("rag_system", "brief", json.dumps(brief))
    at = page.run()
    at.selectbox(key="answers_set").set_value("product_manual").run()
    at.multiselect(key="answers_variants").set_value(["default", "no cites", "brief"]).run()
    at.number_input(key="answers_limit").set_value(4).run()
    at.button(key="answers_run").click().run()
    assert not at.exception, at.exception
    best = at.session_state["answers_result"]["best"]
    assert list(best["probabilities"]) == ["default", "no cites", "brief"]
    assert best["sentence"] in texts(at)
    assert "of resamples of the 3 questions" in best["sentence"]  # one is refused
    assert "Probability of being best" in [e.label for e in at.expander]


def test_one_variant_over_one_configuration_cannot_run(page):
    at = page
    at.selectbox(key="answers_set").set_value("product_manual").run()
    at.multiselect(key="answers_variants").set_value(["default"]).run()
    assert at.button(key="answers_run").disabled
    assert "Choose two or more variants" in texts(at)


def test_the_configuration_starts_from_the_active_set_else_the_tuned_preset(page):
    assert page.selectbox(key="answers_config").value == "preset: fixed 1000 chars"
    save_user_preset("by hand", "fixed", {"size": 300, "overlap": 0})
    save_user_preset("tuned: recursive 300/30", "recursive", {"size": 300, "overlap": 30},
                     retrieval=Retrieval(5), tuned=True)
    save_user_preset("tuned: fixed 200", "fixed", {"size": 200, "overlap": 0},
                     retrieval=Retrieval(4), tuned=True)
    save_user_preset("by hand later", "fixed", {"size": 400, "overlap": 0})
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.run()
    assert at.selectbox(key="answers_config").value == "preset: tuned: fixed 200"
    at.radio(key="answers_mode").set_value("configurations").run()
    assert at.multiselect(key="answers_configs").value[0] == "preset: tuned: fixed 200"
    at.radio(key="answers_mode").set_value("variants").run()

    store = ChunkStore()
    store.create_set(ChunkSetInfo(name="handbook set", strategy="recursive"))
    store.create_set(ChunkSetInfo(name="other set", strategy="fixed"))
    store.activate("handbook set")
    ui.resources.clear()
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="answers_config").value == "chunk set: handbook set"


def test_answers_are_escaped():
    body = answer_html("<script>x</script> see [1] and [7]", 2, "p")
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert '<a href="#p-s1">[1]</a>' in body and "<s " in body
    passage = passage_html({"marker": "[¹]", "source": "<b>.md", "spans": [[10, 30]],
                            "text": "<i>0123456789</i>abcdefghij"}, [[20, 25]], "p", 1, True)
    assert "<i>" not in passage and "&lt;b&gt;.md" in passage
    assert "<mark" in passage


def test_include_front_matter_reaches_the_answer_run(page, monkeypatch):
    asked = []

    def answers_seen(questions, documents, arms, settings, options, **_):
        asked.append(options.include_front_matter)
        raise ChunkLabError("stopped before any question")

    monkeypatch.setattr(core.operations.answers.run, "run_answers", answers_seen)
    at = page
    at.selectbox(key="answers_set").set_value("product_manual").run()
    at.button(key="answers_run").click().run()
    assert at.checkbox(key="answers_front_matter").label == "Include front matter"
    at.checkbox(key="answers_front_matter").check().run()
    at.button(key="answers_run").click().run()
    assert asked == [False, True]

"""The Question sets page under AppTest: generate with the fake LLM, edit, delete, add by
excerpt, mark as table question, save — and bad input explained, nothing lost."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.documents import convert
from core.evaluation.questions import UNANSWERABLE, Question, parse_questions
from core.operations.questions.sets import make_question, save_set, saved_csv, saved_sets
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK
from tests.pages import click, page_path, texts, use_samples


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm) -> Iterator[Path]:  # noqa: F811
    yield from use_samples(tmp_path, monkeypatch, {"claims_handbook.md": HANDBOOK})


def test_a_share_of_unanswerable_questions_is_generated(data, fake_llm, monkeypatch):  # noqa: F811
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    at.multiselect(key="questions_gen_docs").set_value(["claims_handbook.md"])
    at.number_input(key="questions_gen_n").set_value(5)
    at.number_input(key="questions_gen_unanswerable").set_value(0.2).run()
    assert "5 questions to write, 1 of them unanswerable" in texts(at)
    at = click(at, "questions_generate")
    assert not at.exception, at.exception
    kinds = list(at.dataframe[0].value["Kind"])
    assert len(kinds) == 5 and kinds.count(UNANSWERABLE) == 1
    assert "unanswerable_question" in fake_llm.phases


def _edit_key(at: AppTest, prefix: str) -> str:
    return next(w.key for w in [*at.text_input, *at.number_input, *at.checkbox]
                if w.key and w.key.startswith(prefix))


def test_generate_edit_delete_add_and_save(data, fake_llm, monkeypatch):  # noqa: F811
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    assert not at.exception
    at.multiselect(key="questions_gen_docs").set_value(["claims_handbook.md"])
    at.number_input(key="questions_gen_n").set_value(4).run()
    at = click(at, "questions_generate")
    frame = at.dataframe[0].value
    assert len(frame) == 4 and set(frame["Kind"]) == {"text", "table"}
    assert "generated · 4 questions" in [s.value for s in at.subheader]
    # unsaved: generating or opening again would replace them, so it waits for consent
    assert at.button(key="questions_generate").disabled
    at.checkbox(key="questions_discard").check().run()
    assert not at.button(key="questions_generate").disabled
    at.checkbox(key="questions_discard").uncheck().run()

    at.text_input(key=_edit_key(at, "qe_text_")).set_value("How long is the waiting period?")
    at.checkbox(key=_edit_key(at, "qe_kind_")).check()
    at = click(at, "questions_apply")
    frame = at.dataframe[0].value
    assert frame.loc[0, "Question"] == "How long is the waiting period?"
    assert frame.loc[0, "Kind"] == "table"

    _picker(at).set_value(1).run()
    at = click(at, "questions_delete")
    assert len(at.dataframe[0].value) == 3

    at.text_area(key="questions_add_excerpt").set_value(
        "an adjuster CALLS back within two   working days")
    at.text_input(key="questions_add_text").set_value("When does the adjuster call back?")
    at = click(at, "questions_add")
    assert not at.error, [e.value for e in at.error]
    frame = at.dataframe[0].value
    assert list(frame["Question"])[-1] == "When does the adjuster call back?"
    assert "An adjuster calls back within two working days" in list(frame["Excerpt"])[-1]

    at.text_input(key="questions_name_generated").set_value("claims set")
    at = click(at, "questions_save")
    assert "claims set" in saved_sets()
    saved = parse_questions(saved_csv("claims set")).questions
    assert [q.question for q in saved] == list(frame["Question"])
    assert saved[0].kind == "table" and "Saved 4 questions" in texts(at)
    at.run()
    assert not [c for c in at.checkbox if c.key == "questions_discard"]


def test_bad_excerpt_and_heading_are_explained_and_nothing_is_lost(data):
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    assert not at.exception
    assert "No LLM endpoint configured" in texts(at)
    at.text_area(key="questions_add_excerpt").set_value("words that are not in the handbook")
    at.text_input(key="questions_add_text").set_value("Anything?")
    at = click(at, "questions_add")
    assert any("not in the document" in e.value for e in at.error)
    at.text_area(key="questions_add_excerpt").set_value("")
    at.number_input(key="questions_add_start").set_value(2)
    at.number_input(key="questions_add_end").set_value(18)
    at = click(at, "questions_add")
    assert any("heading" in e.value for e in at.error)
    assert "my questions · 0 questions" in [s.value for s in at.subheader]


def _picker(at: AppTest):
    """The question picker (its key follows the questions it lists)."""
    return next(s for s in at.selectbox if s.label == "Question")


def test_a_generated_set_and_the_generator_inputs_survive_a_reload(data, fake_llm,  # noqa: F811
                                                                     monkeypatch):
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    at.multiselect(key="questions_gen_docs").set_value(["claims_handbook.md"])
    at.number_input(key="questions_gen_n").set_value(4)
    at.text_input(key="questions_gen_name").set_value("claims draft").run()
    at = click(at, "questions_generate")
    at.text_input(key=_edit_key(at, "qe_text_")).set_value("How long is the waiting period?")
    at = click(at, "questions_apply")

    again = AppTest.from_file(page_path("questions"), default_timeout=120).run()  # a reload
    assert not again.exception
    assert "claims draft · 4 questions" in [s.value for s in again.subheader]
    assert again.dataframe[0].value.loc[0, "Question"] == "How long is the waiting period?"
    assert "kept as a draft in the data folder" in texts(again)
    assert again.multiselect(key="questions_gen_docs").value == ["claims_handbook.md"]
    assert again.number_input(key="questions_gen_n").value == 4
    assert again.text_input(key="questions_gen_name").value == "claims draft"
    assert again.button(key="questions_generate").disabled  # still unsaved: consent first

    again = click(again, "questions_discard_draft")
    assert "my questions · 0 questions" in [s.value for s in again.subheader]
    fresh = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    assert "my questions · 0 questions" in [s.value for s in fresh.subheader]
    assert not fresh.button(key="questions_generate").disabled


def test_a_question_is_marked_unanswerable_by_hand(data):
    document = convert(HANDBOOK.encode(), "claims_handbook.md")
    start = document.text.index("adjuster")
    asked = make_question(document, "Who calls back?", start, start + 40, "text")
    without = Question(3, "Are pets covered?", "claims_handbook.md", (), UNANSWERABLE)
    save_set("mine", [asked, without])
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    at.selectbox(key="questions_saved").set_value("mine").run()
    at = click(at, "questions_open")
    at.checkbox(key=_edit_key(at, "qe_unanswerable_")).check()
    at = click(at, "questions_apply")
    assert list(at.dataframe[0].value["Kind"]) == ["unanswerable", "unanswerable"]
    _picker(at).set_value(1).run()
    assert not at.exception, at.exception
    assert "Unanswerable, with no excerpt" in texts(at)


def test_the_check_panel_lists_what_would_spoil_a_run(data):
    document = convert(HANDBOOK.encode(), "claims_handbook.md")
    start = document.text.index("adjuster")
    asked = make_question(document, "Who calls the claimant back?", start, start + 40, "text")
    again = Question(3, "Who calls the claimant back?", "claims_handbook.md", asked.references)
    empty = Question(4, "What does the document say about this?", "claims_handbook.md",
                     asked.references)
    save_set("spoilt", [asked, again, empty])
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    at.selectbox(key="questions_saved").set_value("spoilt").run()
    at = click(at, "questions_open")
    at.number_input(key="questions_check_points").set_value(10)
    at = click(at, "questions_check")
    findings = next(d.value for d in at.dataframe if "Finding" in d.value.columns)
    assert list(zip(findings["Row"], findings["Finding"], strict=True)) == [
        (3, "duplicate"), (4, "no content word"), (4, "near-duplicate")]
    assert "3 findings in 3 questions" in texts(at)
    assert "To tell 10 points of recall apart" in texts(at) and "this one has 3: too few" in \
        texts(at)


def test_passages_are_suggested_for_a_new_question_and_found_for_the_set(data):
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    at.text_input(key="questions_add_text").set_value("How long is the waiting period for "
                                                      "water damage?").run()
    at = click(at, "questions_suggest")
    assert "Passage 1: characters" in texts(at)
    at = click(at, "questions_suggest_use_1")
    assert not at.error, [e.value for e in at.error]
    frame = at.dataframe[0].value
    assert list(frame["Question"]) == ["How long is the waiting period for water damage?"]
    assert frame.loc[0, "Excerpt"].startswith("Water damage claims have a waiting period")

    at = click(at, "questions_evidence_go")
    found = next(d.value for d in at.dataframe if "Passage" in d.value.columns)
    assert list(found["Rank"])[0] == 1 and bool(list(found["Reference"])[0])
    assert "among them for 1 of the 1 with a reference" in texts(at)


def test_an_alternative_is_added_kept_through_an_edit_and_removed(data):
    document = convert(HANDBOOK.encode(), "claims_handbook.md")
    start = document.text.index("Claims are reported")
    save_set("mine", [make_question(document, "How do I report a claim?", start, start + 70)])
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    at.selectbox(key="questions_saved").set_value("mine").run()
    at = click(at, "questions_open")
    at.text_area(key=_edit_key_area(at, "qe_alt_excerpt_")).set_value(
        "an adjuster calls back within two working days")
    at = click(at, "questions_alt_add")
    assert not at.error, [e.value for e in at.error]
    assert list(at.dataframe[0].value["Alternatives"]) == [1]
    at.text_input(key=_edit_key(at, "qe_text_")).set_value("How is a claim reported?")
    at = click(at, "questions_apply")
    assert list(at.dataframe[0].value["Alternatives"]) == [1]
    assert "Alternative 1, characters" in texts(at)
    at = click(at, "questions_alt_remove_1")
    assert list(at.dataframe[0].value["Alternatives"]) == [0]
    at.text_area(key=_edit_key_area(at, "qe_alt_excerpt_")).set_value("not in the handbook")
    at = click(at, "questions_alt_add")
    assert any("not in the document" in e.value for e in at.error)


def _edit_key_area(at: AppTest, prefix: str) -> str:
    return next(w.key for w in at.text_area if w.key and w.key.startswith(prefix))

"""Inputs survive a page switch (Streamlit forgets the widgets of a page not shown), and the
choices worth keeping survive a restart: the app under AppTest, going to another page and back."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.store import ChunkStore
from tests.docfactory import inspection_markdown
from tests.pages import ROOT, use_samples
from tests.retrieval_helpers import handbook_set

APP = str(ROOT / "app.py")


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    yield from use_samples(tmp_path, monkeypatch, {
        f"{topic}.md": inspection_markdown(topic) for topic in ("boilers", "chimneys")})


def open_page(page: str, at: AppTest | None = None) -> AppTest:
    at = at or AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def test_assemble_keeps_its_inputs_across_a_page_switch_and_the_question_across_a_restart(data):
    handbook_set(ChunkStore(), "handbook")
    at = open_page("assemble")
    at.text_area(key="assemble_question").set_value("How many coordinators fail?")
    at.selectbox(key="assemble_system").set_value("library")
    at.text_input(key="assemble_locale").set_value("ja")
    at.number_input(key="assemble_headroom").set_value(450)
    at.toggle(key="assemble_merge:handbook").set_value(True)
    at.run()
    at = open_page("home", at)
    assert "assemble_question" not in [w.key for w in at.text_area]
    at = open_page("assemble", at)
    assert at.text_area(key="assemble_question").value == "How many coordinators fail?"
    assert at.selectbox(key="assemble_system").value == "library"
    assert at.text_input(key="assemble_locale").value == "ja"
    assert at.number_input(key="assemble_headroom").value == 450
    assert at.toggle(key="assemble_merge:handbook").value is True
    restarted = open_page("assemble")  # a new session on the same data folder
    assert restarted.text_area(key="assemble_question").value == "How many coordinators fail?"
    assert restarted.selectbox(key="assemble_system").value == "library"


def test_prompts_keeps_the_template_and_unsaved_edits(data):
    at = open_page("prompts")
    assert at.selectbox(key="pw_template").value == "structure_analysis"  # the first phase
    at.selectbox(key="pw_template").set_value("topic_detection").run()
    editor = at.text_area(key="pw_text::topic_detection::default")
    editor.set_value(editor.value + "\nBe brief.").run()
    at = open_page("documents", at)
    at = open_page("prompts", at)
    assert at.selectbox(key="pw_template").value == "topic_detection"
    assert at.text_area(key="pw_text::topic_detection::default").value.endswith("Be brief.")
    at.selectbox(key="pw_template").set_value("table_summary").run()
    warning = "\n".join(w.value for w in at.warning)
    assert "Unsaved edits are kept as drafts in: Topic detection · default" in warning
    at.selectbox(key="pw_template").set_value("topic_detection").run()
    assert at.text_area(key="pw_text::topic_detection::default").value.endswith("Be brief.")
    assert open_page("prompts").selectbox(key="pw_template").value == "topic_detection"


def test_chunk_sets_keeps_its_form_across_a_page_switch(data):
    at = open_page("store")
    at.selectbox(key="store:preset").set_value("fixed 500 tokens").run()
    at.text_input(key="store_name").set_value("my set").run()
    at.text_input(key="store_description").set_value("for the demo").run()
    at = open_page("compare", at)
    at = open_page("store", at)
    assert at.selectbox(key="store:preset").value == "fixed 500 tokens"
    assert at.text_input(key="store_name").value == "my set"
    assert at.text_input(key="store_description").value == "for the demo"

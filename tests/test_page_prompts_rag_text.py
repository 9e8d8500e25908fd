"""The RAG answer template edited as text on the Prompts page: a box per field of a locale,
each edit written into the template's JSON; another locale keeps only what it changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.prompts.library import PromptLibrary
from core.prompts.rag_fields import FIELDS, field_values, with_field

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "prompts.py")
EDITOR = "pw_text::rag_system::default"


@pytest.fixture
def at(monkeypatch, tmp_path) -> AppTest:
    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    app = AppTest.from_file(PAGE, default_timeout=120)
    app.run()
    app.selectbox(key="pw_template").set_value("rag_system").run()
    assert not app.exception, app.exception
    return app


def test_a_field_typed_as_text_changes_the_template(at):
    role = at.text_input(key=f"{EDITOR}::default::role")
    assert role.value.startswith("an assistant who answers")
    role.set_value("a careful insurance assistant").run()
    assert not at.exception, at.exception
    table = json.loads(at.session_state[EDITOR])
    assert table["default"]["role"] == "a careful insurance assistant"
    rules = at.text_area(key=f"{EDITOR}::default::rules")
    rules.set_value("Answer briefly.\n\n  Cite every passage you use.  ").run()
    table = json.loads(at.session_state[EDITOR])
    assert table["default"]["rules"] == ["Answer briefly.", "Cite every passage you use."]
    assert any("edited, not saved" in c.value for c in at.caption)


def test_another_locale_keeps_only_what_it_changes(at):
    at.selectbox(key=f"{EDITOR}::locale").set_value("ja").run()
    at.text_input(key=f"{EDITOR}::ja::role").set_value("保険の専門家").run()
    assert not at.exception, at.exception
    table = json.loads(at.session_state[EDITOR])
    assert table["ja"]["role"] == "保険の専門家"
    assert table["default"]["role"].startswith("an assistant who answers")


def test_fields_round_trip_through_the_json(tmp_path):
    text = PromptLibrary(tmp_path).default("rag_system").text
    values = field_values(text, "default")
    assert set(values) == {f.key for f in FIELDS}
    lead = next(f for f in FIELDS if f.key == "reference.lead")
    changed = with_field(text, "default", lead, "Passages:")
    assert field_values(changed, "default")["reference.lead"] == "Passages:"
    assert with_field(changed, "default", lead, "Passages:") == changed

"""The Prompts page under AppTest: edit a template, see the checks, the preview, the diff, save a
variant; with no LLM endpoint the Test tab says what to set up."""

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.config import data_dir
from core.prompts.library import PromptLibrary
from core.prompts.rag_fields import FIELDS, field_values, with_field
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.pages import shown

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "prompts.py")
TOPIC_TEXT = "pw_text::topic_detection::default"
RAG_TEXT = "pw_text::rag_system::default"


@pytest.fixture
def at(monkeypatch, tmp_path) -> AppTest:
    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .streamlit/secrets.toml, no saved LLM settings
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    app = AppTest.from_file(PAGE, default_timeout=120)
    app.run()
    assert not app.exception, app.exception
    app.selectbox(key="pw_template").set_value("topic_detection").run()
    assert not app.exception, app.exception
    return app


def open_tab(at: AppTest, label: str) -> AppTest:
    """Open one of the tabs under the input (only the open one is drawn)."""
    at.session_state["pw_tabs"] = label
    at.run()
    assert not at.exception, at.exception
    return at


def texts(elements) -> str:
    """The elements' texts as a reader sees them (Markdown escapes removed)."""
    return "\n".join(shown(str(e.value)) for e in elements)


def test_default_template_is_clean_and_previewed(at):
    assert "Every placeholder is known and used." in texts(at.success)
    preview = texts(at.code)
    assert 'Current topic: "home insurance deductibles"' in preview
    assert "{{userMessage}}" not in preview
    assert any("prompt tokens of the" in p.proto.text for p in at.get("progress"))


def test_unknown_placeholder_warns_live_and_stays_in_preview(at):
    editor = at.text_area(key=TOPIC_TEXT)
    editor.set_value(editor.value + "\nAlso: {{ mood }}").run()
    warnings = texts(at.warning)
    assert "{{mood}} is not a placeholder of this template" in warnings
    assert "{{ mood }}" in texts(at.code)
    assert "edited, not saved" in texts(at.caption)
    assert "+Also: {{ mood }}" not in texts(at.code)  # the diff is drawn when its tab opens
    open_tab(at, "Diff vs default")
    assert "+Also: {{ mood }}" in texts(at.code)  # the diff against the default


def test_insert_button_and_marker(at):
    editor = at.text_area(key=TOPIC_TEXT)
    editor.set_value("Topic? @@ please").run()
    at.button(key="pw_ins::topic_detection::userMessage").click().run()
    assert at.text_area(key=TOPIC_TEXT).value == "Topic? {{userMessage}} please"
    at.button(key="pw_ins::topic_detection::currentTopic").click().run()
    assert at.text_area(key=TOPIC_TEXT).value.endswith("please\n{{currentTopic}}")
    warnings = texts(at.warning)
    assert "{{conversationContext}} is not used" in warnings
    reset = next(b for b in at.button if b.label == "Reset to default")
    reset.click().run()
    assert at.text_area(key=TOPIC_TEXT).value == PromptLibrary().default("topic_detection").text


def test_save_variant_then_use_it(at):
    editor = at.text_area(key=TOPIC_TEXT)
    editor.set_value(editor.value + "\nBe brief.").run()
    at.text_input(key="pw_new_variant::topic_detection").set_value("brief v1").run()
    next(b for b in at.button if b.label == "Save").click().run()
    assert not at.exception, at.exception
    assert "Saved variant “brief v1”" in texts(at.success)
    assert at.selectbox(key="pw_variant::topic_detection").value == "brief v1"
    saved = PromptLibrary().template("topic_detection", "brief v1")
    assert saved.text.endswith("Be brief.")
    next(b for b in at.button if b.label == "Use in the app").click().run()
    assert PromptLibrary().active("topic_detection") == "brief v1"
    next(b for b in at.button if b.label == "Delete variant").click().run()
    assert PromptLibrary().variants("topic_detection") == []
    assert not (data_dir() / "prompts" / "active.json").exists() or json.loads(
        (data_dir() / "prompts" / "active.json").read_text()).get("topic_detection") is None


def test_saving_edits_as_a_variant_leaves_no_draft_behind(at):
    editor = at.text_area(key=TOPIC_TEXT)
    editor.set_value(editor.value + "\nBe brief.").run()
    at.text_input(key="pw_new_variant::topic_detection").set_value("brief v2").run()
    next(b for b in at.button if b.label == "Save").click().run()
    assert "Saved variant “brief v2”" in texts(at.success)
    assert "Unsaved edits" not in texts(at.warning)  # the edits are the saved variant now
    at.selectbox(key="pw_variant::topic_detection").set_value("default").run()
    assert at.text_area(key=TOPIC_TEXT).value == PromptLibrary().default("topic_detection").text
    assert "Unsaved edits" not in texts(at.warning)


def test_save_with_the_name_box_empty_updates_the_variant_being_edited(at):
    editor = at.text_area(key=TOPIC_TEXT)
    editor.set_value(editor.value + "\nBe brief.").run()
    at.text_input(key="pw_new_variant::topic_detection").set_value("brief").run()
    next(b for b in at.button if b.label == "Save").click().run()
    box = at.text_input(key="pw_new_variant::topic_detection")
    assert box.value == "" and "Save updates “brief”" in box.placeholder
    editor = at.text_area(key="pw_text::topic_detection::brief")
    editor.set_value(editor.value + " Briefer.").run()
    next(b for b in at.button if b.label == "Save").click().run()
    assert not texts(at.error)
    assert "Saved variant “brief”" in texts(at.success)
    assert PromptLibrary().variants("topic_detection") == ["brief"]
    assert PromptLibrary().template("topic_detection", "brief").text.endswith("Be brief. Briefer.")


def test_save_with_the_name_box_empty_on_the_default_asks_for_a_name(at):
    editor = at.text_area(key=TOPIC_TEXT)
    editor.set_value(editor.value + "\nBe brief.").run()
    next(b for b in at.button if b.label == "Save").click().run()
    assert "Type a name for the new variant: the shipped default stays as it is." in texts(
        at.error)
    assert PromptLibrary().variants("topic_detection") == []
    assert at.text_area(key=TOPIC_TEXT).value.endswith("Be brief.")  # the edits are kept


def test_the_answer_prompt_editor_names_the_markers_the_grader_reads(at):
    at.selectbox(key="pw_template").set_value("rag_system").run()
    assert "graded on the markers [1], [¹] and [^1] alike" in texts(at.caption)


def test_bad_variant_name_is_one_sentence(at):
    at.text_input(key="pw_new_variant::topic_detection").set_value("default").run()
    next(b for b in at.button if b.label == "Save").click().run()
    assert '"default" is the shipped template' in texts(at.error)


def test_no_endpoint_test_tab_explains_setup(at):
    open_tab(at, "Test")
    info = texts(at.info)
    assert "No LLM endpoint configured" in info and "LLM_BASE_URL" in info


def test_settings_typed_on_the_settings_page_enable_the_test(at):
    from core.llm.settings import LLMSettings
    from ui.resources import LLM_SETTINGS

    at.session_state[LLM_SETTINGS] = LLMSettings(base_url="http://127.0.0.1:9/v1", model="m")
    open_tab(at, "Test")
    assert not at.exception
    assert "No LLM endpoint configured" not in texts(at.info)
    assert any(b.label == "Run test" for b in at.button)


def test_structure_template_previews_anchored_document(at):
    at.selectbox(key="pw_template").set_value("structure_analysis").run()
    assert not at.exception, at.exception
    preview = texts(at.code)
    assert re.search(r"^\[\d+\] ", preview, re.MULTILINE)
    assert "{{document_text}}" not in preview


def test_rag_template_shows_json_errors_and_locale_preview(at):
    at.selectbox(key="pw_template").set_value("rag_system").run()
    at.selectbox(key="pw_locale").set_value("ja-JP").run()
    assert "# 参考資料" in texts(at.code)
    at.text_area(key="pw_text::rag_system::default").set_value('{"default": ').run()
    assert "not valid JSON" in texts(at.error)
    assert not at.exception


def test_ab_says_when_a_and_b_are_the_same_text(at):
    same = "A and B hold the same text"
    open_tab(at, "A/B")
    assert same in texts(at.info)  # editor = default at first
    editor = at.text_area(key=TOPIC_TEXT)
    editor.set_value(editor.value + "\nBe brief.").run()
    assert same not in texts(at.info)


def test_a_rag_test_shows_the_answer_rendered_with_its_citations_checked(at, fake_llm):  # noqa: F811
    fake_llm.respond(lambda request: "The **deductible** is 500 EUR [1]. Also [7].")
    at.session_state["llm_settings"] = fake_llm.settings()
    at.selectbox(key="pw_template").set_value("rag_system").run()
    open_tab(at, "Test")
    next(b for b in at.button if b.key == "pw_run").click().run()
    assert not at.exception, at.exception
    answer = next(m.value for m in at.markdown if "500 EUR [" in m.value)
    assert answer.startswith("The **deductible** is 500 EUR [\\[1\\]](#pw-ref-1).")
    assert "~~\\[7\\]~~" in answer
    assert "[⁷]" in texts(at.error)  # no reference behind it


def rag(at: AppTest) -> AppTest:
    at.selectbox(key="pw_template").set_value("rag_system").run()
    assert not at.exception, at.exception
    return at


def test_a_rag_field_typed_as_text_changes_the_template(at):
    at = rag(at)
    role = at.text_input(key=f"{RAG_TEXT}::default::role")
    assert role.value.startswith("an assistant who answers")
    role.set_value("a careful insurance assistant").run()
    assert not at.exception, at.exception
    table = json.loads(at.session_state[RAG_TEXT])
    assert table["default"]["role"] == "a careful insurance assistant"
    rules = at.text_area(key=f"{RAG_TEXT}::default::rules")
    rules.set_value("Answer briefly.\n\n  Cite every passage you use.  ").run()
    table = json.loads(at.session_state[RAG_TEXT])
    assert table["default"]["rules"] == ["Answer briefly.", "Cite every passage you use."]
    assert any("edited, not saved" in c.value for c in at.caption)


def test_another_locale_keeps_only_what_it_changes(at):
    at = rag(at)
    at.selectbox(key=f"{RAG_TEXT}::locale").set_value("ja").run()
    at.text_input(key=f"{RAG_TEXT}::ja::role").set_value("保険の専門家").run()
    assert not at.exception, at.exception
    table = json.loads(at.session_state[RAG_TEXT])
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


def test_the_judge_template_is_edited_and_previewed_like_the_others(at):
    at.selectbox(key="pw_template").set_value("judge").run()
    assert not at.exception, at.exception
    assert "{{answer}}" in at.text_area(key="pw_text::judge::default").value
    assert any("Every placeholder is known and used" in s.value for s in at.success)
    assert any("Answer to grade:" in c.value for c in at.code)  # the preview

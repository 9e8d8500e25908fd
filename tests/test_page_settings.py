# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""The Settings page under AppTest: save settings, keep the key out of sight, test a connection
before saving, fit the form to the server, presets and the model list, the key lost on refresh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.llm.settings import (
    JUDGE_SOURCE,
    LLMSettings,
    load_judge_settings,
    save_settings,
    settings_path,
)
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.pages import shown
from ui.resources import JUDGE_SETTINGS, LLM_SETTINGS

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "settings.py")
SECRET = "sk-page-secret-987"


@pytest.fixture(autouse=True)
def clean_env(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no .streamlit/secrets.toml here
    for name in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", *JUDGE_SOURCE.env.values()):
        monkeypatch.delenv(name, raising=False)


def shown_text(at: AppTest) -> str:
    parts = []
    for kind in ("markdown", "caption", "text", "success", "info", "warning", "error", "code"):
        parts += [str(getattr(el, "value", "")) for el in at.get(kind)]
    parts += [str(w.value) for w in at.text_input]
    return "\n".join(parts)


def press(at: AppTest, label: str) -> AppTest:
    next(b for b in at.button if b.label == label).click()
    at.run()
    assert not at.exception, at.exception
    return at


def fill(at: AppTest, base_url: str, key: str, model: str, button: str = "Save") -> None:
    at.text_input(key="llm_base_url").input(base_url)
    next(t for t in at.text_input if t.label == "API key").input(key)
    at.text_input(key="llm_model").input(model)
    press(at, button)


def test_unconfigured_page_says_what_to_set():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert any("LLM_BASE_URL" in i.value for i in at.info)
    assert "Settings page" not in shown_text(at)
    assert at.slider(key="answer_temperature").value == 0.7
    assert at.slider(key="llm_temperature").value == 0.3
    at.text_input(key="llm_base_url").input("")
    press(at, "Test connection")
    assert any("Fill in a base URL and a model first" in e.value for e in at.error)


def test_save_keeps_the_key_in_the_session_only(fake_llm):  # noqa: F811
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    fill(at, fake_llm.base_url, SECRET, "fake")
    assert not at.exception
    saved: LLMSettings = at.session_state[LLM_SETTINGS]
    assert saved.base_url == fake_llm.base_url and saved.model == "fake"
    assert saved.api_key.get_secret_value() == SECRET
    on_disk = settings_path().read_text()
    assert SECRET not in on_disk and json.loads(on_disk)["model"] == "fake"
    assert SECRET not in shown_text(at)
    assert any("set for this session" in c.value for c in at.caption)

    next(b for b in at.button if b.label == "Test connection").click()
    at.run()
    assert not at.exception
    assert any(s.value.startswith("Connected: fake answered in") for s in at.success)
    assert "fake" in at.dataframe[-1].value["models the endpoint lists"].tolist()
    assert fake_llm.phases == ["connection_test"]
    assert SECRET not in shown_text(at)


def test_preset_fills_the_base_url_and_resets_the_model():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.text_input(key="llm_model").input("my-model")
    at.selectbox(key="llm_preset").select("Ollama").run()
    assert at.text_input(key="llm_base_url").value == "http://127.0.0.1:11434/v1"
    assert at.text_input(key="llm_model").value == "qwen2.5:1.5b"
    at.selectbox(key="llm_preset").select("llama.cpp server").run()
    assert at.text_input(key="llm_base_url").value == "http://127.0.0.1:8080/v1"
    assert at.text_input(key="llm_model").value == "local"


def test_connection_is_tested_before_saving_and_the_model_picked_from_the_list(fake_llm):
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    fill(at, fake_llm.base_url, "", "elsewhere", button="Test connection")
    assert not settings_path().exists()  # tested, not saved
    assert not at.session_state[LLM_SETTINGS].configured
    assert any("does not list 'elsewhere'" in w.value for w in at.warning)
    at.selectbox(key="llm_model_pick").select("fake").run()
    assert at.text_input(key="llm_model").value == "fake"
    press(at, "Save")
    assert at.session_state[LLM_SETTINGS].model == "fake"


def test_a_slow_server_gets_the_long_timeout_it_needs_in_the_form(fake_llm):
    fake_llm.serve_llama(n_ctx=8192, slots=1, predicted_per_second=2.0, prompt_per_second=20.0)
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    fill(at, fake_llm.base_url, "", "fake", button="Test connection")
    facts = at.dataframe[0].value
    suggested = dict(zip(facts["what"], facts["value"], strict=True))["Suggested timeout"]
    assert float(suggested.removesuffix(" s").replace(",", "")) > 600  # reads and writes slowly
    assert at.number_input(key="llm_timeout").value == float(
        suggested.removesuffix(" s").replace(",", ""))
    assert not at.exception


def test_server_facts_are_shown_and_fill_the_form(fake_llm):
    fake_llm.serve_llama(n_ctx=2048, slots=2, n_params=135_000_000)
    fake_llm.structured = fake_llm.grammar = True  # as llama.cpp
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.number_input(key="llm_concurrency").set_value(4)
    fill(at, fake_llm.base_url, "", "fake", button="Test connection")
    assert at.number_input(key="llm_context").value == 2048
    assert at.number_input(key="llm_concurrency").value == 2
    assert at.number_input(key="llm_timeout").value >= 30
    assert any("now fit what the server reports" in i.value for i in at.info)
    facts = at.dataframe[0].value
    shown = dict(zip(facts["what"], facts["value"], strict=True))
    assert shown["Context per request"] == "2,048 tokens"
    assert shown["Slots (requests computed at once)"] == "2"
    assert shown["Token counts"] == "the server's tokenizer"
    assert shown["Structured output (JSON schema)"].startswith("yes")
    assert "summaries compact" in shown["Structured output (JSON schema)"]
    assert any("This model is small" in w.value for w in at.warning)
    assert "1.5 B parameters" in shown_text(at)  # which model sizes work
    press(at, "Save")
    saved = at.session_state[LLM_SETTINGS]
    assert (saved.context_tokens, saved.concurrency) == (2048, 2)


def test_a_model_that_ignores_the_instruction_is_not_just_connected(fake_llm):
    fake_llm.script(["Hello! How can I help you today?"])
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    fill(at, fake_llm.base_url, "", "fake", button="Test connection")
    assert not at.success
    assert any(w.value.startswith("Connected, but the model did not follow a simple "
                                  "instruction") for w in at.warning)


def test_the_page_warns_when_the_key_is_gone_after_a_refresh(fake_llm):
    save_settings(LLMSettings(base_url=fake_llm.base_url, model="fake", api_key=SECRET,
                              needs_key=True))
    at = AppTest.from_file(PAGE, default_timeout=60).run()  # a new session: no key
    assert any(w.value.startswith("The API key is gone") for w in at.warning)
    fill(at, fake_llm.base_url, SECRET, "fake")
    assert not any("The API key is gone" in w.value for w in at.warning)


def test_failed_connection_test_shows_one_sentence(monkeypatch):
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    fill(at, "http://127.0.0.1:9/v1", "", "m")
    next(b for b in at.button if b.label == "Test connection").click()
    at.run()
    assert not at.exception
    assert any("listing models at http://127.0.0.1:9/v1 failed" in shown(e.value)
               for e in at.error)


def test_forget_the_key(fake_llm):  # noqa: F811
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    fill(at, fake_llm.base_url, SECRET, "fake")
    assert next(t for t in at.text_input if t.label == "API key").value == ""  # emptied
    at.checkbox(key="llm_forget").check()
    next(b for b in at.button if b.label == "Save").click()
    at.run()
    assert at.session_state[LLM_SETTINGS].api_key.get_secret_value() == ""
    assert any("API key: not set" in c.value for c in at.caption)


def _key_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("API key:"))


def test_a_key_typed_and_tested_but_not_saved_reads_not_saved_yet(fake_llm):
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert _key_caption(at).startswith("API key: not set")
    fill(at, fake_llm.base_url, SECRET, "fake", button="Test connection")
    assert _key_caption(at).startswith("API key: typed, not saved yet")
    press(at, "Save")
    assert _key_caption(at).startswith("API key: set for this session")


def _judge_button(at: AppTest, label: str):
    return next(b for b in at.button
                if b.label == label and b.key.startswith("FormSubmitter:judge_form"))


def test_the_judge_has_its_own_form_tested_and_saved_without_its_key(fake_llm):  # noqa: F811
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.text_input(key="judge_base_url").input(fake_llm.base_url)
    at.text_input(key="judge_model").input("fake")
    at.text_input(key="judge_api_key_input").input(SECRET)
    _judge_button(at, "Test").click()
    at.run()
    assert not at.exception
    assert any(s.value.startswith("Connected: fake answered in") for s in at.success)
    assert fake_llm.phases == ["connection_test"]
    assert not JUDGE_SOURCE.path().exists()  # tested, not saved
    assert at.session_state[LLM_SETTINGS].model == ""  # the connection is another form's
    at.text_input(key="judge_api_key_input").input(SECRET)
    _judge_button(at, "Save").click()
    at.run()
    saved: LLMSettings = at.session_state[JUDGE_SETTINGS]
    assert (saved.model, saved.api_key.get_secret_value()) == ("fake", SECRET)
    on_disk = JUDGE_SOURCE.path().read_text()
    assert SECRET not in on_disk and json.loads(on_disk)["model"] == "fake"
    assert load_judge_settings().model == "fake"  # what answer runs judge with
    assert SECRET not in shown_text(at)

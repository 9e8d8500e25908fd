"""The Settings page's form for an OpenAI-compatible endpoint: the embedder and the reranker
share it, and the LLM form shares its key fields.

An API key is typed into a password field and kept only in this session's state (never shown
again, saved, logged or cached); the other settings are saved in the data folder. "Test" tries
what is typed, before it is saved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st
from pydantic import SecretStr, ValidationError

from core.endpoint import EndpointSettings
from core.errors import ChunkLabError
from ui.render import md_escape
from ui.state import show_error


def key_fields(prefix: str, has_key: bool) -> None:
    """The password field and the "forget" box (inside a form)."""
    key_help = "A key is set for this session; leave empty to keep it." if has_key else (
        "Not needed for local servers (Ollama, llama.cpp).")
    st.text_input("API key", type="password", key=f"{prefix}_api_key_input", help=key_help,
                  placeholder="•••••••• (set)" if has_key else "not set")
    st.checkbox("Forget the API key", key=f"{prefix}_forget", disabled=not has_key)


def typed_key(prefix: str, old: SecretStr) -> SecretStr:
    """The key as the form has it: typed, else this session's; none once "forget" is ticked."""
    if st.session_state.get(f"{prefix}_forget"):
        return SecretStr("")
    typed = st.session_state.get(f"{prefix}_api_key_input", "")
    return SecretStr(typed) if typed else old


def clear_key_fields(prefix: str) -> None:
    st.session_state[f"{prefix}_api_key_input"] = ""
    st.session_state[f"{prefix}_forget"] = False


@dataclass(frozen=True)
class NumberField:
    name: str  # the settings field
    label: str
    low: float
    high: float
    step: float
    help: str = ""


@dataclass(frozen=True)
class EndpointForm:
    """What differs between the endpoints a form edits."""

    prefix: str  # of the widget keys
    title: str
    caption: str
    session_key: str  # where this session's settings (with the key) live
    kind: type[EndpointSettings]
    load: Callable[[], EndpointSettings]
    save: Callable[[Any], Path]
    env: dict[str, str]  # field -> environment variable
    numbers: tuple[NumberField, ...]
    test: Callable[[Any], tuple[bool, str]]  # (all well, sentence); ChunkLabError when it fails
    url_example: str


COMMON = (
    NumberField("timeout", "Timeout per request (s)", 1.0, 600.0, 10.0),
    NumberField("concurrency", "Concurrent requests", 1, 32, 1),
    NumberField("max_retries", "Retries on 429 / 5xx / timeouts", 0, 10, 1),
)


def _widget(form: EndpointForm, name: str) -> str:
    return f"{form.prefix}_{name}"


def _draft(form: EndpointForm) -> EndpointSettings | None:
    """The settings as typed; None (with the message set) when they are not valid."""
    old: EndpointSettings = st.session_state[form.session_key]
    key = typed_key(form.prefix, old.api_key)
    values: dict[str, Any] = {n.name: st.session_state[_widget(form, n.name)]
                              for n in (*COMMON, *form.numbers)}
    for name in ("base_url", "model"):
        values[name] = st.session_state[_widget(form, name)].strip()
    try:
        return form.kind(api_key=key, needs_key=bool(key.get_secret_value()), **values)
    except ValidationError as err:
        st.session_state[_widget(form, "message")] = (
            False, f"These settings are not valid: {err.errors()[0]['msg']}.")
        return None


def _save(form: EndpointForm) -> None:
    draft = _draft(form)
    clear_key_fields(form.prefix)
    if draft is None:
        return
    st.session_state[form.session_key] = draft
    path = form.save(draft)
    st.session_state[_widget(form, "message")] = (
        True, f"Saved for this session; the settings without the key are in {path}.")


def _test(form: EndpointForm) -> None:
    draft = _draft(form)
    if draft is None:
        return
    if not draft.configured:
        st.session_state[_widget(form, "message")] = (False,
                                                      "Fill in a base URL and a model first.")
        return
    try:
        st.session_state[_widget(form, "message")] = form.test(draft)
    except ChunkLabError as err:
        st.session_state[_widget(form, "message")] = (False, str(err))


def endpoint_section(form: EndpointForm) -> EndpointSettings:
    """Draw the form; returns this session's settings."""
    if form.session_key not in st.session_state:
        st.session_state[form.session_key] = form.load()
    current: EndpointSettings = st.session_state[form.session_key]
    for name in ("base_url", "model", *(n.name for n in (*COMMON, *form.numbers))):
        st.session_state.setdefault(_widget(form, name), getattr(current, name))
    st.subheader(form.title)
    st.caption(form.caption)
    if current.key_missing:
        st.warning("The API key is gone: keys are kept only for one browser session, which a "
                   "refresh ends. Type it again below.", icon=":material/key_off:")
    with st.form(f"{form.prefix}_form"):
        st.text_input("Base URL (ending in /v1)", key=_widget(form, "base_url"),
                      placeholder=form.url_example)
        key_fields(form.prefix, bool(current.api_key.get_secret_value()))
        st.text_input("Model", key=_widget(form, "model"))
        columns = st.columns(len(COMMON) + len(form.numbers))
        for column, field in zip(columns, (*form.numbers, *COMMON), strict=True):
            integer = float(field.step).is_integer() and field.name != "timeout"
            column.number_input(field.label, int(field.low) if integer else field.low,
                                int(field.high) if integer else field.high,
                                step=int(field.step) if integer else field.step,
                                key=_widget(form, field.name), help=field.help or None,
                                format=None if integer else "%.0f")
        test_col, save_col = st.columns(2)
        test_col.form_submit_button("Test", on_click=_test, args=(form,),
                                    help="Tries what is typed here, without saving it.")
        save_col.form_submit_button("Save", type="primary", on_click=_save, args=(form,))
    message = st.session_state.pop(_widget(form, "message"), None)
    if message:
        ok, text = message
        if ok:
            st.success(md_escape(text))
        else:
            show_error(text)
    state = "set for this session" if current.api_key.get_secret_value() else "not set"
    st.caption(f"API key: {state}. Environment variables {', '.join(form.env.values())} and "
               "`.streamlit/secrets.toml` are read at start and override saved settings.")
    return current

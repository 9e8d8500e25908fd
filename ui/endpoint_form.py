"""The Settings page's one form for an OpenAI-compatible endpoint: the LLM, the answer judge, the
embedder and the reranker are each an :class:`EndpointForm` this module draws.

Every form edits a typed :class:`~core.endpoint.EndpointSettings`: the base URL, the API key and
the model, then the numbers the form names (a field's type in the settings picks an integer or a
decimal input). What differs between the endpoints — a preset picker above the form, a report
below it, the numbers a test fits to the server — are the hooks of :class:`EndpointForm`.

An API key is typed into a password field and kept only in this session's state (never shown
again, saved, logged or cached); the other settings are saved in the data folder. "Test" tries
what is typed, before it is saved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import streamlit as st
from pydantic import SecretStr, ValidationError

from core.endpoint import EndpointSettings, SettingsSource
from core.errors import ChunkLabError
from ui.render import md_escape
from ui.state import show_error

Kind = Literal["success", "info", "warning", "error"]


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


def key_state(prefix: str, has_key: bool) -> str:
    """What the caption says of the API key: a key typed (and maybe tested) is not kept until
    Save, so it reads "not saved yet" rather than "not set"."""
    if st.session_state.get(f"{prefix}_api_key_input"):
        return "typed, not saved yet (Save keeps it for this session)"
    if has_key:
        return "set for this session"
    return "not set (a key typed above is used once you Save)"


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
    slider: bool = False
    key: str = ""  # the widget key's suffix when it is not the field's name

    def widget(self, prefix: str) -> str:
        return f"{prefix}_{self.key or self.name}"


TIMEOUT = NumberField("timeout", "Timeout per request (s)", 1.0,
                      EndpointSettings.LONGEST_TIMEOUT, 10.0,
                      "A timed-out request is asked again once only, with twice the time.")
CONCURRENCY = NumberField("concurrency", "Concurrent requests", 1, 32, 1,
                          "At most the server's slots: more only queue up on it.")
RETRIES = NumberField("max_retries", "Retries on 429 / 5xx / timeouts", 0, 10, 1)
COMMON = (TIMEOUT, CONCURRENCY, RETRIES)


@dataclass(frozen=True)
class Tested:
    """What a test found: a message, and the numbers it fitted to the server (field -> value),
    put in the form for the user to save."""

    kind: Kind
    text: str
    fitted: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EndpointForm:
    """What differs between the endpoints a form edits."""

    prefix: str  # of the widget keys
    title: str
    caption: str
    session_key: str  # where this session's settings (with the key) live
    kind: type[EndpointSettings]
    source: SettingsSource  # where they are saved and read from
    numbers: tuple[NumberField, ...]  # drawn in rows of ``columns``
    test: Callable[[Any], Tested]  # raises ChunkLabError when the endpoint fails
    url_example: str = ""
    columns: int = 0  # 0: every number on one row
    test_label: str = "Test"
    stale: tuple[str, ...] = ()  # session keys a new test makes stale (the last report)
    above: Callable[[EndpointSettings], None] | None = None  # drawn above the form
    below: Callable[[EndpointSettings], None] | None = None  # drawn below its message


def _message_key(form: EndpointForm) -> str:
    return f"{form.prefix}_message"


def _say(form: EndpointForm, kind: Kind, text: str) -> None:
    st.session_state[_message_key(form)] = (kind, text)


def _text_widget(form: EndpointForm, name: str) -> str:
    return f"{form.prefix}_{name}"


def _draft(form: EndpointForm) -> EndpointSettings | None:
    """The settings as typed; None (with the message set) when they are not valid."""
    old: EndpointSettings = st.session_state[form.session_key]
    key = typed_key(form.prefix, old.api_key)
    values: dict[str, Any] = {n.name: st.session_state[n.widget(form.prefix)]
                              for n in form.numbers}
    for name in ("base_url", "model"):
        values[name] = st.session_state[_text_widget(form, name)].strip()
    try:
        return form.kind(api_key=key, needs_key=bool(key.get_secret_value()), **values)
    except ValidationError as err:
        _say(form, "error", f"These settings are not valid: {err.errors()[0]['msg']}.")
        return None


def _save(form: EndpointForm) -> None:
    """Form callback: keep the settings, then empty the key field at once."""
    draft = _draft(form)
    clear_key_fields(form.prefix)
    if draft is None:
        return
    st.session_state[form.session_key] = draft
    path = form.source.save(draft)
    _say(form, "success", f"Saved for this session; the settings without the key are in {path}.")


def _test(form: EndpointForm) -> None:
    """Form callback: try the typed settings without saving them; put what the test fitted to
    the server in the form."""
    for key in form.stale:
        st.session_state.pop(key, None)
    draft = _draft(form)
    if draft is None:
        return
    if not draft.configured:
        _say(form, "error", "Fill in a base URL and a model first.")
        return
    try:
        tested = form.test(draft)
    except ChunkLabError as err:
        _say(form, "error", str(err))
        return
    for number in form.numbers:
        if number.name in tested.fitted:
            st.session_state[number.widget(form.prefix)] = tested.fitted[number.name]
    if tested.text:
        _say(form, tested.kind, tested.text)


def _number(form: EndpointForm, column: Any, number: NumberField) -> None:
    widget = number.widget(form.prefix)
    if number.slider:
        column.slider(number.label, number.low, number.high, step=number.step, key=widget,
                      help=number.help or None)
        return
    integer = form.kind.model_fields[number.name].annotation is int
    column.number_input(number.label, int(number.low) if integer else number.low,
                        int(number.high) if integer else number.high,
                        step=int(number.step) if integer else number.step, key=widget,
                        help=number.help or None, format=None if integer else "%.0f")


def _show_message(form: EndpointForm) -> None:
    message = st.session_state.pop(_message_key(form), None)
    if not message:
        return
    kind, text = message
    if kind == "error":
        show_error(text)
    else:
        getattr(st, kind)(md_escape(text))


def endpoint_section(form: EndpointForm) -> EndpointSettings:
    """Draw the form; returns this session's settings."""
    if form.session_key not in st.session_state:
        st.session_state[form.session_key] = form.source.load(form.kind)
    current: EndpointSettings = st.session_state[form.session_key]
    st.session_state.setdefault(_text_widget(form, "base_url"), current.base_url)
    st.session_state.setdefault(_text_widget(form, "model"), current.model)
    for number in form.numbers:
        st.session_state.setdefault(number.widget(form.prefix), getattr(current, number.name))
    has_key = bool(current.api_key.get_secret_value())
    st.subheader(form.title)
    st.caption(form.caption)
    if current.key_missing:
        st.warning("The API key is gone: keys are kept only for one browser session, which a "
                   "refresh ends. Type it again below.", icon=":material/key_off:")
    if form.above:
        form.above(current)
    with st.form(f"{form.prefix}_form"):
        st.text_input("Base URL (ending in /v1)", key=_text_widget(form, "base_url"),
                      placeholder=form.url_example or None)
        key_fields(form.prefix, has_key)
        st.text_input("Model", key=_text_widget(form, "model"))
        columns = st.columns(form.columns or len(form.numbers))
        for place, number in enumerate(form.numbers):
            _number(form, columns[place % len(columns)], number)
        test_col, save_col = st.columns(2)
        test_col.form_submit_button(form.test_label, on_click=_test, args=(form,),
                                    help="Tries what is typed here, without saving it.")
        save_col.form_submit_button("Save", type="primary", on_click=_save, args=(form,))
    _show_message(form)
    if form.below:
        form.below(current)
    env = ", ".join(form.source.env.values())
    st.caption(f"API key: {key_state(form.prefix, has_key)}. Environment variables {env} and "
               "`.streamlit/secrets.toml` are read at start and override saved settings.")
    return current

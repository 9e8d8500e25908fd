"""Inputs that outlive the page that drew them, and the choices worth keeping across a restart.

Streamlit forgets a widget's value as soon as a run does not draw the widget, so leaving a page
resets its inputs. :func:`kept` is the one pattern every page uses against that: called with the
widget's key just before the widget is drawn, it copies the widget's value to a shadow key of its
own (which Streamlit never clears) and, when the widget comes back after a page switch, puts that
value back. Widgets drawn this way take their first value from ``kept(..., default)``, not from
their own ``value=``/``index=`` argument.

With ``durable=True`` the value is also written to ``ui_state.json`` in the data folder (through
the atomic writer) whenever it changes, and a new session — a browser reload, another tab, the
app started again — starts from it. The data folder is one user's workspace, so these are the
user's last inputs, whichever tab set them: the chosen document, Compare's configurations and
hand edits, Evaluate's inputs, the question on Assemble, the chosen template on Prompts.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

import streamlit as st

from core.config import data_dir
from core.files import read_json_object, write_json

SHADOW = "_kept::"  # prefix of the session keys that hold the values
STATE_FILE = "ui_state.json"


def _path() -> Path:
    return data_dir() / STATE_FILE


def saved_choices() -> dict[str, Any]:
    """Every durable choice saved in the data folder (empty when none or unreadable)."""
    return read_json_object(_path())


def _plain(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False  # only plain values are worth writing down
    return True


def save_choice(key: str, value: Any) -> None:
    """Save a value a new session starts from (one that is not a widget's: :func:`kept` saves
    those with ``durable=True``)."""
    _save_all({key: value})


def _save_all(values: dict[str, Any], prefixes: tuple[str, ...] = ()) -> None:
    """Write ``values`` (the plain ones) and drop the saved keys under ``prefixes`` that are no
    longer among them; the file is written only when something changed."""
    saved = saved_choices()
    kept_now = {k: v for k, v in values.items() if _plain(v)}
    updated = {k: v for k, v in saved.items()
               if not (prefixes and k.startswith(prefixes) and k not in kept_now)} | kept_now
    if updated != saved:
        write_json(_path(), updated, ensure_ascii=False, indent=1, sort_keys=True)


def kept(key: str, default: Any = None, *, durable: bool = False,
         valid: Any = None) -> str:
    """Keep the widget ``key``'s value across page switches (and restarts when ``durable``).

    ``default`` is the first value when nothing was kept; ``valid`` (a collection) drops a kept
    value that is no longer offered, e.g. a deleted document. Returns ``key`` for the widget.
    """
    state = st.session_state
    shadow = SHADOW + key
    if key in state:
        state[shadow] = state[key]
    elif shadow in state:
        state[key] = state[shadow]
    else:
        value = saved_choices().get(key, default) if durable else default
        if value is not None:
            state[key] = value
    if valid is not None and key in state and state[key] not in valid:
        if default is None or default not in valid:
            del state[key]
            state.pop(shadow, None)
        else:
            state[key] = state[shadow] = default
    if durable and key in state and (state[key] != default or key in saved_choices()):
        save_choice(key, state[key])  # a default never chosen is not saved: it may change
    return key


def keep_offered(key: str, offered: Collection[Any], most: int | None = None) -> list[Any]:
    """The kept choices of the multi-choice widget ``key`` that are still ``offered`` (a deleted
    document drops out), the first ``most`` of them; call it after :func:`kept`.

    The widget's value is set from code only when that drops something: a value set from code
    goes to the browser with the run's output, so a run still on its way there would put its
    old choices back over the one the user has just made."""
    state = st.session_state
    current = list(state.get(key, []))
    left = [value for value in current if value in offered][:most]
    if left != current:
        state[key] = left
    return left


def set_aside(key: str) -> Any:
    """The kept value of a widget this run does not draw (a closed panel's), held by its shadow
    alone until the widget is drawn again. The browser shows a value set from code only when it
    was set in the run that draws the widget; :func:`kept` (or :func:`kept_all`) then puts it
    back in that run. Left under its key, a value restored after a page switch would be drawn
    by the server but shown as the widget's default in the browser."""
    state = st.session_state
    shadow = SHADOW + key
    if key in state:
        state[shadow] = state[key]
        del state[key]
    return state.get(shadow)


def forget(key: str) -> None:
    """Drop a kept value (the widget starts from its default next time)."""
    st.session_state.pop(key, None)
    st.session_state.pop(SHADOW + key, None)


def remember(key: str, value: Any) -> None:
    """Set a kept widget's value from code (before the widget is drawn)."""
    st.session_state[key] = value
    st.session_state[SHADOW + key] = value


def kept_value(key: str) -> Any:
    """The value kept for ``key`` in this session (None when none)."""
    return st.session_state.get(key, st.session_state.get(SHADOW + key))


def kept_all(prefixes: tuple[str, ...], *, durable: bool = False) -> None:
    """:func:`kept` for every widget whose key starts with one of ``prefixes``, for a page whose
    widgets are drawn by helpers (Compare). Call it at the top of the page; never list button
    keys (a button's value cannot be set). With ``durable``, as :func:`kept`'s: a new session
    starts from the values saved in the data folder."""
    state = st.session_state
    restored = f"_restored::{'|'.join(prefixes)}"
    if durable and restored not in state:  # a new session: the saved values wait as shadows
        state[restored] = True
        for key, value in saved_choices().items():
            if key.startswith(prefixes) and key not in state:
                state[SHADOW + key] = value
    for key in [k for k in state if isinstance(k, str) and k.startswith(prefixes)]:
        state[SHADOW + key] = state[key]
    shadows = [k for k in state if isinstance(k, str) and k.startswith(SHADOW)]
    for shadow in shadows:
        key = shadow.removeprefix(SHADOW)
        if key.startswith(prefixes) and key not in state:
            state[key] = state[shadow]
    if durable:
        _save_all({s.removeprefix(SHADOW): state[s] for s in shadows
                   if s.removeprefix(SHADOW).startswith(prefixes)}, prefixes)

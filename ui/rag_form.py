"""The RAG answer template as text boxes on the Prompts page: one box per field of the chosen
locale, each edit written into the template's JSON (the editor's text) at once."""

from __future__ import annotations

import streamlit as st

from core.assembly.citations import MARKERS_READ
from core.errors import TemplateError
from core.prompts.rag_fields import (
    FIELDS,
    RagField,
    edited_locale,
    field_values,
    locale_names,
    with_field,
)
from ui.render import md_escape


def _write(editor: str, locale: str, field: RagField, widget: str) -> None:
    try:
        st.session_state[editor] = with_field(st.session_state[editor], locale, field,
                                              st.session_state[widget])
    except TemplateError:
        pass  # the JSON is broken: its box below says why


def rag_fields(editor: str) -> None:
    """Text boxes of the template held under the session key ``editor``."""
    text = st.session_state.get(editor, "")
    locales = locale_names(text)
    locale = st.selectbox("Locale", locales, key=f"{editor}::locale",
                          help="A locale other than default keeps only what you change in it.")
    locale = edited_locale(locale, text)
    try:
        values = field_values(text, locale)
    except TemplateError as err:
        st.error(md_escape(f"{err} Fix the JSON below to edit the fields."),
                 icon=":material/error:")
        return
    for field in FIELDS:
        widget = f"{editor}::{locale}::{field.key}"
        if st.session_state.get(widget) != values[field.key]:  # set from code only on change:
            st.session_state[widget] = values[field.key]  # else it may undo a box being typed in
        args = (editor, locale, field, widget)
        if field.long:
            st.text_area(field.label, key=widget, height=110, on_change=_write, args=args)
        else:
            st.text_input(field.label, key=widget, on_change=_write, args=args)
    st.caption(md_escape(f"Citations: answers are graded on the markers {MARKERS_READ}, so "
                         "the examples here may use either, and a model that writes [1] for "
                         "[¹] loses nothing."))

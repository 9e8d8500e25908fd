"""Streamlit-side shared state: the document library, the document picker, the LLM settings
of this session, error display.

Pages import from here; nothing in ``core`` does. The selected document lives in
``st.session_state["selected_doc_id"]`` (not a widget key, which Streamlit forgets when the
page that drew the widget is left), so the choice follows the user from page to page.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from core.documents.model import Document
from core.errors import ChunkLabError
from core.library import DocumentLibrary, default_library
from core.llm.settings import SESSION_KEY, LLMSettings, load_settings

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "sample_docs"
SELECTED = "selected_doc_id"
MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")


@st.cache_resource(show_spinner="First start: converting the sample documents (once, a few "
                   "seconds)…")
def library() -> DocumentLibrary:
    """The library in the data folder, with the sample documents added on first start."""
    lib = default_library()
    if SAMPLES_DIR.is_dir():
        lib.ensure_samples(SAMPLES_DIR)
    return lib


def select_document(doc_id: str) -> None:
    st.session_state[SELECTED] = doc_id


def pick_document(label: str = "Document", key: str = "doc_id") -> Document | None:
    """A selectbox of the library's documents; the choice is shared by every page."""
    documents = library().documents()
    if not documents:
        st.info("No documents yet: add some on the **Documents** page.")
        return None
    by_id = {d.doc_id: d for d in documents}
    current = st.session_state.get(SELECTED)
    if current not in by_id:
        current = documents[0].doc_id
    widget_key = f"_pick_{key}"
    st.session_state[widget_key] = current
    chosen = st.selectbox(
        label,
        options=list(by_id),
        format_func=lambda i: f"{by_id[i].source_name}  ·  {by_id[i].format.upper()}",
        key=widget_key,
        on_change=lambda: select_document(st.session_state[widget_key]),
    )
    select_document(chosen)
    return by_id[chosen]


def llm_settings() -> LLMSettings:
    """The LLM settings of this session (typed on the Settings page, with the API key), else
    the ones from the environment, secrets and the saved file."""
    settings = st.session_state.get(SESSION_KEY)
    return settings if isinstance(settings, LLMSettings) else load_settings()


def md_escape(text: str) -> str:
    """User or LLM text shown through st.markdown: Markdown syntax characters escaped (``$``
    too, so amounts like "$5 and $6" are not read as LaTeX)."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", text)


def show_error(err: ChunkLabError | str) -> None:
    """Show a user-caused error as its one sentence; never a traceback."""
    st.error(str(err), icon=":material/error:")

"""Session state shared by the pages: the chosen document, and how errors are shown.

The selected document lives in ``st.session_state["selected_doc_id"]`` (not a widget key, which
Streamlit forgets when the page that drew the widget is left), so the choice follows the user
from page to page; it is saved in the data folder too, so a reload or restart keeps it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import streamlit as st

from core.documents.model import Document
from core.errors import ChunkLabError
from core.llm.settings import LLMSettings
from ui.persist import save_choice, saved_choices
from ui.render import md_escape
from ui.resources import library

SELECTED = "selected_doc_id"
KEY_GONE = ("The API key is gone: it was set when these LLM settings were saved, but keys are "
            "kept only for one browser session, which a refresh ends.")
ANSWERED = "_llm_answered_without_key"  # endpoints that answered this session without a key


def select_document(doc_id: str) -> None:
    st.session_state[SELECTED] = doc_id
    save_choice(SELECTED, doc_id)


def pick_document(label: str = "Document", key: str = "doc_id",
                  fits: Callable[[Document], bool] | None = None) -> Document | None:
    """A selectbox of the library's documents; the choice is shared by every page. With
    ``fits``, a chosen document that does not fit gives way to the first one that does."""
    documents = library().documents()
    if not documents:
        st.info("No documents yet: add some on the **Documents** page.")
        return None
    samples = library().sample_ids()
    by_id = {d.doc_id: d for d in documents}
    current = st.session_state.get(SELECTED, saved_choices().get(SELECTED))
    if current not in by_id:
        current = documents[0].doc_id
    if fits is not None and not fits(by_id[current]):
        current = next((d.doc_id for d in documents if fits(d)), current)
    widget_key = f"_pick_{key}"
    # Set from code only when the picker should show another document (first drawn, picked on
    # another page, or no longer there): a value set from code goes to the browser with the
    # run's output, so a run still on its way there would undo a document picked meanwhile.
    if st.session_state.get(widget_key) != current:
        st.session_state[widget_key] = current
    chosen = st.selectbox(
        label,
        options=list(by_id),
        format_func=lambda i: document_label(by_id[i], samples),
        key=widget_key,
        on_change=lambda: select_document(st.session_state[widget_key]),
    )
    select_document(chosen)
    return by_id[chosen]


def document_label(document: Document, samples: set[str]) -> str:
    """"policy.docx  ·  DOCX", and "  ·  sample" for a shipped sample."""
    label = f"{document.source_name}  ·  {document.format.upper()}"
    return label + ("  ·  sample" if document.doc_id in samples else "")


def show_error(err: ChunkLabError | str) -> None:
    """Show a user-caused error as its one sentence, as text (it may quote a file name or a
    server's words); never a traceback."""
    st.error(md_escape(str(err)), icon=":material/error:")


def answered_without_key(settings: LLMSettings) -> None:
    """A request to ``settings``' endpoint succeeded without the key it was saved with: the
    endpoint does not need one, so this session stops warning that the key is gone."""
    if settings.key_missing:
        st.session_state.setdefault(ANSWERED, set()).add(settings.base_url)


def warn_missing_key(settings: LLMSettings,
                     hint: str = "Type it again under Settings (Setup in the sidebar), or set "
                                 "LLM_API_KEY before starting the app.") -> bool:
    """On a page that sends LLM requests: warn when the endpoint was used with an API key this
    session no longer has, instead of letting requests fail with HTTP 401 (unless a request
    succeeded without it). True when warned."""
    if not settings.key_missing or settings.base_url in st.session_state.get(ANSWERED, ()):
        return False
    st.warning(f"{KEY_GONE} {md_escape(hint)}", icon=":material/key_off:")
    return True


def picker_key(base: str, labels: Sequence[str]) -> str:
    """The key of a selectbox that must follow its option labels.

    Streamlit knows a keyed widget by its key alone: when a picker's options are replaced (a
    new question set, an edited question) under the same key, the browser keeps showing the
    old choice's label. A key per set of labels starts a fresh widget instead.
    """
    joined = "\n".join(labels)
    return f"{base}_{hashlib.sha256(joined.encode()).hexdigest()[:12]}"

"""Settings: the LLM connection (any OpenAI-compatible endpoint) and the answers' choices, the
user's own embedding and reranking endpoints, the answer judge's own endpoint, and the chunk
store.

Every endpoint is one form (:mod:`ui.endpoint_form`, the four of them in
:mod:`ui.connection_forms`). An API key is typed into a password field and kept only in this
session's state; it is never shown again, saved, logged or cached. The other settings are saved
in the data folder so every page and the command line find them too.
"""

from __future__ import annotations

import streamlit as st

from core.errors import ChunkLabError
from ui.connection_forms import (
    EMBEDDING_FORM,
    JUDGE_FORM,
    LLM_FORM,
    RERANK_FORM,
    answer_section,
)
from ui.endpoint_form import endpoint_section
from ui.state import show_error
from ui.store_status import show_store_status

st.title("Settings")
connection = endpoint_section(LLM_FORM)
answer_section(connection)
endpoint_section(EMBEDDING_FORM)
endpoint_section(RERANK_FORM)
endpoint_section(JUDGE_FORM)

st.subheader("Chunk store")
st.caption("Where chunk sets are kept: embedded in the data folder, or the Chroma server "
           "CHROMA_HOST and CHROMA_PORT name (set them before starting the app).")
try:
    show_store_status()
except ChunkLabError as err:
    show_error(err)

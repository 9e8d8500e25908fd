"""Which chunk store the app uses and whether it answers, as the Settings and Chunk sets pages
show it."""

from __future__ import annotations

import streamlit as st

from core.operations.ingest.chunk_sets import store_status
from ui.render import md_escape


def show_store_status() -> bool:
    """Say where the chunk sets are kept; False when their server does not answer."""
    status = store_status()
    if status.answers:
        st.caption(md_escape(status.sentence()))
    else:
        st.warning(md_escape(status.sentence()), icon=":material/cloud_off:")
    return status.answers

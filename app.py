"""ChunkLab: the router. Page config, global set-up, and the navigation; pages live in pages/."""

import streamlit as st

import core  # noqa: F401  (sets the offline environment before anything heavy loads)

st.set_page_config(page_title="ChunkLab", page_icon="🧩", layout="wide")

PAGES = {
    "Workbench": [
        st.Page("pages/home.py", title="Home", icon="🏠", default=True),
        st.Page("pages/documents.py", title="Documents", icon="📄"),
        st.Page("pages/compare.py", title="Compare", icon="🆚"),
        st.Page("pages/structure.py", title="Structure", icon="🧭"),
        st.Page("pages/prompts.py", title="Prompts", icon="✏️"),
    ],
    "Retrieval": [
        st.Page("pages/store.py", title="Chunk sets", icon="🗄️"),
        st.Page("pages/assemble.py", title="Assemble", icon="🧱"),
        st.Page("pages/evaluate.py", title="Evaluate", icon="📊"),
    ],
    "Setup": [st.Page("pages/settings.py", title="Settings", icon="⚙️")],
}

st.navigation(PAGES).run()

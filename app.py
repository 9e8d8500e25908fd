"""ChunkLab: the router. Page config, global set-up, and the navigation; pages live in pages/.

The navigation and the page are drawn before the shared resources' code is imported here (the
embedding, chunking and store code takes seconds to import on a server's first visit): a first
visit sees the app's frame and the page's heading at once, not a blank page."""

import streamlit as st

st.set_page_config(page_title="ChunkLab", page_icon=":material/view_agenda:", layout="wide")

PAGES = {
    "Workbench": [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/documents.py", title="Documents", icon=":material/description:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare:"),
        st.Page("pages/structure.py", title="Structure", icon=":material/account_tree:"),
        st.Page("pages/prompts.py", title="Prompts", icon=":material/edit_note:"),
    ],
    "Retrieval": [
        st.Page("pages/store.py", title="Chunk sets", icon=":material/database:"),
        st.Page("pages/assemble.py", title="Assemble", icon=":material/quick_reference_all:"),
        st.Page("pages/questions.py", title="Question sets", icon=":material/quiz:"),
        st.Page("pages/evaluate.py", title="Evaluate", icon=":material/monitoring:"),
        st.Page("pages/answers.py", title="Answers", icon=":material/forum:"),
        st.Page("pages/tune.py", title="Tune", icon=":material/tune:"),
    ],
    "Setup": [st.Page("pages/settings.py", title="Settings", icon=":material/settings:")],
}

page = st.navigation(PAGES)
page.run()
from ui.resources import settle_heap, warm_up  # noqa: E402  (heavy: once the page is drawn)

warm_up()  # not reached when the page reruns or stops: its next run does it, as settle_heap
settle_heap(page.url_path)

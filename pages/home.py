"""Home: what ChunkLab does, where to start, and the documents loaded.

What to read is drawn before the document library's code is imported: on a server's first visit
that import takes seconds, and the page is not blank meanwhile."""

import streamlit as st

st.title("ChunkLab")
st.markdown(
    "A workbench for **document chunking and RAG prompts**: convert documents with docling, "
    "see their sections and tables, compare chunking strategies side by side with numbers, "
    "tune the LLM prompts live, and inspect the RAG prompt a question would send — "
    "citations and token budget included."
)

START_HERE = [
    ("pages/documents.py", "Upload", "description",
     "Add your documents (PDF, Word, HTML, Markdown, spreadsheets…) and check their sections "
     "and tables."),
    ("pages/compare.py", "Compare", "compare",
     "Chunk one document several ways side by side and see which keeps sections and tables "
     "whole."),
    ("pages/assemble.py", "Assemble", "quick_reference_all",
     "Ask a question: see what is retrieved and the prompt the model would get, with "
     "citations."),
    ("pages/evaluate.py", "Evaluate", "monitoring",
     "Measure each chunking with question sets: recall, precision and overlap."),
]
MORE = [
    ("pages/store.py", "Chunk sets", "database"),
    ("pages/structure.py", "Structure", "account_tree"),
    ("pages/prompts.py", "Prompts", "edit_note"),
    ("pages/settings.py", "Settings", "settings"),
]


st.subheader("Start here")
steps = st.columns(len(START_HERE))
for n, (column, (page, title, icon, what)) in enumerate(zip(steps, START_HERE, strict=True),
                                                         start=1):
    with column.container(border=True):
        st.page_link(page, label=f"{n}. {title}", icon=f":material/{icon}:")
        st.caption(what)
st.caption("Also: " + " · ".join(f"**{title}**" for _, title, _ in MORE)
           + " — in the sidebar; Assemble builds a chunk set for you on first use.")
with st.container(horizontal=True):
    for page, title, icon in MORE:
        st.page_link(page, label=title, icon=f":material/{icon}:")

import pandas as pd  # noqa: E402  (the imports below take seconds on a first visit)

from core.documents.model import Document  # noqa: E402
from ui.resources import library, token_count  # noqa: E402
from ui.wording import DASH, number  # noqa: E402


def _row(doc: Document) -> dict:
    return {
        "Document": doc.source_name,
        "Format": doc.format.upper(),
        "Converted by": doc.route,
        "Characters": number(len(doc.text)),
        "Pages": number(doc.pages) if doc.pages else DASH,
        "Sections": number(len(doc.sections)),
        "Tables": number(len(doc.tables)),
        "Tokens (cl100k)": number(token_count(doc)),
    }


with st.spinner("Loading the document library (the first start converts the samples)…"):
    documents = library().documents()
    rows = [_row(d) for d in documents]
st.subheader(f"Loaded documents ({len(documents)})")
if documents:
    st.dataframe(pd.DataFrame(rows), hide_index=True)
else:
    st.info("No documents yet: upload some on the **Documents** page.",
            icon=":material/info:")

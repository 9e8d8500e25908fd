"""Home: what ChunkLab does, the documents loaded, and where to go next."""

import pandas as pd
import streamlit as st

from core.documents.model import Document
from core.tokens import count_tokens
from ui.state import library

st.title("ChunkLab")
st.markdown(
    "A workbench for **document chunking and RAG prompts**: convert documents with docling, "
    "see their sections and tables, compare chunking strategies side by side with numbers, "
    "tune the LLM prompts live, and inspect the RAG prompt a question would send — "
    "citations and token budget included."
)


@st.cache_data(show_spinner=False)
def _tokens(doc_id: str, text: str) -> int:
    return count_tokens(text)


def _row(doc: Document) -> dict:
    return {
        "Document": doc.source_name,
        "Format": doc.format.upper(),
        "Converted by": doc.route,
        "Characters": len(doc.text),
        "Pages": doc.pages,
        "Sections": len(doc.sections),
        "Tables": len(doc.tables),
        "Tokens (cl100k)": _tokens(doc.doc_id, doc.text),
    }


documents = library().documents()
st.subheader(f"Loaded documents ({len(documents)})")
if documents:
    st.dataframe(pd.DataFrame([_row(d) for d in documents]), hide_index=True)
else:
    st.info("No documents yet.")

st.subheader("Where to next")
left, right = st.columns(2)
with left:
    st.page_link("pages/documents.py", label="Documents — upload, sections, tables", icon=":material/description:")
    st.page_link("pages/compare.py", label="Compare — chunkings side by side", icon=":material/compare:")
    st.page_link("pages/structure.py", label="Structure — the LLM's sections", icon=":material/account_tree:")
    st.page_link("pages/prompts.py", label="Prompts — edit and A/B templates", icon=":material/edit_note:")
with right:
    st.page_link("pages/store.py", label="Chunk sets — store, cut over, roll back", icon=":material/database:")
    st.page_link("pages/assemble.py", label="Assemble — retrieval and the RAG prompt", icon=":material/quick_reference_all:")
    st.page_link("pages/evaluate.py", label="Evaluate — recall, precision, IoU", icon=":material/monitoring:")
    st.page_link("pages/settings.py", label="Settings — LLM endpoint", icon=":material/settings:")

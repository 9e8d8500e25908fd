"""Home: what ChunkLab does, the documents loaded, and where to go next."""

import pandas as pd
import streamlit as st

from core.documents.model import Document
from ui.resources import library, token_count

st.title("ChunkLab")
st.markdown(
    "A workbench for **document chunking and RAG prompts**: convert documents with docling, "
    "see their sections and tables, compare chunking strategies side by side with numbers, "
    "tune the LLM prompts live, and inspect the RAG prompt a question would send — "
    "citations and token budget included."
)


def _row(doc: Document) -> dict:
    return {
        "Document": doc.source_name,
        "Format": doc.format.upper(),
        "Converted by": doc.route,
        "Characters": len(doc.text),
        "Pages": str(doc.pages) if doc.pages else "–",
        "Sections": len(doc.sections),
        "Tables": len(doc.tables),
        "Tokens (cl100k)": token_count(doc),
    }


documents = library().documents()
st.subheader(f"Loaded documents ({len(documents)})")
if documents:
    st.dataframe(pd.DataFrame([_row(d) for d in documents]), hide_index=True)
else:
    st.info("No documents yet: upload some on the **Documents** page.",
            icon=":material/info:")

LINKS = [
    ("pages/documents.py", "Documents — upload, sections, tables", "description"),
    ("pages/compare.py", "Compare — chunkings side by side", "compare"),
    ("pages/structure.py", "Structure — the LLM's sections", "account_tree"),
    ("pages/prompts.py", "Prompts — edit and A/B templates", "edit_note"),
    ("pages/store.py", "Chunk sets — store, cut over, roll back", "database"),
    ("pages/assemble.py", "Assemble — retrieval and the RAG prompt", "quick_reference_all"),
    ("pages/evaluate.py", "Evaluate — recall, precision, IoU", "monitoring"),
    ("pages/settings.py", "Settings — LLM endpoint", "settings"),
]
st.subheader("Where to next")
columns = st.columns(2)
for n, (page, label, icon) in enumerate(LINKS):
    columns[n // 4].page_link(page, label=label, icon=f":material/{icon}:")

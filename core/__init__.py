"""ChunkLab's logic: documents, chunking, LLM phases, prompts, store, retrieval, assembly.

Nothing in this package imports Streamlit. Importing it sets the offline defaults the
runtime needs (see :mod:`core.config`) before docling, Chroma or tiktoken are loaded.
"""

from core.config import configure_runtime

configure_runtime()

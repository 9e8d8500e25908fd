"""Ingest with a progress bar: the Chunk sets page's "Create and ingest" and the Assemble page's
quick start run the same code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from core.documents.model import Document
from core.embeddings.identity import BUILTIN, EmbedderRef
from core.errors import ChunkLabError
from core.operations.ingest.run import DEFAULT_BATCH_SIZE, IngestSummary, Source, ingest
from core.operations.strategies import RunOptions
from core.progress import Progress
from ui.render import md_escape
from ui.resources import chunk_store, embedding_settings, llm_settings, prompt_library
from ui.state import show_error


@dataclass(frozen=True)
class IngestJob:
    """A chunk set the Chunk sets page was asked to build, kept in session state while it runs
    (defined here, not in the page, so the class is the same object from one run to the next)."""

    name: str
    strategy: str
    settings: dict[str, Any]
    doc_ids: list[str]
    batch_size: int
    description: str
    embedder: EmbedderRef = BUILTIN


def ingest_with_progress(
    documents: list[Document],
    name: str,
    strategy: str,
    settings: dict[str, Any],
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    description: str = "",
    embedder: EmbedderRef = BUILTIN,
) -> IngestSummary | None:
    """Chunk and store ``documents`` into set ``name`` behind ``st.progress``, embedded by
    ``embedder`` (with this session's endpoint settings).

    Returns the summary, or None after showing the error's sentence (a failed run leaves the
    store as it was; a stopped one keeps what it stored, and a re-run skips it)."""
    bar = st.progress(0.0, text="Starting…")

    def advance(progress: Progress) -> None:
        bar.progress(progress.fraction, text=md_escape(progress.caption()))

    try:
        options = RunOptions(llm=llm_settings(), library=prompt_library(), progress=advance)
        return ingest([Source.from_document(d) for d in documents], name, strategy, settings,
                      batch_size=batch_size, store=chunk_store(), description=description,
                      options=options, embedder=embedder, embedding=embedding_settings())
    except ChunkLabError as err:
        show_error(err)
        return None
    finally:
        bar.empty()

"""Ingest with a progress bar: the Chunk sets page's "Create and ingest" and the Assemble page's
quick start run the same code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from core.documents.model import Document
from core.errors import ChunkLabError
from core.ingest import DEFAULT_BATCH_SIZE, IngestSummary, Progress, Source, ingest
from ui.state import show_error

if TYPE_CHECKING:  # the store imports Chroma (seconds); ingest() opens it when it runs
    from core.store import ChunkStore


def ingest_with_progress(
    documents: list[Document],
    name: str,
    strategy: str,
    settings: dict[str, Any],
    *,
    store: ChunkStore,
    batch_size: int = DEFAULT_BATCH_SIZE,
    description: str = "",
) -> IngestSummary | None:
    """Chunk and store ``documents`` into set ``name`` behind ``st.progress``.

    Returns the summary, or None after showing the error's sentence (nothing stored is lost:
    a re-run skips what is already there)."""
    bar = st.progress(0.0, text="Starting…")

    def advance(progress: Progress) -> None:
        bar.progress(progress.done / max(progress.total, 1),
                     text=f"{progress.done}/{progress.total} documents · {progress.chunks} chunks"
                          f" · {progress.message}")

    try:
        return ingest([Source.from_document(d) for d in documents], name, strategy, settings,
                      batch_size=batch_size, store=store, progress=advance,
                      description=description)
    except ChunkLabError as err:
        show_error(err)
        return None
    finally:
        bar.empty()

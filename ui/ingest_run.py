"""Ingest with a progress bar: the Chunk sets page's "Create and ingest" and the Assemble page's
quick start run the same code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.documents.model import Document
from core.embeddings.identity import BUILTIN, EmbedderRef
from core.operations.ingest.run import DEFAULT_BATCH_SIZE, IngestSummary, Source, ingest
from core.operations.strategies import RunOptions
from ui.long_run import run_live
from ui.resources import chunk_store, embedding_settings, llm_settings, prompt_library


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
    cancel_key: str = "ingest_cancel",
) -> IngestSummary | None:
    """Chunk and store ``documents`` into set ``name`` behind ``st.progress``, embedded by
    ``embedder`` (with this session's endpoint settings).

    Returns the summary, or None after showing the error's sentence (a failed run leaves the
    store as it was; a stopped one keeps what it stored, and a re-run skips it). It runs live
    (see :func:`ui.long_run.run_live`): Cancel, a reload or leaving the page stops it."""
    llm, templates, store, embedding = (llm_settings(), prompt_library(), chunk_store(),
                                        embedding_settings())
    sources = [Source.from_document(d) for d in documents]
    summary = run_live(lambda live: ingest(
        sources, name, strategy, settings, batch_size=batch_size, store=store,
        description=description, embedder=embedder, embedding=embedding,
        options=RunOptions(llm=llm, library=templates, progress=live.progress,
                           cancel=live.cancel, listener=live.listener())),
        key=cancel_key)
    return summary.result

"""Every resource the pages share, held once: the document library, the chunk store, the prompt
library, token counts, the HTML drawn from content (highlighted text, bar charts), the maps of
chunks, page images (a region highlighted on them), and this session's LLM, answer, judge,
embedding and reranking settings.

Nothing else in the app caches a resource or drawn HTML. The store and the prompt library are
keyed by where they live (data folder, Chroma server), so a test or a second data folder gets its
own.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from core import config
from core.documents.model import Document, PageBox
from core.embeddings import embed
from core.embeddings.settings import EmbeddingSettings, load_embedding_settings
from core.library import DocumentLibrary, default_library
from core.llm.settings import (
    AnswerSettings,
    LLMSettings,
    load_answer_settings,
    load_judge_settings,
    load_settings,
)
from core.operations.chunk_map import ChunkMap, chunk_set_map, evaluation_map
from core.operations.evaluation import CandidateResult
from core.operations.page_view import page_picture
from core.prompts.library import PromptLibrary
from core.retrieval.rerank_settings import RerankSettings, load_rerank_settings
from core.store import ChunkStore
from core.store.connection import CHROMA_HOST_ENV, CHROMA_PORT_ENV
from core.tokens import count_tokens, prepare_tokens

LLM_SETTINGS = "llm_settings"  # session key: this session's LLMSettings (API key included)
EMBEDDING_SETTINGS = "embedding_settings"  # … its EmbeddingSettings
RERANK_SETTINGS = "rerank_settings"  # … its RerankSettings
JUDGE_SETTINGS = "judge_settings"  # … the answer judge's own LLMSettings (maybe unconfigured)
SAMPLES_DIR = config.SAMPLES_DIR


@st.cache_resource(show_spinner="First start: converting the sample documents (once, a few "
                   "seconds)…")
def _library(data_dir: str) -> DocumentLibrary:
    lib = default_library()
    if SAMPLES_DIR.is_dir():
        lib.ensure_samples(SAMPLES_DIR)
    return lib


def library() -> DocumentLibrary:
    """The library in the data folder, with the sample documents added on first start."""
    return _library(str(config.data_dir()))


@st.cache_resource(show_spinner="Opening the chunk store…")
def _chunk_store(data_dir: str, host: str, port: str) -> ChunkStore:
    return ChunkStore()


def chunk_store() -> ChunkStore:
    """One store per data folder and Chroma server; StoreError when the server is unreachable."""
    return _chunk_store(str(config.data_dir()), os.environ.get(CHROMA_HOST_ENV, ""),
                        os.environ.get(CHROMA_PORT_ENV, ""))


@st.cache_resource
def _prompt_library(data_dir: str) -> PromptLibrary:
    return PromptLibrary()


def prompt_library() -> PromptLibrary:
    return _prompt_library(str(config.data_dir()))


BoxKey = tuple[int, float, float, float, float]


@st.cache_data(show_spinner=False, max_entries=64)
def _page_image(data_dir: str, doc_id: str, page: int, boxes: tuple[BoxKey, ...],
                whole: bool) -> bytes:
    return page_picture(library(), doc_id, page,
                        [PageBox(page=p, x0=x0, top=top, x1=x1, bottom=bottom)
                         for p, x0, top, x1, bottom in boxes], whole=whole)


def page_image(doc_id: str, page: int, boxes: Sequence[PageBox] = (), *,
               whole: bool = True) -> bytes:
    """A page of a stored PDF as a JPEG, ``boxes`` highlighted on it (the whole page, or the
    band around them): drawn once from its original, then kept on disk and, for the last
    pages and regions viewed, in memory."""
    key = tuple((b.page, b.x0, b.top, b.x1, b.bottom) for b in boxes)
    return _page_image(str(config.data_dir()), doc_id, page, key, whole)


@st.cache_data(show_spinner=False, max_entries=256)
def _token_count(doc_id: str, text: str) -> int:
    return count_tokens(text)


def token_count(document: Document) -> int:
    """The document's tokens (cl100k), counted once per document."""
    return _token_count(document.doc_id, document.text)


@st.cache_data(show_spinner=False, max_entries=512)
def _html(kind: str, key: str, _draw: Callable[[], str]) -> str:
    return _draw()


def html_by_content(kind: str, content: object, draw: Callable[[], str]) -> str:
    """The HTML ``draw`` makes, drawn once per ``kind`` and content: ``content`` is everything
    the drawing depends on (a document id, which is its content hash, spans, colours…), so an
    unchanged part of a page costs nothing on the next click, whatever objects carry it."""
    key = hashlib.sha256(repr(content).encode()).hexdigest()
    return _html(kind, key, draw)


@st.cache_data(show_spinner="Drawing the map…", max_entries=8)
def _set_map(data_dir: str, location: str, name: str, version: str) -> ChunkMap:
    return chunk_set_map(chunk_store(), name, {d.doc_id: d.source_name
                                               for d in library().documents()})


def set_map(name: str) -> ChunkMap:
    """The map of a chunk set, drawn again when the set changes (its documents or chunks)."""
    store = chunk_store()
    info = store.info(name)
    version = json.dumps([info.created, info.doc_ids, info.chunks])
    return _set_map(str(config.data_dir()), store.location, name, version)


@st.cache_data(show_spinner="Drawing the map…", max_entries=8)
def _evaluation_map(key: str, _result: CandidateResult,
                    _documents: Mapping[str, Document]) -> ChunkMap:
    return evaluation_map(_result, _documents, chunk_store(), embedding_settings())


def result_map(result: CandidateResult, documents: Mapping[str, Document]) -> ChunkMap:
    """The map of an evaluated configuration's chunks (held by configuration and documents)."""
    key = json.dumps([result.candidate.key(),
                      sorted((cid, documents[cid].doc_id) for cid in result.chunk_counts)])
    return _evaluation_map(key, result, documents)


@st.cache_resource(show_spinner=False)
def warm_up() -> threading.Thread:
    """Load the embedding model and the fast token encoder in the background once per server,
    so the first chunk set, question or long count does not wait for them (the encoder's file
    is derived the first time on a machine). Not a daemon thread: the app starts it once a page
    is drawn, and a process that exits while the model is half loaded aborts (a short test run),
    so exit waits for it."""

    def load() -> None:
        embed(["warm up"], use_cache=False)
        prepare_tokens()

    thread = threading.Thread(target=load, name="warm-up")
    thread.start()
    return thread


@st.cache_resource(show_spinner=False, max_entries=64)
def settle_heap(page: str) -> None:
    """Once per page and server, after the page's first run: collect, then freeze what is left
    (the modules, models and caches the page loaded) out of the collector's sight.

    Streamlit runs a full garbage collection after every script run; over the objects a warm
    server holds, that was a noticeable part of a click, after the page was already drawn (the
    browser waits for it to say the run is over; ``bench.bench_ui`` times clicks). Frozen, they
    are not walked again; the collection then only sees what later runs make.
    """
    gc.collect()
    gc.freeze()


def llm_settings() -> LLMSettings:
    """This session's LLM settings (typed on the Settings page, with the API key), else the
    ones from the environment, secrets and the saved file."""
    settings = st.session_state.get(LLM_SETTINGS)
    return settings if isinstance(settings, LLMSettings) else load_settings()


def judge_settings() -> LLMSettings | None:
    """The answer judge's own endpoint (typed on Settings, with its key, else the saved one,
    the environment or secrets), else None: the answer model judges."""
    settings = st.session_state.get(JUDGE_SETTINGS)
    if isinstance(settings, LLMSettings):
        return settings if settings.configured else None
    return load_judge_settings()


def embedding_settings() -> EmbeddingSettings:
    """This session's embedding endpoint (typed on Settings, with its key), else the saved one."""
    settings = st.session_state.get(EMBEDDING_SETTINGS)
    return settings if isinstance(settings, EmbeddingSettings) else load_embedding_settings()


def rerank_settings() -> RerankSettings:
    """This session's reranking endpoint (typed on Settings, with its key), else the saved one."""
    settings = st.session_state.get(RERANK_SETTINGS)
    return settings if isinstance(settings, RerankSettings) else load_rerank_settings()


def answer_settings() -> AnswerSettings:
    return load_answer_settings()


def clear() -> None:
    """Forget every held resource (tests switch data folders between runs)."""
    for cached in (_library, _chunk_store, _prompt_library, _token_count, _html, _page_image,
                   _set_map, _evaluation_map):
        cached.clear()

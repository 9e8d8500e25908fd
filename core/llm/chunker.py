"""The "llm" chunking strategy: the LLM pipeline behind the ordinary ``Chunker`` interface.

The configuration holds only chunking choices (it is copied into every chunk); the connection
comes from :func:`core.llm.settings.load_settings` unless a page passes the session's settings as
``llm_settings``, so an API key never travels inside a config, a chunk or a cache key.
"""

from __future__ import annotations

import threading
from typing import Literal

from pydantic import Field

from core.chunking.base import Chunk, Chunker, ChunkerConfig
from core.documents.model import Document
from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.phases import DEFAULT_SNAP_TOLERANCE
from core.llm.pipeline import LLMPipeline, LLMRun, Progress, Templates
from core.llm.settings import LLMSettings, load_settings
from core.prompts.library import PromptLibrary


class LLMConfig(ChunkerConfig):
    size: int = Field(500, ge=50, le=8192)  # tokens; longer chunks go to the recursive splitter
    mode: Literal["anchors", "offsets"] = "anchors"  # how the model names positions
    summaries: bool = True  # phases 3/3b and table summaries
    snap_tolerance: int = Field(DEFAULT_SNAP_TOLERANCE, ge=0, le=5000)  # offsets mode, chars
    cache: bool = True


class LLMChunker(Chunker):
    strategy = "llm"
    config: LLMConfig

    def __init__(
        self,
        config: LLMConfig,
        *,
        llm_settings: LLMSettings | None = None,
        library: PromptLibrary | None = None,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        super().__init__(config)
        self.llm_settings = llm_settings
        self.library = library
        self.progress = progress
        self.cancel = cancel
        self.last_runs: list[LLMRun] = []

    def chunk(self, document: Document) -> list[Chunk]:
        return self.run([document])[0].chunks

    def run(self, documents: list[Document]) -> list[LLMRun]:
        """The full result per document (structure, boundaries, snap distances, stats)."""
        settings = self.llm_settings or load_settings()
        cache = LLMCache(enabled=self.config.cache)
        try:
            with LLMClient(settings) as client:
                pipeline = LLMPipeline(
                    self, client,
                    templates=Templates.load(self.config.mode, self.library),
                    cache=cache, size=self.config.size, summaries=self.config.summaries,
                    snap_tolerance=self.config.snap_tolerance,
                    progress=self.progress, cancel=self.cancel,
                )
                self.last_runs = pipeline.run_many(documents)
        finally:
            cache.close()
        return self.last_runs

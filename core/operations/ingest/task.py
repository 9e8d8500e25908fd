"""One document's conversion and chunking as a unit of work a worker runs (this process, or a Ray
task: :mod:`core.operations.ingest.workers`). It holds only what travels well — the strategy, its
settings and the LLM connection — and hands back the chunks, or the document's own error."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.errors import ChunkLabError
from core.llm.run import RunWarning
from core.operations.strategies import RunOptions, chunking


class Loadable(Protocol):
    """A document to ingest (:class:`core.operations.ingest.run.Source`)."""

    @property
    def load(self) -> Callable[[], Document]: ...


@dataclass(frozen=True)
class Chunked:
    chunks: list[Chunk] = field(default_factory=list)
    warnings: list[RunWarning] = field(default_factory=list)  # of an LLM run
    error: str = ""  # the sentence of a document that could not be converted or chunked


@dataclass(frozen=True)
class ChunkTask:
    strategy: str
    settings: dict[str, Any]
    options: RunOptions  # the LLM connection and prompt library; cancellation in this process

    def __call__(self, source: Loadable) -> Chunked:
        try:
            made = chunking(source.load(), self.strategy, self.settings, self.options)
        except ChunkLabError as err:
            return Chunked(error=str(err))
        return Chunked(made.chunks, made.llm_run.warning_list() if made.llm_run else [])

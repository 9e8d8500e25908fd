"""The interface every local chunking strategy implements, and the one way chunks are made.

Invariant for every strategy: ``chunk.text == document.text[chunk.start:chunk.end]``; chunks come
in document order; together they cover every non-whitespace character of the document. A local
chunker is pure: the same document, configuration and embedder give the same chunks, with no
network (unless the embedder is an endpoint).
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from core.chunking.chunk import Chunk, ChunkType, LLMAnnotations
from core.documents.model import Document
from core.embeddings.port import Embedder
from core.tokens import DEFAULT_ENCODING, count_tokens


class ChunkerConfig(BaseModel):
    """Settings shared by every strategy; each strategy subclasses this with its own fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    encoding: str = Field(DEFAULT_ENCODING, json_schema_extra={"advanced": True},
                          description="The tiktoken encoding that counts tokens")

    def key(self) -> str:
        """Stable string of the settings, for cache keys and chunk ids."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True)

    def describe(self) -> str:
        """The settings in a few words, as a table of chunk sets shows them ("500 tokens,
        overlap 50, tables whole"); nothing for a strategy without a size (hand edits)."""
        return ""


class ChunkFactory:
    """Chunks of one document under one strategy and configuration.

    A chunk's id is a hash of the document, the strategy, the configuration and the span, so the
    same chunking of the same document gives the same ids (a re-ingest replaces, not duplicates).
    """

    def __init__(self, document: Document, strategy: str, config: ChunkerConfig) -> None:
        self.document = document
        self.strategy = strategy
        self.encoding = config.encoding
        self._settings = config.model_dump(mode="json")
        # the id's hash of what every chunk shares, hashed once (speed)
        self._hasher = hashlib.sha256(
            f"{document.doc_id}|{strategy}|{config.key()}".encode())

    def make(
        self,
        start: int,
        end: int,
        *,
        tokens: int | None = None,
        chunk_type: ChunkType = "text",
        heading_path: list[str] | None = None,
        table_header: str | None = None,
        llm: LLMAnnotations | None = None,
    ) -> Chunk:
        """The chunk of ``text[start:end]``; ``tokens`` when the caller knows the exact count,
        ``heading_path`` when it knows better than the document's sections, ``table_header``
        for a part of a table that does not hold the header."""
        document = self.document
        text = document.text[start:end]
        hasher = self._hasher.copy()
        hasher.update(f"|{start}|{end}".encode())
        pages, boxes = document.provenance(start, end)
        # Every field is made here with its right type: no validation (speed: a third of the
        # chunker's own time on short chunks went to it)
        return Chunk.trusted(
            id=hasher.hexdigest()[:16],
            doc_id=document.doc_id,
            strategy=self.strategy,
            config=dict(self._settings),
            start=start,
            end=end,
            text=text,
            chunk_type=chunk_type,
            tokens=count_tokens(text, self.encoding) if tokens is None else tokens,
            heading_path=document.heading_path(start) if heading_path is None else heading_path,
            table_header=table_header,
            llm=llm,
            pages=pages,
            boxes=boxes,
            front_matter=document.matter_of(start, end),
        )


class Chunker(ABC):
    """One local strategy. Validate the configuration in ``__init__``; ``chunk`` must be pure.

    ``embedder``: the chunk set's embedder, for a strategy that measures meaning with it
    (cluster; None: MiniLM); the others never read it."""

    strategy: ClassVar[str]

    def __init__(self, config: ChunkerConfig, embedder: Embedder | None = None) -> None:
        self.config = config
        self.embedder = embedder

    @abstractmethod
    def chunk(self, document: Document) -> list[Chunk]: ...

    def factory(self, document: Document) -> ChunkFactory:
        return ChunkFactory(document, self.strategy, self.config)

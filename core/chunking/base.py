"""The chunk model and the interface every chunking strategy implements.

Invariant for every strategy: ``chunk.text == document.text[chunk.start:chunk.end]``; chunks come
in document order; together they cover every non-whitespace character of the document.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.documents.model import Document
from core.tokens import DEFAULT_ENCODING, count_tokens

ChunkType = Literal["text", "table"]


class Chunk(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    doc_id: str
    strategy: str
    config: dict[str, Any]
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    chunk_type: ChunkType = "text"
    tokens: int
    heading_path: list[str] = []
    summary: str | None = None
    context_prefix: str | None = None
    boundary_type: str | None = None
    justification: str | None = None


class ChunkerConfig(BaseModel):
    """Settings shared by every strategy; each strategy subclasses this with its own fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    encoding: str = DEFAULT_ENCODING

    def key(self) -> str:
        """Stable string of the settings, for cache keys and chunk ids."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True)


class Chunker(ABC):
    """One strategy. Validate the configuration in ``__init__``; ``chunk`` must be pure."""

    strategy: ClassVar[str]

    def __init__(self, config: ChunkerConfig) -> None:
        self.config = config
        self._settings: tuple[dict[str, Any], str] | None = None

    @abstractmethod
    def chunk(self, document: Document) -> list[Chunk]: ...

    def make_chunk(
        self, document: Document, start: int, end: int, *, tokens: int | None = None, **fields: Any
    ) -> Chunk:
        """Build a chunk from a span of the document: text, tokens and heading path derived.

        ``tokens`` may be passed when the caller already knows the exact count of the span.
        """
        text = document.text[start:end]
        cached = getattr(self, "_settings", None)
        if cached is None:  # the config is frozen: dump it once per chunker
            cached = self._settings = (self.config.model_dump(mode="json"), self.config.key())
        settings, key = cached
        digest = hashlib.sha256(
            f"{document.doc_id}|{self.strategy}|{key}|{start}|{end}".encode()
        ).hexdigest()[:16]
        return Chunk(
            id=digest,
            doc_id=document.doc_id,
            strategy=self.strategy,
            config=settings,
            start=start,
            end=end,
            text=text,
            tokens=count_tokens(text, self.config.encoding) if tokens is None else tokens,
            heading_path=document.heading_path(start),
            **fields,
        )

"""The description of a chunk set, kept as JSON in its Chroma collection's metadata."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from core.embeddings.model_files import MODEL_ID
from core.store.views import EMBEDDING_INPUT_VERSION


class ChunkSetInfo(BaseModel):
    name: str
    strategy: str
    settings: dict[str, Any] = {}
    prompt_versions: dict[str, str] = {}
    embedder: str = MODEL_ID
    created: str = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="microseconds")
    )
    description: str = ""
    docs: int = 0
    chunks: int = 0
    doc_ids: list[str] = []  # documents stored completely (an interrupted ingest redoes the rest)
    over_limit: int = 0  # chunks MiniLM does not read to their end (ChunkViews.truncated)
    max_word_pieces: int = 0
    # Characters of the chunks' texts, and those inside a view MiniLM reads to its end.
    read_chars: int = 0
    chars: int = 0
    # What was embedded (core.store.views), set when the set is created; older sets read 0.
    embedding_input: int = 0

    @property
    def read_share(self) -> float | None:
        """Share of the chunks' text the embedder read (None for sets stored before it was
        counted)."""
        return self.read_chars / self.chars if self.chars else None

    @property
    def stale(self) -> bool:
        """Embedded with an older embedding input: retrieval differs from the evaluation."""
        return self.embedding_input != EMBEDDING_INPUT_VERSION

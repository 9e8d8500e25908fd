"""The description of a chunk set, kept as JSON in its Chroma collection's metadata."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from core.embeddings.encoder import DIMENSION, MAX_WORD_PIECES
from core.embeddings.identity import EmbedderRef
from core.embeddings.model_files import MODEL_ID
from core.store.views import EMBEDDING_INPUT_VERSION


class FailedDocument(BaseModel):
    """A document an ingest could not chunk: what the user is told, and what a retry needs."""

    doc_id: str
    name: str
    error: str


class ChunkSetInfo(BaseModel):
    name: str
    strategy: str
    settings: dict[str, Any] = {}
    prompt_versions: dict[str, str] = {}
    embedder: str = MODEL_ID  # the embedder's model name
    embedder_url: str = ""  # where it ran: "" (local) or its endpoint, without credentials
    dimension: int = DIMENSION  # of its vectors (0 until the first chunk is stored)
    created: str = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="microseconds")
    )
    description: str = ""
    docs: int = 0
    chunks: int = 0
    doc_ids: list[str] = []  # documents stored completely (an interrupted ingest redoes the rest)
    # Document id -> file name, as ingested: prompts and citations name a source by it even
    # when the document is not in the library (a folder ingested with the CLI).
    doc_names: dict[str, str] = {}
    over_limit: int = 0  # chunks MiniLM does not read to their end (ChunkViews.truncated;
    # MiniLM sets only: an endpoint's limit is its own)
    windowed: int = 0  # text chunks MiniLM reads in several windows (ChunkViews.windowed)
    max_word_pieces: int = 0
    # Characters of the chunks' texts, and those inside a view MiniLM reads to its end.
    read_chars: int = 0
    chars: int = 0
    # What was embedded (core.store.views), set when the set is created; older sets read 0.
    embedding_input: int = 0
    # Documents an ingest into this set could not chunk (an LLM strategy's failures, say) and
    # that are not stored since; ingesting them again (a retry) takes them off the list.
    failed: list[FailedDocument] = []

    @property
    def embedder_ref(self) -> EmbedderRef:
        return EmbedderRef(model=self.embedder, base_url=self.embedder_url)

    @property
    def word_piece_limit(self) -> int:
        """The word pieces MiniLM reads at once: what ``over_limit`` and ``windowed`` count
        against."""
        return MAX_WORD_PIECES

    @property
    def read_share(self) -> float | None:
        """Share of the chunks' text the embedder read (None for sets stored before it was
        counted)."""
        return self.read_chars / self.chars if self.chars else None

    def documents_text(self) -> str:
        """``14 documents``, or ``9 of 14 documents`` when some could not be chunked."""
        tried = self.docs + len(self.failed)
        noun = "document" if tried == 1 else "documents"
        return f"{self.docs:,} of {tried:,} {noun}" if self.failed else f"{self.docs:,} {noun}"

    @property
    def stale(self) -> bool:
        """Embedded with an older embedding input: retrieval differs from the evaluation."""
        return self.embedding_input != EMBEDDING_INPUT_VERSION

"""Chunk sets in Chroma (embedded, or the server ``CHROMA_HOST`` names): store and query them."""

from core.store.chunk_store import ChunkStore
from core.store.info import ChunkSetInfo, FailedDocument

__all__ = ["ChunkSetInfo", "ChunkStore", "FailedDocument"]

"""The embedder as Chroma sees it: an ``EmbeddingFunction`` over :func:`embed`.

Registered with Chroma under :data:`CHROMA_FUNCTION_NAME`, so a persisted collection reopens
with it. Chroma takes seconds to import, so it is imported only when a store asks for this.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from core.embeddings.encoder import MAX_WORD_PIECES, embed
from core.embeddings.model_files import MODEL_ID

CHROMA_FUNCTION_NAME = "chunklab-minilm-int8"  # stored in every collection: never rename


@cache
def _embedding_function_class() -> type:
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import register_embedding_function

    @register_embedding_function
    class ChunkLabEmbeddingFunction(EmbeddingFunction[Documents]):
        """Chroma's view of :func:`embed` (cached, batched, offline)."""

        def __init__(self) -> None:
            pass

        def __call__(self, input: Documents) -> Embeddings:
            return list(embed(list(input)))

        @staticmethod
        def name() -> str:
            return CHROMA_FUNCTION_NAME

        def default_space(self) -> str:  # type: ignore[override]
            return "cosine"

        def get_config(self) -> dict[str, Any]:
            return {"model": MODEL_ID, "max_word_pieces": MAX_WORD_PIECES}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> ChunkLabEmbeddingFunction:
            return ChunkLabEmbeddingFunction()

    return ChunkLabEmbeddingFunction


@cache
def get_embedding_function() -> Any:
    """The Chroma ``EmbeddingFunction`` (registered with Chroma on first call)."""
    return _embedding_function_class()()

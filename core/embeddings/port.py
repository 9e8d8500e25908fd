"""The embedding port: every embedder ChunkLab can use, behind one small interface.

The built-in MiniLM is the default everywhere; an OpenAI-compatible endpoint
(:mod:`core.embeddings.endpoint_embedder`) is the user's own model. :func:`resolve` turns an
:class:`~core.embeddings.identity.EmbedderRef` (what a chunk set or a configuration records)
into an embedder, with the session's endpoint settings (its key) when they name the same
endpoint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from core.embeddings.encoder import embed
from core.embeddings.endpoint_embedder import EndpointEmbedder
from core.embeddings.identity import BUILTIN, EmbedderRef
from core.embeddings.settings import EmbeddingSettings, load_embedding_settings
from core.errors import EmbeddingError


class Embedder(Protocol):
    """Texts in, rows of norm 1 out (float32, cached by text under the embedder's ref).

    ``embed`` is for what is searched (chunks), ``embed_queries`` for what searches (questions):
    the same for symmetric models, a different prefix for asymmetric ones (e5's ``query:``).
    """

    ref: EmbedderRef

    @property
    def parallel_texts(self) -> int:
        """Texts worth one call (an endpoint's batch x concurrency); 0: no preference."""
        ...

    def embed(self, texts: Sequence[str], *, use_cache: bool = True,
              persist: bool = True) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str], *, persist: bool = True) -> np.ndarray: ...


class MiniLM:
    """The built-in all-MiniLM-L6-v2 (:mod:`core.embeddings.encoder`)."""

    ref = BUILTIN
    parallel_texts = 0

    def embed(self, texts: Sequence[str], *, use_cache: bool = True,
              persist: bool = True) -> np.ndarray:
        return embed(texts, use_cache=use_cache, persist=persist)

    def embed_queries(self, texts: Sequence[str], *, persist: bool = True) -> np.ndarray:
        return embed(texts, persist=persist)


# Local embedders by name. MiniLM is the only one shipped; the offline alternatives measured
# in bench/bench_offline_embedders.py register here for that measurement.
LOCAL: dict[str, Callable[[], Embedder]] = {BUILTIN.model: MiniLM}


def resolve(ref: EmbedderRef, settings: EmbeddingSettings | None = None) -> Embedder:
    """The embedder ``ref`` names. For an endpoint, ``settings`` (default: the saved ones and
    the environment) bring the key, batch size and timeouts when they point at the same
    address; another address is asked without a key."""
    if ref.local:
        if ref.model in LOCAL:
            return LOCAL[ref.model]()
        raise EmbeddingError(f"There is no local embedder named “{ref.model}”; the built-in "
                             "one is MiniLM.")
    return EndpointEmbedder((settings or load_embedding_settings()).aimed_at(ref))


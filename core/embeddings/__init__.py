"""Embeddings behind one port: the built-in MiniLM (offline, int8 ONNX) and the user's own
model at an OpenAI-compatible endpoint.

``port`` (the :class:`~core.embeddings.port.Embedder` interface, :func:`resolve`),
``identity`` (:class:`EmbedderRef`: what chunk sets, results and caches are keyed by),
``settings`` (the endpoint's settings, and the embedders a user may choose),
``endpoint_embedder`` (the endpoint client), ``cache`` (vectors by text hash, per embedder),
``model_files`` / ``encoder`` (MiniLM: :func:`embed`, cached and batched), ``chroma`` (MiniLM
for Chroma). What is embedded for a chunk is the store's business (:mod:`core.store.views`).
"""

from core.embeddings.encoder import DIMENSION, MAX_WORD_PIECES, embed, word_pieces
from core.embeddings.identity import BUILTIN, EmbedderRef
from core.embeddings.model_files import MODEL_ID
from core.embeddings.port import Embedder, resolve
from core.embeddings.settings import EmbeddingSettings

__all__ = ["BUILTIN", "DIMENSION", "MAX_WORD_PIECES", "MODEL_ID", "Embedder", "EmbedderRef",
           "EmbeddingSettings", "embed", "resolve", "word_pieces"]

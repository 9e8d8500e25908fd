"""Offline sentence embeddings (all-MiniLM-L6-v2, int8 ONNX) and what is embedded per chunk.

``model_files`` (the graph and tokenizer files), ``encoder`` (:func:`embed`, cached and batched),
``chroma`` (the same embedder for Chroma). What is embedded for a chunk is the store's
business (:mod:`core.store.views`).
"""

from core.embeddings.encoder import DIMENSION, MAX_WORD_PIECES, embed, word_pieces
from core.embeddings.model_files import MODEL_ID

__all__ = ["DIMENSION", "MAX_WORD_PIECES", "MODEL_ID", "embed", "word_pieces"]

"""Offline stand-ins shared by tests: an embedder that needs no model."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from core.embeddings.identity import EmbedderRef


def fake_embed(texts: Sequence[str]) -> np.ndarray:
    """Bag of hashed words: deterministic (the same in every process, so golden files hold),
    offline, L2-normalised like the real embedder."""
    out = np.zeros((len(texts), 32), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.split():
            out[i, zlib.crc32(w.encode()) % 32] += 1.0
        out[i, 0] += 0.01
    return out / np.linalg.norm(out, axis=1, keepdims=True)


class FakeEmbedder:
    """:func:`fake_embed` behind the embedder port, counting the texts it was given."""

    ref = EmbedderRef(model="fake-bag-of-words")
    parallel_texts = 0

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], *, use_cache: bool = True,
              persist: bool = True) -> np.ndarray:
        self.texts += texts
        return fake_embed(texts)

    def embed_queries(self, texts: Sequence[str], *, persist: bool = True) -> np.ndarray:
        return self.embed(texts)

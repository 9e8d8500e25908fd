"""Offline stand-ins shared by tests: an embedder that needs no model."""

from __future__ import annotations

import numpy as np


def fake_embed(texts: list[str]) -> np.ndarray:
    """Bag of hashed words: deterministic, offline, L2-normalised like the real embedder."""
    out = np.zeros((len(texts), 32), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.split():
            out[i, hash(w) % 32] += 1.0
        out[i, 0] += 0.01
    return out / np.linalg.norm(out, axis=1, keepdims=True)

"""Two dimensions of many: a PCA of chunk vectors, so what retrieval sees can be drawn as a map.

PCA with numpy alone (the eigenvectors of the 384 × 384 covariance, not an SVD of every row),
once per chunk set (the page keeps the map), and the same vectors always give the same map
(each axis is turned so that its largest loading is positive). Other vectors — a question, a
reference excerpt — are placed with the chunks' own axes, so their distances on the map mean
what the chunks' do. UMAP would keep local neighbourhoods better, but it brings numba, llvmlite,
scipy and scikit-learn, and its import alone is slow and large before any fit compiles: far too
heavy for a map drawn on a click (docs/benchmarks.md, "The map of chunks").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Projection:
    """The two principal axes of a set of vectors and the share of their variance each keeps."""

    mean: np.ndarray  # (d,)
    axes: np.ndarray  # (2, d), unit rows
    explained: tuple[float, float]

    def place(self, vectors: np.ndarray) -> np.ndarray:
        """``(n, 2)`` map coordinates of ``vectors`` (``(n, d)``) on these axes."""
        return (np.asarray(vectors, dtype=np.float64) - self.mean) @ self.axes.T


def pca(vectors: np.ndarray) -> Projection:
    """The 2-D PCA of ``vectors`` (one row each). Fewer than two distinct rows give a map whose
    points sit at the origin (an axis with no variance explains nothing)."""
    data = np.asarray(vectors, dtype=np.float32)  # float32 halves the one big product
    if data.ndim != 2 or not len(data):
        raise ValueError("A map needs at least one vector.")
    mean = data.mean(axis=0, dtype=np.float64)
    centred = data - mean.astype(np.float32)
    covariance = (centred.T @ centred).astype(np.float64) / max(1, len(data) - 1)
    values, vectors_ = np.linalg.eigh(covariance)  # ascending
    order = np.argsort(values)[::-1][:2]
    axes = vectors_[:, order].T
    if len(axes) < 2:  # one dimension only
        axes = np.vstack([axes, np.zeros_like(axes[0])])
    signs = np.sign(axes[np.arange(2), np.argmax(np.abs(axes), axis=1)])
    axes = axes * np.where(signs == 0, 1.0, signs)[:, None]
    total = float(values.clip(min=0).sum())
    explained = [float(values[i].clip(min=0)) / total if total > 0 else 0.0 for i in order]
    explained += [0.0] * (2 - len(explained))
    return Projection(mean, axes, (explained[0], explained[1]))

"""Semantic chunking: sentences grouped where their meaning holds together, offline.

Sentences are embedded with the local MiniLM model and grouped by dynamic programming, as in
Chroma's ClusterSemanticChunker: a chunk of sentences ``i..j-1`` earns the sum of the pairwise
similarities inside it, after subtracting the mean similarity of the window (so only pairs
more alike than average pull sentences together) and ``bias``; the DP picks the split with the
highest total among those whose chunks stay under ``size``.

Why this and not Kamradt's percentile breakpoints: the DP respects the maximum size by
construction and looks at the whole chunk rather than one neighbouring pair, so a single
noisy similarity dip does not cut a paragraph, and there is no percentile that changes meaning
with document length. Its knobs: ``size`` (maximum per chunk), ``bias`` (higher: smaller,
tighter chunks) and ``window`` (sentences per DP block; bounds memory at ``window**2``).
A sentence longer than ``size`` is cut into windows at token boundaries. A heading joins the
sentence it heads (one unit, never a chunk of a few tokens by itself or the tail of the chunk
before its text), as long as the two fit in ``size``.
"""

from __future__ import annotations

import bisect

import numpy as np
from pydantic import Field, model_validator

from core.chunking.boundaries import sentence_spans
from core.chunking.chunk import Chunk
from core.chunking.table_aware import Cut, SegmentChunker, Size, SizedConfig
from core.chunking.token_index import TokenIndex
from core.documents.model import Document
from core.embeddings import embed


class SemanticConfig(SizedConfig):
    size: Size = 400
    bias: float = Field(0.0, ge=-1.0, le=1.0,
                        description="Higher: smaller, tighter chunks; lower: larger ones")
    window: int = Field(400, ge=2, le=5000, json_schema_extra={"advanced": True},
                        description="Sentences per grouping block (bounds memory)")

    @model_validator(mode="after")
    def _check_semantic(self) -> SemanticConfig:
        if self.overlap:
            raise ValueError("semantic chunks do not overlap: set overlap to 0")
        if self.window < 2:
            raise ValueError(f"window must be at least 2 sentences, not {self.window}")
        return self


def best_split(similarity: np.ndarray, sizes: np.ndarray, limit: int, bias: float) -> list[int]:
    """Start indices of the chunks that maximise within-chunk similarity under ``limit``."""
    m = len(sizes)
    if m < 2:
        return [0] * m
    sim = similarity - similarity[np.triu_indices(m, k=1)].mean() - bias
    np.fill_diagonal(sim, 0.0)
    prefix = np.zeros((m + 1, m + 1))
    prefix[1:, 1:] = sim.cumsum(0).cumsum(1)
    diagonal = np.diagonal(prefix)
    ends = np.concatenate([[0], np.cumsum(sizes)])
    best = np.zeros(m + 1)
    choice = np.zeros(m + 1, dtype=np.int64)
    for j in range(1, m + 1):
        first = min(int(np.searchsorted(ends, ends[j] - limit, side="left")), j - 1)
        i = np.arange(first, j)
        score = best[i] + prefix[j, j] - prefix[i, j] - prefix[j, i] + diagonal[i]
        pick = int(np.argmax(score))
        best[j], choice[j] = score[pick], first + pick
    starts, j = [], m
    while j > 0:
        starts.append(int(choice[j]))
        j = starts[-1]
    return starts[::-1]


class SemanticChunker(SegmentChunker):
    strategy = "semantic"
    config: SemanticConfig
    _headings: list[tuple[int, int]] = []  # spans of the chunked document's headings, sorted

    def chunk(self, document: Document) -> list[Chunk]:
        self._headings = sorted((b.start, b.end) for b in document.blocks
                                if b.kind in ("heading", "title"))
        return super().chunk(document)

    def _is_heading(self, text: str, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` is a heading (with its Markdown marks, if any)."""
        i = bisect.bisect_left(self._headings, (end, -1)) - 1  # the last one starting before end
        if i < 0:
            return False
        first, last = self._headings[i]
        return (last > start and not text[start:max(start, first)].strip("# \t")
                and not text[min(end, last):end].strip())

    def _units(self, index: TokenIndex, start: int, end: int) -> list[tuple[int, int]]:
        """The sentences of ``text[start:end]`` (windows of one over ``size``), each run of
        headings joined to the sentence after it when they fit together."""
        size = self.config.size
        units: list[tuple[int, int]] = []
        heads: tuple[int, int] | None = None  # the headings waiting for their text
        for a, b in sentence_spans(index.text, start, end):
            if self._is_heading(index.text, a, b):
                heads = (a, b) if heads is None else (heads[0], b)
                continue
            if heads is not None and self.measure(index, heads[0], b) <= size:
                a = heads[0]
            elif heads is not None:  # too long together: the headings stay a unit of their own
                units.append(heads)
            heads = None
            if self.measure(index, a, b) <= size:
                units.append((a, b))
            else:  # an oversized sentence: cut in windows, each its own unit
                units += [(x, y) for x, y, _ in self.window_cut(index, a, b, size, 0)]
        if heads is not None:  # headings with no text after them in the segment
            units.append(heads)
        return units

    def split(self, index: TokenIndex, start: int, end: int) -> list[Cut]:
        text, size = index.text, self.config.size
        units = self._units(index, start, end)
        out: list[Cut] = []
        if not units:
            return out
        bounds = [a for a, _ in units] + [units[-1][1]]
        marks = bounds if self.config.unit == "chars" else index.indices(bounds)
        sizes = np.diff(np.asarray(marks))
        vectors = embed([text[a:b] for a, b in units])
        for w in range(0, len(units), self.config.window):
            block = slice(w, min(w + self.config.window, len(units)))
            vec = vectors[block]
            starts = best_split(vec @ vec.T, sizes[block], size, self.config.bias)
            for s, e in zip(starts, [*starts[1:], len(vec)], strict=False):
                a, b = units[w + s][0], units[w + e - 1][1]
                if self.measure(index, a, b) <= size:
                    out.append(Cut(a, b, index.count(a, b)))
                else:  # joined sentences count a little more than their sum
                    out += self.window_cut(index, a, b, size, 0)
        return out

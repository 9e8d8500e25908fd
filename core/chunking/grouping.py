"""Chunking by meaning: units of text embedded, then grouped by dynamic programming.

The grouping is Chroma's ClusterSemanticChunker's: a chunk of units ``i..j-1`` earns the sum of
the pairwise similarities inside it, after subtracting the mean similarity of the block (so only
pairs more alike than average pull units together) and ``bias``; the DP picks the split with the
highest total among those whose chunks stay under ``size``. It respects the maximum size by
construction and looks at the whole chunk rather than one neighbouring pair, so a single noisy
similarity dip does not cut a paragraph, and there is no percentile whose meaning changes with
document length.

A unit less alike its neighbours than the block's average scores best alone, so without a floor
the DP cuts out fragments of a few words (a wrapped line of a printed page). The floor: the DP
first makes as few chunks under ``min_share`` of ``size`` as it can, then groups by meaning; a
chunk that is exactly a whole section may be smaller. Units are grouped in blocks of ``window``
(memory grows with its square), the blocks of a segment of equal length.

The strategies differ in their units and their embedder (:mod:`core.chunking.semantic`: the
sentences, by MiniLM; :mod:`core.chunking.cluster`: pieces of a few dozen tokens, by the set's
embedder). A heading joins the unit after it (never a chunk of a few tokens by itself, nor the
tail of the chunk before its text) as long as the two fit in ``size``.
"""

from __future__ import annotations

import bisect
from abc import abstractmethod
from collections.abc import Sequence

import numpy as np
from pydantic import Field, model_validator

from core.chunking.chunk import Chunk
from core.chunking.table_aware import Cut, SegmentChunker, SizedConfig
from core.chunking.token_index import TokenIndex
from core.documents.model import Document
from core.text.spans import strip_span

Span = tuple[int, int]


class GroupedConfig(SizedConfig):
    """Settings of the strategies that group units by meaning."""

    overlap: int = Field(0, ge=0, json_schema_extra={"advanced": True},
                         description="Always 0: chunks grouped by meaning do not overlap")
    bias: float = Field(0.0, ge=-1.0, le=1.0,
                        description="Higher: smaller, tighter chunks; lower: larger ones")
    min_share: float = Field(
        0.25, ge=0.0, le=1.0,
        description="Smallest chunk, as a share of size (a whole section may be smaller); "
                    "0: no minimum")
    window: int = Field(400, ge=2, le=5000, json_schema_extra={"advanced": True},
                        description="Units per grouping block (bounds memory)")

    @model_validator(mode="after")
    def _check_grouped(self) -> GroupedConfig:
        if self.overlap:
            raise ValueError("chunks grouped by meaning do not overlap: set overlap to 0")
        return self


def best_split(similarity: np.ndarray, sizes: np.ndarray, limit: int, bias: float,
               minimum: int = 0, whole: Sequence[Span] = ()) -> list[int]:
    """Start indices of the chunks that maximise within-chunk similarity under ``limit``,
    among the splits with the fewest chunks under ``minimum`` (a chunk of units ``i..j-1``
    with ``(i, j)`` in ``whole`` is never counted under it)."""
    m = len(sizes)
    if m < 2:
        return [0] * m
    sim = similarity - similarity[np.triu_indices(m, k=1)].mean() - bias
    np.fill_diagonal(sim, 0.0)
    prefix = np.zeros((m + 1, m + 1))
    prefix[1:, 1:] = sim.cumsum(0).cumsum(1)
    diagonal = np.diagonal(prefix)
    ends = np.concatenate([[0], np.cumsum(sizes)])
    exempt: dict[int, list[int]] = {}
    for lo, hi in whole:
        exempt.setdefault(hi, []).append(lo)
    best = np.zeros(m + 1)
    short = np.zeros(m + 1, dtype=np.int64)  # the fewest chunks under the minimum up to j
    choice = np.zeros(m + 1, dtype=np.int64)
    for j in range(1, m + 1):
        first = min(int(np.searchsorted(ends, ends[j] - limit, side="left")), j - 1)
        i = np.arange(first, j)
        score = best[i] + prefix[j, j] - prefix[i, j] - prefix[j, i] + diagonal[i]
        small = ends[j] - ends[i] < minimum
        for a in exempt.get(j, ()):
            if a >= first:
                small[a - first] = False
        under = short[i] + small
        fewest = under.min()
        pick = int(np.argmax(np.where(under == fewest, score, -np.inf)))
        best[j], short[j], choice[j] = score[pick], fewest, first + pick
    starts, j = [], m
    while j > 0:
        starts.append(int(choice[j]))
        j = starts[-1]
    return starts[::-1]


class GroupedChunker(SegmentChunker):
    """A strategy that cuts text segments into units and groups them by meaning."""

    config: GroupedConfig
    _headings: list[Span] = []  # spans of the chunked document's headings, sorted
    _sections: list[Span] = []  # stripped spans of its sections

    @abstractmethod
    def units(self, index: TokenIndex, start: int, end: int) -> list[Span]:
        """The stripped spans of ``text[start:end]`` to group, in order, none over ``size``."""

    @abstractmethod
    def vectors(self, texts: list[str]) -> np.ndarray:
        """The units' vectors, of norm 1."""

    def chunk(self, document: Document) -> list[Chunk]:
        self._headings = sorted((b.start, b.end) for b in document.blocks
                                if b.kind in ("heading", "title"))
        text = document.text
        self._sections = [(a, b) for a, b in (strip_span(text, s.start, s.end)
                                              for s in document.sections) if b > a]
        return super().chunk(document)

    def _is_heading(self, text: str, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` is a heading (with its Markdown marks, if any)."""
        i = bisect.bisect_left(self._headings, (end, -1)) - 1  # the last one starting before end
        if i < 0:
            return False
        first, last = self._headings[i]
        return (last > start and not text[start:max(start, first)].strip("# \t")
                and not text[min(end, last):end].strip())

    def heading_starts(self, text: str, start: int, end: int) -> list[int]:
        """Where the headings inside ``(start, end)`` start, their Markdown marks included."""
        lo = bisect.bisect_left(self._headings, (start, -1))
        hi = bisect.bisect_left(self._headings, (end, -1))
        out = []
        for a, _ in self._headings[lo:hi]:
            line = max(start, text.rfind("\n", start, a) + 1)
            if not text[line:a].strip("# \t"):
                a = line
            if a > start:
                out.append(a)
        return out

    def join_headings(self, index: TokenIndex, spans: list[Span]) -> list[Span]:
        """``spans`` with each run of headings joined to the span after it when the two fit in
        ``size`` (else the headings stay a unit of their own); spans over ``size`` are cut
        into windows, each a unit."""
        size = self.config.size
        units: list[Span] = []
        heads: Span | None = None  # the headings waiting for their text
        for a, b in spans:
            if self._is_heading(index.text, a, b):
                heads = (a, b) if heads is None else (heads[0], b)
                continue
            if heads is not None and self.measure(index, heads[0], b) <= size:
                a = heads[0]
            elif heads is not None:
                units.append(heads)
            heads = None
            if self.measure(index, a, b) <= size:
                units.append((a, b))
            else:
                units += [(x, y) for x, y, _ in self.window_cut(index, a, b, size, 0)]
        if heads is not None:  # headings with no text after them in the segment
            units.append(heads)
        return units

    def split(self, index: TokenIndex, start: int, end: int) -> list[Cut]:
        units = self.units(index, start, end)
        out: list[Cut] = []
        if not units:
            return out
        size = self.config.size
        bounds = [a for a, _ in units] + [units[-1][1]]
        marks = bounds if self.config.unit == "chars" else index.indices(bounds)
        sizes = np.diff(np.asarray(marks))
        vectors = self.vectors([index.text[a:b] for a, b in units])
        blocks = -(-len(units) // self.config.window)
        edges = [round(n * len(units) / blocks) for n in range(blocks + 1)]
        for lo, hi in zip(edges, edges[1:], strict=False):
            block = vectors[lo:hi]
            starts = best_split(block @ block.T, sizes[lo:hi], size, self.config.bias,
                                int(size * self.config.min_share),
                                self._whole_sections(units, lo, hi))
            for s, e in zip(starts, [*starts[1:], hi - lo], strict=False):
                a, b = units[lo + s][0], units[lo + e - 1][1]
                if self.measure(index, a, b) <= size:
                    out.append(Cut(a, b, index.count(a, b)))
                else:  # joined units count a little more than their sum
                    out += self.window_cut(index, a, b, size, 0)
        return out

    def _whole_sections(self, units: list[Span], lo: int, hi: int) -> list[Span]:
        """The ranges ``(i, j)`` of block-relative unit indices that are exactly a section."""
        first = {a: n for n, (a, _) in enumerate(units[lo:hi])}
        last = {b: n + 1 for n, (_, b) in enumerate(units[lo:hi])}
        return [(first[a], last[b]) for a, b in self._sections if a in first and b in last]

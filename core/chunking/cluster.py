"""Cluster chunking: pieces of a few dozen tokens grouped by the chunk set's own embedder.

The text is cut into pieces: runs of whole sentences of one paragraph, each of at most
``piece_size`` (or ``size`` when smaller), a longer sentence cut at words. Each piece is
embedded once by the embedder the chunk set is embedded with, and consecutive pieces are grouped
into chunks of at most ``size`` by the dynamic programming of :mod:`core.chunking.grouping` (the
reward of Chroma's ClusterSemanticChunker, with a floor). A piece never crosses the start of a
heading, and a heading joins the piece after it.

What sets it apart from semantic chunking (:mod:`core.chunking.semantic`): pieces of even
length instead of sentences (a one-word line and a long sentence weigh alike there), and the
similarity of the model that will rank the chunks instead of MiniLM's. The pieces do not depend
on ``size`` (from ``piece_size`` up), so a re-chunk at another size finds every vector in the
embedder's cache (:mod:`core.embeddings.cache`) and embeds nothing new.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from pydantic import Field

from core.chunking.grouping import GroupedChunker, GroupedConfig, Span
from core.chunking.recursive import RecursiveChunker, RecursiveConfig
from core.chunking.table_aware import Size
from core.chunking.token_index import TokenIndex
from core.embeddings.port import MiniLM
from core.text.sentences import sentence_spans


class ClusterConfig(GroupedConfig):
    size: Size = 200
    piece_size: int = Field(
        50, ge=1, le=1000,
        description="Largest piece embedded and grouped, in the unit (size, when smaller)")


class ClusterChunker(GroupedChunker):
    strategy = "cluster"
    config: ClusterConfig

    def units(self, index: TokenIndex, start: int, end: int) -> list[Span]:
        cuts = [start, *self.heading_starts(index.text, start, end), end]
        spans = [span for lo, hi in zip(cuts, cuts[1:], strict=False)
                 for span in self._pieces(index, lo, hi)]
        return self.join_headings(index, spans)

    @cached_property
    def _words(self) -> RecursiveChunker:
        """What cuts a sentence longer than a piece: recursive splitting (at words, as a last
        resort)."""
        return RecursiveChunker(RecursiveConfig(
            size=min(self.config.piece_size, self.config.size), overlap=0,
            unit=self.config.unit, encoding=self.config.encoding))

    def _pieces(self, index: TokenIndex, start: int, end: int) -> list[Span]:
        """Runs of whole sentences of one paragraph, each of at most the piece size; a longer
        sentence in parts of its own."""
        text, limit = index.text, min(self.config.piece_size, self.config.size)
        out: list[Span] = []
        run = False  # whether the last piece is a run the next sentence may join
        for a, b in sentence_spans(text, start, end):
            if self.measure(index, a, b) > limit:
                out += [(x, y) for x, y, _ in self._words.split(index, a, b)]
                run = False
            elif (run and "\n\n" not in text[out[-1][1]:a]
                  and self.measure(index, out[-1][0], b) <= limit):
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
                run = True
        return out

    def vectors(self, texts: list[str]) -> np.ndarray:
        return (self.embedder or MiniLM()).embed(texts)

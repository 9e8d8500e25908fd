"""Semantic chunking: sentences grouped where their meaning holds together, offline.

The units are the sentences (:func:`~core.chunking.span_edges.sentence_spans`), embedded with
the local MiniLM model whatever the chunk set's embedder, and grouped by dynamic programming
under ``size`` with a floor (:mod:`core.chunking.grouping`). A sentence longer than ``size`` is
cut into windows at token boundaries.
"""

from __future__ import annotations

import numpy as np

from core.chunking.grouping import GroupedChunker, GroupedConfig, Span
from core.chunking.table_aware import Size
from core.chunking.token_index import TokenIndex
from core.embeddings import embed
from core.text.sentences import sentence_spans


class SemanticConfig(GroupedConfig):
    size: Size = 400


class SemanticChunker(GroupedChunker):
    strategy = "semantic"
    config: SemanticConfig

    def units(self, index: TokenIndex, start: int, end: int) -> list[Span]:
        return self.join_headings(index, sentence_spans(index.text, start, end))

    def vectors(self, texts: list[str]) -> np.ndarray:
        return embed(texts)

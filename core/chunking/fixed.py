"""Fixed-size chunking: windows of ``size`` tokens or characters, ``overlap`` shared.

The evaluation's baseline is this with 1000 characters, no overlap and no table handling
(preset "fixed 1000 chars"). Windows are cut at token boundaries when ``unit="tokens"``;
edges are stripped of whitespace. With overlap, the windows hold ``size - overlap`` units of
their own and each one after the first starts inside the previous chunk, at a sentence or word
start where one fits (:mod:`core.chunking.overlap`), so no chunk holds more than ``size``.
"""

from __future__ import annotations

from collections.abc import Iterator

from core.chunking import table_aware as sized
from core.chunking.token_index import TokenIndex


class FixedConfig(sized.SizedConfig):
    size: sized.Size = 1000
    overlap: sized.Overlap = 0
    unit: sized.Unit = "chars"
    tables: sized.Tables = False


class FixedChunker(sized.SegmentChunker):
    strategy = "fixed"
    config: FixedConfig

    def split(self, index: TokenIndex, start: int, end: int) -> Iterator[sized.Cut]:
        return self.overlapped(index, self.window_cut(index, start, end, self.core_size(), 0))

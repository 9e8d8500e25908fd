"""Exact tiktoken counts of any span of a text after encoding the text once.

The count of ``text[s:e]`` is additive over safe boundaries inside it
(:mod:`core.tokens.safe_boundaries`): tokens of the head up to the first safe boundary ``u1``, plus
the document's own tokens between ``u1`` and the last safe boundary ``u2`` (one subtraction of
token indices), plus tokens of the tail. Only the short edges are re-encoded, which is what
makes exact counts cheap.
"""

from __future__ import annotations

from functools import cache, cached_property

import numpy as np

from core.tokens import count_tokens, encode_array, get_encoding
from core.tokens.safe_boundaries import SAFE_BOUNDARY, SAFE_BOUNDARY_REVERSED


@cache
def _token_byte_lengths(encoding: str) -> np.ndarray:
    """Bytes in each token of the vocabulary (0 for the holes o200k has, never produced)."""
    enc = get_encoding(encoding)
    lengths = np.zeros(enc.n_vocab, dtype=np.int64)
    # speed: from the encoding's own tables, not by decoding every token one by one
    ranks = enc._mergeable_ranks
    lengths[np.fromiter(ranks.values(), np.int64, len(ranks))] = np.fromiter(
        map(len, ranks), np.int64, len(ranks))
    for special, token in enc._special_tokens.items():
        lengths[token] = len(special.encode("utf-8"))
    return lengths


class TokenIndex:
    """One encoding of ``text`` with the character offset where each token starts."""

    def __init__(self, text: str, encoding: str) -> None:
        self.text = text
        self.encoding = encoding
        self._length = len(text)
        self._safe_match = SAFE_BOUNDARY.match
        tokens = encode_array(text, encoding)
        starts = np.zeros(len(tokens) + 1, dtype=np.int64)
        np.cumsum(_token_byte_lengths(encoding)[tokens], out=starts[1:])
        if not text.isascii():  # the character a byte belongs to: its offset less the
            raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)  # continuation bytes
            continuations = np.flatnonzero((raw & 0xC0) == 0x80)  # up to it
            starts -= continuations.searchsorted(starts, side="right")
        self._starts = starts
        self._n = len(tokens)
        self._search = starts[:-1].searchsorted
        self._end_ranks: dict[int, tuple[int, int]] = {}  # end -> (u, rank), see end_rank

    @property
    def starts(self) -> np.ndarray:
        """``starts[k]`` is where token k starts; ``starts[-1] == len(text)``."""
        return self._starts

    @property
    def n_tokens(self) -> int:
        return self._n

    def index(self, position: int) -> int:
        """Number of the document's tokens that start before ``position``."""
        return int(self._search(position))

    def indices(self, positions: list[int]) -> list[int]:
        return self._search(positions).tolist()

    def position(self, token: int) -> int:
        """Character offset where token ``token`` starts (``len(text)`` past the end)."""
        return int(self._starts[min(max(0, token), self._n)])

    @cached_property
    def _reversed(self) -> str:
        return self.text[::-1]

    def _splits_at(self, position: int) -> bool:
        """Whether the document's own tokens split at ``position`` (an end or a safe boundary)."""
        return (position == 0 or position == self._length
                or self._safe_match(self.text, position) is not None)

    def start_rank(self, start: int, end: int) -> tuple[int, int] | None:
        """Where a count from ``start`` meets the document's tokens: the first position ``u`` in
        ``[start, end)`` where they split, and the rank ``index(u)`` less the tokens of
        ``text[start:u]``; ``None`` when they do not split in that range.

        ``count(start, e) == end_rank(e, floor) - rank`` for every ``e`` whose end rank was
        found from a ``floor <= u`` (speed: one start measured against several ends)."""
        if self._splits_at(start):
            return start, self.index(start)
        first = SAFE_BOUNDARY.search(self.text, start + 1, end)
        if first is None:
            return None
        u = first.start()
        return u, self.index(u) - count_tokens(self.text[start:u], self.encoding)

    def end_rank(self, end: int, floor: int) -> int | None:
        """``index(u)`` plus the tokens of ``text[u:end]``, ``u`` the last position in
        ``[floor, end]`` where the document's tokens split; ``None`` when there is none.

        Kept per ``end`` (speed: a chunk's end is measured when the chunk is cut, and again by
        the overlap of the next two chunks); what was found from one floor holds for any
        floor up to its ``u``."""
        known = self._end_ranks.get(end)
        if known is not None and known[0] >= floor:
            return known[1]
        if self._splits_at(end):
            u, rank = end, self.index(end)
        else:
            n = self._length
            last = SAFE_BOUNDARY_REVERSED.search(self._reversed, n - end + 1, n - floor)
            if last is not None:
                u = n - last.start()
            elif floor < end and self._splits_at(floor):
                u = floor
            else:
                return None
            rank = self.index(u) + count_tokens(self.text[u:end], self.encoding)
        self._end_ranks[end] = (u, rank)
        return rank

    def count(self, start: int, end: int) -> int:
        """Exact ``len(encode(text[start:end]))``, re-encoding only the edges.

        An edge where the document's tokens split needs no re-encoding (speed: most chunks
        start at the start of a line).
        """
        if end <= start:
            return 0
        first = self.start_rank(start, end)
        if first is None:
            return count_tokens(self.text[start:end], self.encoding)
        u, rank = first
        end_rank = self.end_rank(end, u)
        assert end_rank is not None  # ``u`` itself is a split in ``[u, end]``
        return end_rank - rank

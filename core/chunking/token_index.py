"""Exact tiktoken counts of any span of a text after encoding the text once.

tiktoken first cuts text into pieces with a regular expression, then runs BPE inside each piece
independently. Some positions are a piece boundary in *every* string that contains both
neighbouring characters, whatever comes before or after ("safe" boundaries):

- a non-space character followed by a space or tab (no piece holds ``x`` then ``" "``);
- a line break followed by a non-space character other than ``/`` (no piece holds ``"\\n"``
  then ``x``; o200k's punctuation pieces may end in ``\\n/``, hence the ``/``).

So the count of ``text[s:e]`` is additive over safe boundaries inside it: tokens of the head up
to the first safe boundary ``u1``, plus the document's own tokens between ``u1`` and the last
safe boundary ``u2`` (one subtraction of token indices), plus tokens of the tail. Only the
short edges are re-encoded, which is what makes exact counts cheap. The same fact lets a long
document be encoded in parts cut at safe boundaries, in the background (:class:`TokenIndex`).
``tests/test_chunking_tokens.py`` checks the additivity on random strings.

Speed: a text of more than :data:`PARALLEL_CHARS` is encoded in parts at once on every core
(tiktoken releases the GIL while it encodes), so on two cores the index is ready in about half
the time one ``encode`` call takes, and the chunker works on the first parts meanwhile.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache, cached_property
from threading import Lock

import numpy as np

from core.tokens import get_encoding

SAFE_BOUNDARY = re.compile(r"(?<=\S)(?=[ \t])|(?<=[\r\n])(?=[^\s/])")
# The same positions found in the reversed text, so the last one before an offset is one search.
SAFE_BOUNDARY_REVERSED = re.compile(r"(?<=[ \t])(?=\S)|(?<=[^\s/])(?=[\r\n])")
PART_CHARS = 250_000  # the largest part encoded at a time
PARALLEL_CHARS = 4_000  # a longer text is encoded in parts on every core


CORES = os.cpu_count() or 1


@cache
def _encoders() -> ThreadPoolExecutor:
    """The threads that encode parts, one per core (the caller's thread chunks meanwhile)."""
    return ThreadPoolExecutor(max_workers=CORES, thread_name_prefix="token-index")


PARTS_PER_CORE = 4  # small parts: the chunker starts on the first one sooner


def _part_chars(length: int) -> int:
    """Characters per part: at most :data:`PART_CHARS`, and :data:`PARTS_PER_CORE` parts per
    core for a text over :data:`PARALLEL_CHARS`."""
    if CORES > 1 and length > PARALLEL_CHARS:
        return min(PART_CHARS, max(PARALLEL_CHARS // 4, -(-length // (CORES * PARTS_PER_CORE))))
    return PART_CHARS


@cache
def _token_byte_lengths(encoding: str) -> np.ndarray:
    """Bytes in each token of the vocabulary (0 for the holes o200k has, never produced)."""
    enc = get_encoding(encoding)
    lengths = np.zeros(enc.n_vocab, dtype=np.int64)
    # speed: from the encoding's own tables, 50x faster than decoding 100k tokens one by one
    ranks = enc._mergeable_ranks
    lengths[np.fromiter(ranks.values(), np.int64, len(ranks))] = np.fromiter(
        map(len, ranks), np.int64, len(ranks))
    for special, token in enc._special_tokens.items():
        lengths[token] = len(special.encode("utf-8"))
    return lengths


def _safe_cuts(text: str, part_chars: int) -> list[int]:
    """``0``, safe boundaries about ``part_chars`` apart, ``len(text)``."""
    cuts = [0]
    while len(text) - cuts[-1] > part_chars:
        match = SAFE_BOUNDARY.search(text, cuts[-1] + part_chars)
        if match is None:
            break
        cuts.append(match.start())
    return [*cuts, len(text)]


class TokenIndex:
    """One encoding of ``text`` with the character offset where each token starts.

    A long text is cut at safe boundaries into parts that threads encode at once (tiktoken
    releases the GIL) while the caller already works on the first parts: a lookup waits only
    until the part it needs is in. Chunkers work from the start to the end, so the encoding and
    the chunking overlap instead of adding up.
    """

    def __init__(self, text: str, encoding: str) -> None:
        self.text = text
        self.encoding = encoding
        self._enc = get_encoding(encoding)
        self._lengths = _token_byte_lengths(encoding)
        self._length = len(text)
        self._safe_match = SAFE_BOUNDARY.match
        self._cuts = _safe_cuts(text, _part_chars(len(text)))
        self._parts = len(self._cuts) - 1
        self._taken = 0  # parts whose tokens are in ``_starts``
        self._ready = 0  # lookups at positions up to this offset have all the tokens they need
        self._n = 0
        self._starts = np.empty(len(text.encode("utf-8")) + 1, dtype=np.int64)
        self._search = self._starts[:0].searchsorted
        self._end_ranks: dict[int, tuple[int, int]] = {}  # end -> (u, rank), see end_rank
        self._taking = Lock()  # one thread at a time takes the parts, in order
        self._encoded: list[Future[np.ndarray] | None] = []
        if self._parts == 1:
            self._take(self._encode(text))
        else:
            cuts, encoders = self._cuts, _encoders()
            self._encoded = [encoders.submit(self._encode_part, a, b)
                             for a, b in zip(cuts, cuts[1:], strict=False)]

    def _encode(self, text: str) -> np.ndarray:
        # Straight into a numpy buffer, no list of Python ints (about 10% faster than
        # encode_ordinary); with no special token allowed or disallowed the tokens are the same.
        return self._enc.encode_to_numpy(text, disallowed_special=())

    def _encode_part(self, start: int, end: int) -> np.ndarray:
        return self._encode(self.text[start:end])

    def _take(self, tokens: np.ndarray) -> None:
        """Add the next part's token starts (character offsets) to ``_starts``."""
        a, b = self._cuts[self._taken], self._cuts[self._taken + 1]
        starts = np.zeros(len(tokens), dtype=np.int64)
        np.cumsum(self._lengths[tokens[:-1]], out=starts[1:])
        part = self.text[a:b]
        if not part.isascii():  # the character a byte belongs to: its offset less the
            raw = np.frombuffer(part.encode("utf-8"), dtype=np.uint8)  # continuation bytes
            continuations = np.flatnonzero((raw & 0xC0) == 0x80)  # up to it (speed: few)
            starts -= continuations.searchsorted(starts, side="right")
        n = self._n + len(tokens)
        self._starts[self._n : n] = starts + a
        self._taken += 1
        if self._taken == self._parts:
            self._starts[n] = self._length
            self._starts = self._starts[: n + 1]
        self._search = self._starts[:n].searchsorted
        self._n = n
        # last: a lookup that sees the new offset without the lock finds the tokens in
        self._ready = self._length if self._taken == self._parts else b

    def _take_next(self) -> None:
        part = self._encoded[self._taken]
        assert part is not None
        tokens = part.result()  # an error in the encoding thread is raised here
        self._encoded[self._taken] = None  # its tokens are in ``_starts`` now
        self._take(tokens)

    def _wait_for(self, position: int) -> None:
        """Take parts until every token that starts before ``position`` is in."""
        with self._taking:
            while self._ready < position:
                self._take_next()

    @property
    def starts(self) -> np.ndarray:
        """``starts[k]`` is where token k starts; ``starts[-1] == len(text)``."""
        self._wait_for(self._length)
        return self._starts

    @property
    def n_tokens(self) -> int:
        return len(self.starts) - 1

    def index(self, position: int) -> int:
        """Number of the document's tokens that start before ``position``."""
        if position > self._ready:
            self._wait_for(position)
        return int(self._search(position))

    def indices(self, positions: list[int]) -> list[int]:
        self._wait_for(max(positions, default=0))
        return self._search(positions).tolist()

    def position(self, token: int) -> int:
        """Character offset where token ``token`` starts (``len(text)`` past the end)."""
        token = max(0, token)
        if token >= self._n:
            with self._taking:
                while token >= self._n and self._taken < self._parts:
                    self._take_next()
        return int(self._starts[min(token, self._n)])

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
        return u, self.index(u) - len(self._enc.encode_ordinary(self.text[start:u]))

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
            rank = self.index(u) + len(self._enc.encode_ordinary(self.text[u:end]))
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
            return len(self._enc.encode_ordinary(self.text[start:end]))
        u, rank = first
        end_rank = self.end_rank(end, u)
        assert end_rank is not None  # ``u`` itself is a split in ``[u, end]``
        return end_rank - rank

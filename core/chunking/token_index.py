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
short edges are re-encoded, which is what makes exact counts cheap. The same fact lets the
document be encoded in parallel parts cut at safe boundaries (tiktoken releases the GIL) —
only when a core is idle: two threads spend about a quarter more CPU time than one (each
thread's regex warms its own cache, the parts are copied), which a busy machine pays for in
wall time too.
``tests/test_chunking_tokens.py`` checks the additivity on random strings.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from functools import cache, cached_property

import numpy as np

from core.tokens import get_encoding

SAFE_BOUNDARY = re.compile(r"(?<=\S)(?=[ \t])|(?<=[\r\n])(?=[^\s/])")
# The same positions found in the reversed text, so the last one before an offset is one search.
SAFE_BOUNDARY_REVERSED = re.compile(r"(?<=[ \t])(?=\S)|(?<=[^\s/])(?=[\r\n])")
PARALLEL_MIN_CHARS = 200_000  # below this, one encode call is faster than threads
PARALLEL_PARTS = 2


def encoding_threads() -> int:
    """Threads for a long text: :data:`PARALLEL_PARTS` when the 1-minute load average leaves
    that many of this process's cores idle, else one."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity else os.cpu_count() or 1
    try:
        idle = cores - os.getloadavg()[0]
    except OSError:  # no load average to go by: one thread
        return 1
    return PARALLEL_PARTS if idle >= PARALLEL_PARTS - 0.5 else 1


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


def _safe_cut_points(text: str, parts: int) -> list[int]:
    cuts = [0]
    for i in range(1, parts):
        match = SAFE_BOUNDARY.search(text, i * len(text) // parts)
        if match and match.start() > cuts[-1]:
            cuts.append(match.start())
    return [*cuts, len(text)]


class TokenIndex:
    """One encoding of ``text`` with the character offset where each token starts."""

    def __init__(self, text: str, encoding: str) -> None:
        self.text = text
        self.encoding = encoding
        self._enc = get_encoding(encoding)
        tokens = self._encode_all(text)
        byte_starts = np.zeros(len(tokens) + 1, dtype=np.int64)
        np.cumsum(_token_byte_lengths(encoding)[tokens], out=byte_starts[1:])
        if text.isascii():
            starts = byte_starts
        else:  # the character a byte belongs to: its offset less the continuation bytes
            raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)  # up to it (speed: few)
            continuations = np.flatnonzero((raw & 0xC0) == 0x80)
            starts = byte_starts - continuations.searchsorted(byte_starts, side="right")
        #: ``starts[k]`` is where token k starts; ``starts[-1] == len(text)``.
        self.starts = starts
        self._search = starts[:-1].searchsorted
        self._length = len(text)
        self._safe_match = SAFE_BOUNDARY.match

    def _encode_all(self, text: str) -> np.ndarray:
        threads = encoding_threads() if len(text) >= PARALLEL_MIN_CHARS else 1
        if threads == 1:
            return self._encode_part(text)
        cuts = _safe_cut_points(text, threads)
        parts = [text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
        with ThreadPoolExecutor(len(parts)) as pool:
            encoded = list(pool.map(self._encode_part, parts))
        return np.concatenate(encoded)

    def _encode_part(self, text: str) -> np.ndarray:
        # Straight into a numpy buffer, no list of Python ints (about 10% faster than
        # encode_ordinary); with no special token allowed or disallowed the tokens are the same.
        return self._enc.encode_to_numpy(text, disallowed_special=())

    @property
    def n_tokens(self) -> int:
        return len(self.starts) - 1

    def index(self, position: int) -> int:
        """Number of the document's tokens that start before ``position``."""
        return int(self._search(position))

    def indices(self, positions: list[int]) -> list[int]:
        return self._search(positions).tolist()

    def position(self, token: int) -> int:
        """Character offset where token ``token`` starts (``len(text)`` past the end)."""
        return int(self.starts[max(0, min(token, self.n_tokens))])

    @cached_property
    def _reversed(self) -> str:
        return self.text[::-1]

    def _splits_at(self, position: int) -> bool:
        """Whether the document's own tokens split at ``position`` (an end or a safe boundary)."""
        return (position == 0 or position == self._length
                or self._safe_match(self.text, position) is not None)

    def count_joined(self, start: int, middle: int, end: int, right: int) -> int:
        """Exact count of ``text[start:end]`` when ``right`` is the count of
        ``text[middle:end]``: additive where the document's tokens split at ``middle``."""
        if self._splits_at(middle):
            return self.count(start, middle) + right
        return self.count(start, end)

    def count(self, start: int, end: int) -> int:
        """Exact ``len(encode(text[start:end]))``, re-encoding only the edges.

        An edge where the document's tokens split needs no re-encoding (speed: most chunks
        start at the start of a line).
        """
        if end <= start:
            return 0
        text, encode = self.text, self._enc.encode_ordinary
        head = tail = 0
        if self._splits_at(start):
            u1 = start
        else:
            first = SAFE_BOUNDARY.search(text, start + 1, end)
            if first is None:
                return len(encode(text[start:end]))
            u1 = first.start()
            head = len(encode(text[start:u1]))
        if self._splits_at(end):
            u2 = end
        else:
            n = self._length
            last = SAFE_BOUNDARY_REVERSED.search(self._reversed, n - end + 1, n - u1)
            u2 = u1 if last is None else n - last.start()
            tail = len(encode(text[u2:end])) if end > u2 else 0
        if u2 == u1:
            return head + tail
        return head + int(self._search(u2)) - int(self._search(u1)) + tail

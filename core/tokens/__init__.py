"""Token counts and encodings, exactly tiktoken's (``encode_ordinary``: special-token strings
in user text count as ordinary text), made fast.

A text of :data:`FAST_CHARS` characters or more is encoded by :mod:`core.tokens.fast` (tokie
where it agrees with tiktoken, several times faster); a shorter one by tiktoken itself, whose
own call costs less than looking for the places where the two differ.
"""

from __future__ import annotations

import numpy as np

from core.tokens.fast import FastEncoder, fast_encoder
from core.tokens.tiktoken_files import BPE_URLS, DEFAULT_ENCODING, ENCODINGS, get_encoding

__all__ = ["BPE_URLS", "DEFAULT_ENCODING", "ENCODINGS", "count_tokens", "encode",
           "encode_array", "get_encoding", "prepare_tokens"]

FAST_CHARS = 2_000


def prepare_tokens(encoding: str = DEFAULT_ENCODING) -> None:
    """Load what counting ``encoding``'s tokens needs (the first time on a machine, derive the
    fast encoder's file), so a first count does not wait for it."""
    fast_encoder(encoding)


def _fast(text: str, encoding: str) -> FastEncoder | None:
    """The fast encoder for ``text``: None when it is short or ``encoding`` has none."""
    return fast_encoder(encoding) if len(text) >= FAST_CHARS else None


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Exact token count of ``text``."""
    if (fast := _fast(text, encoding)) is not None:
        return fast.count(text)
    return len(get_encoding(encoding).encode_ordinary(text))


def encode(text: str, encoding: str = DEFAULT_ENCODING) -> list[int]:
    """The tokens of ``text``."""
    if (fast := _fast(text, encoding)) is not None:
        return fast.encode(text).tolist()
    return get_encoding(encoding).encode_ordinary(text)


def encode_array(text: str, encoding: str = DEFAULT_ENCODING) -> np.ndarray:
    """The tokens of ``text`` as an integer array."""
    if (fast := _fast(text, encoding)) is not None:
        return fast.encode(text)
    # no special token allowed or disallowed: the tokens of encode_ordinary, without a list
    return get_encoding(encoding).encode_to_numpy(text, disallowed_special=())

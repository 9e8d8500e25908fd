"""Where tiktoken's tokens split whatever text surrounds them.

tiktoken first cuts text into pieces with a regular expression, then runs BPE inside each piece
independently. Some positions are a piece boundary in *every* string that contains both
neighbouring characters, whatever comes before or after ("safe" boundaries):

- a non-space character followed by a space or tab (no piece holds ``x`` then ``" "``);
- a line break followed by a non-space character other than ``/`` (no piece holds ``"\\n"``
  then ``x``; o200k's punctuation pieces may end in ``\\n/``, hence the ``/``).

So encodings add up over safe boundaries: the tokens of ``text`` are the tokens of
``text[:p]`` followed by those of ``text[p:]`` for any safe boundary ``p``.
``tests/test_chunking_tokens.py`` checks this on random strings. Exact counts of spans re-encode
only their edges because of it (:class:`core.chunking.token_index.TokenIndex`), and a text can
be encoded by two encoders in turns cut at safe boundaries (:mod:`core.tokens.fast`).
"""

from __future__ import annotations

import re

SAFE_BOUNDARY = re.compile(r"(?<=\S)(?=[ \t])|(?<=[\r\n])(?=[^\s/])")
# The same positions found in the reversed text, so the last one before an offset is one search.
SAFE_BOUNDARY_REVERSED = re.compile(r"(?<=[ \t])(?=\S)|(?<=[^\s/])(?=[\r\n])")
LOOK_BACK = 256  # characters searched before a position for the safe boundary nearest it


def safe_after(text: str, position: int) -> int:
    """The first safe boundary at or after ``position``, else ``len(text)``."""
    found = SAFE_BOUNDARY.search(text, position)
    return len(text) if found is None else found.start()


def safe_before(text: str, position: int, floor: int) -> int:
    """The last safe boundary in ``[floor, position]``, else ``floor``."""
    end = position + 1  # a boundary at p is found when text[p] is inside the search
    while end > floor:
        start = max(floor, end - 1 - LOOK_BACK)
        found = [m.start() for m in SAFE_BOUNDARY.finditer(text, start, end)]
        if found:
            return found[-1]
        end = start
    return floor

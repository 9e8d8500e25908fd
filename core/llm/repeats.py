"""Telling, while an answer is written, that the model is repeating itself.

Small models sometimes fall into a loop — the same sentence again and again — and write it until
their token limit, minutes of waiting for text nobody wants. A streamed answer is checked each
time words arrive (:func:`loop_start`): once its tail is one span written at least
:data:`MIN_REPEATS` times back to back over at least :data:`MIN_LOOP_CHARS` characters, the
request is ended at its connection and the answer kept up to where the repetition began
(:mod:`core.llm.stream`).

The rule holds for lists and tables: their lines differ (an item, a figure, a cell), so the tail
of a real list never repeats one span exactly; the one span that does repeat in a table, its
separator row's ``|---``, repeats over fewer characters than a loop must cover.
"""

from __future__ import annotations

from collections.abc import Iterator

STOPPED_REPEATING = "stopped: the model was repeating itself"
MIN_REPEATS = 3  # a span written this many times back to back...
MIN_LOOP_CHARS = 160  # ...covering at least this many characters is a loop
MAX_SPAN = 1200  # the longest span looked for (a paragraph)
_TAIL = 8  # characters at the end a repeated span must have written before


def loop_start(text: str) -> int | None:
    """Where ``text`` should be cut when it ends in a loop: after the first time its repeated
    span was written (everything before the repetition kept, the span once, ending where a
    sentence or line ends when it can); None when it does not end in a loop."""
    n = len(text)
    for span in _spans(text):
        covered = max(span * MIN_REPEATS, MIN_LOOP_CHARS)
        if covered > n:
            continue
        start = n - covered
        if text[start:n - span] != text[start + span:]:
            continue
        while start > 0 and text[start - 1] == text[start - 1 + span]:
            start -= 1  # the loop began earlier than the part looked at
        return _boundary(text, start + span, span)
    return None


def _spans(text: str) -> Iterator[int]:
    """The lengths a repeated span at the end of ``text`` may have, shortest first: the
    distances back to where its last :data:`_TAIL` characters were written before (a loop
    repeats them one span back), found without trying every length."""
    n = len(text)
    if n < MIN_LOOP_CHARS:
        return
    tail = text[-_TAIL:]
    found = text.rfind(tail, 0, n - 1)
    while found != -1 and n - found - _TAIL <= MAX_SPAN:
        yield n - found - _TAIL
        found = text.rfind(tail, 0, found + _TAIL - 1)


def _boundary(text: str, first: int, span: int) -> int:
    """The loop may be read as starting anywhere in its first span: the first place from
    ``first`` on, within one span, where a sentence or a line ends; else ``first``."""
    ends = [cut for cut in range(first, first + span)
            if text[cut - 1] in ".!?\n" and text[cut].isspace()]
    return ends[0] if ends else first

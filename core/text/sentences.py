"""Sentences: where one ends and the next starts, in every script the documents are written in.

A sentence ends at an end mark with any closing quotes and brackets after it: ``.``, ``!`` or
``?`` followed by whitespace (so "3.5" and "e.g.x" end none), or a script's own mark —
``。！？`` (Chinese, Japanese), ``؟`` (Arabic), ``۔`` (Urdu) — whatever follows, since those
scripts put no space after it. In running text a line break ends one too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.text.spans import strip_span

LATIN_MARKS = ".!?"
SCRIPT_MARKS = "。！？؟۔"
CLAUSE_MARKS = ":;"  # end a clause: a line ending with one may end a paragraph too
CLOSERS = "\"'”’)]"
_CLOSE = f"[{re.escape(CLOSERS)}]*"
# ends where the next sentence starts (consuming the punctuation is twice as fast as a look-behind)
_MARKED_END = rf"[{re.escape(LATIN_MARKS)}]{_CLOSE}\s+|[{SCRIPT_MARKS}]{_CLOSE}\s*"
MARKED_END = re.compile(_MARKED_END)
SENTENCE_END = re.compile(rf"{_MARKED_END}|\n\s*")
_LINE_END = re.compile(rf"[{re.escape(LATIN_MARKS)}{SCRIPT_MARKS}]{_CLOSE}$")
_LINE_OR_CLAUSE_END = re.compile(
    rf"[{re.escape(LATIN_MARKS + CLAUSE_MARKS)}{SCRIPT_MARKS}]{_CLOSE}$")
LOOK_BACK = 64  # a sentence end that begins this far before a range can still end inside it


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The sentences of ``text[start:end]`` as exact spans of ``text``, without surrounding
    whitespace."""
    end = len(text) if end is None else end
    cuts = [start, *(m.end() for m in SENTENCE_END.finditer(text, start, end)), end]
    spans = (strip_span(text, a, b) for a, b in zip(cuts, cuts[1:], strict=False))
    return [(a, b) for a, b in spans if b > a]


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped."""
    return [text[a:b] for a, b in sentence_spans(text)]


def sentence_starts(text: str, start: int, end: int, *, line_breaks: bool = True
                    ) -> Iterator[int]:
    """Positions in ``[start, end)`` where a sentence starts, ascending; with ``line_breaks``
    off, only where an end mark ended the one before (not a line's start)."""
    pattern = SENTENCE_END if line_breaks else MARKED_END
    for match in pattern.finditer(text, max(0, start - LOOK_BACK), end):
        if start <= match.end() < end:
            yield match.end()


def ends_sentence(line: str, *, clause: bool = False) -> bool:
    """Whether a line ends with an end mark (and any closers), or with ``clause`` a ``:`` or
    ``;`` as well."""
    return (_LINE_OR_CLAUSE_END if clause else _LINE_END).search(line) is not None

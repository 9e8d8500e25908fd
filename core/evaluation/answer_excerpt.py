"""The excerpt of a generated question, chosen from its passage rather than quoted by the model.

A small model asked to copy the sentence that answers its question often rewrites it ("The
Central branch holds 62,000 items. " for "The Central branch at Market Square 1 holds 62,000
items and opens Mon-Sat 9-20."), cuts it to a word ("Monthly") or invents one. So the model
gives a short answer, and the excerpt is the passage's sentence (or table row) that holds it:
the answer found there word for word, else the sentence that holds all of its numbers and most
of its words (the question's words break ties, "STS-2" choosing its row over "STS-1"'s; an answer
of numbers alone must stand there word for word). The excerpt is then an exact span of
``Document.text``; an answer no sentence of the passage holds drops the question.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from core.documents.model import Document
from core.evaluation.excerpts import MIN_EXCERPT_CHARS, content_stems, locate

ANSWER_RECALL = 0.5  # share of the answer's content words a sentence must hold more than
MAX_SENTENCES = 3  # an answer quoted over more sentences than this is not one fact
# a stricter break than a sentence's end: before a capital, a digit or an opening quote, so an
# answer's excerpt is not cut after "e.g." or "approx."
_BREAK_BEFORE_CAPITAL = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_RULE = frozenset("|-: ")


@dataclass(frozen=True)
class Unit:
    """A sentence or a table row of the passage: its span in ``Document.text``, the block it is
    in, and the words it holds (a row also holds its table's header words, which say what its
    cells are)."""

    start: int
    end: int
    block: int
    stems: frozenset[str]
    numbers: frozenset[str]


def _numbers(text: str) -> frozenset[str]:
    return frozenset(n.replace(",", "") for n in _NUMBER.findall(text))


def _trimmed(text: str, start: int, end: int, strip: str) -> tuple[int, int]:
    while start < end and text[start] in strip:
        start += 1
    while end > start and text[end - 1] in strip:
        end -= 1
    return start, end


def _rows(text: str, start: int, end: int, block: int) -> Iterator[Unit]:
    """The rows of the Markdown table in ``text[start:end]`` but its header and rule."""
    header = ""
    at = start
    for line in text[start:end].split("\n"):
        line_start, at = at, at + len(line) + 1
        stripped = line.strip()
        if not stripped.startswith("|") or set(stripped) <= _RULE:
            continue
        if not header:
            header = stripped
            continue
        a, b = _trimmed(text, line_start, line_start + len(line), " |")
        yield Unit(a, b, block, frozenset(content_stems(f"{text[a:b]} {header}")),
                   _numbers(text[a:b]))


def _sentences(text: str, start: int, end: int, block: int) -> Iterator[Unit]:
    breaks = list(_BREAK_BEFORE_CAPITAL.finditer(text, start, end))
    for a, b in zip([start, *(m.end() for m in breaks)], [*(m.start() for m in breaks), end],
                    strict=True):
        a, b = _trimmed(text, a, b, " \t\n")
        if b > a:
            yield Unit(a, b, block, frozenset(content_stems(text[a:b])), _numbers(text[a:b]))


def units(document: Document, start: int, end: int) -> list[Unit]:
    """The sentences and table rows of ``document.text[start:end]``, headings left out."""
    blocks = [(max(b.start, start), min(b.end, end), b.kind) for b in document.blocks
              if b.start < end and start < b.end] or [(start, end, "paragraph")]
    found: list[Unit] = []
    for n, (a, b, kind) in enumerate(blocks):
        if kind == "table":
            found += _rows(document.text, a, b, n)
        elif kind not in ("title", "heading"):
            found += _sentences(document.text, a, b, n)
    return found


def _tokens(text: str) -> set[str]:
    """Every word and number of ``text``, short ones too: "STS-2" is told from "STS-1" by its
    "2"."""
    return set(re.findall(r"\w+", text.lower()))


def _folded(text: str) -> str:
    return " ".join(text.lower().split())


def _across(answer: str, passage: str, found: list[Unit], start: int) -> list[Unit]:
    """The sentences an answer copied word for word over more than one sentence covers."""
    span = locate(answer, passage)
    if span is None:
        return []
    a, b = span[0] + start, span[1] + start
    covered = [u for u in found if u.start < b and a < u.end]
    return covered if len(covered) > 1 else []


def choose_excerpt(answer: str, question: str, document: Document, start: int,
                   end: int) -> tuple[int, int] | str:
    """The span of the sentence(s) of ``document.text[start:end]`` that hold ``answer`` (made
    up to :data:`MIN_EXCERPT_CHARS` with the next sentence when shorter), or the sentence
    saying why there is none."""
    text = document.text
    found = units(document, start, end)
    shown = answer if len(answer) <= 60 else answer[:59] + "…"
    chosen = _across(answer, text[start:end], found, start)
    if len(chosen) > MAX_SENTENCES:
        return f"the answer {shown!r} is not one fact of the passage"
    if not chosen:
        wanted, numbers, asked = content_stems(answer), _numbers(answer), content_stems(question)
        verbatim = re.compile(r"(?<!\w)" + re.escape(_folded(answer)) + r"(?!\w)")

        named = _tokens(question)

        def score(unit: Unit) -> tuple[bool, float, int, int]:
            recall = len(wanted & unit.stems) / len(wanted) if wanted else 0.0
            return (bool(verbatim.search(_folded(text[unit.start : unit.end]))), recall,
                    len(asked & unit.stems), len(named & _tokens(text[unit.start : unit.end])))

        fits = [u for u in found if score(u)[0]
                or (numbers <= u.numbers and score(u)[1] > ANSWER_RECALL)]
        if not fits or not _folded(answer):
            return f"the answer {shown!r} is not in the passage"
        chosen = [max(fits, key=score)]
    first, last = found.index(chosen[0]), found.index(chosen[-1])
    while (last + 1 < len(found) and found[last].end - found[first].start < MIN_EXCERPT_CHARS
           and found[last + 1].block == found[last].block):
        last += 1
    return found[first].start, found[last].end

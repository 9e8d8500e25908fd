"""Positions the model can name reliably, and the way back to exact character offsets.

Small models cannot count characters but can read numbers, so the default prompts show the text
with ``[n] `` before each block (the Document's blocks, numbered from 1 across the whole
document, as in the templates' examples) and read anchor numbers back; :class:`AnchorMap` turns
them into offsets. In the character-offset mode, :func:`snap` moves each offset the model gave
to the nearest block or sentence start within a tolerance and reports how far it had to move.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from core.documents.model import Document
from core.tokens import count_tokens

_PARAGRAPH = re.compile(r"\S(?:.*?)(?=\n\s*\n|\Z)", re.DOTALL)
_SENTENCE_START = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=\S)")
_WORD_START = re.compile(r"(?<=\s)(?=\S)")
_LINE_MARKUP = re.compile(r"[ \t]*(?:#{1,6}|[-*+>•]|\d{1,3}[.)])?[ \t]*")
ANCHOR_OVERHEAD_TOKENS = 4  # "[123] " plus a line break


@dataclass(frozen=True)
class Unit:
    """A block the model can point at: its anchor number and span in ``Document.text``."""

    number: int
    start: int
    end: int
    kind: str


def _line_start(text: str, position: int) -> int:
    """``position`` moved back over line markup ("## ", "- ", "1. ") to the start of its line,
    so a chunk cut there keeps a heading's or list item's marker with it."""
    line_start = text.rfind("\n", 0, position) + 1
    return line_start if _LINE_MARKUP.fullmatch(text, line_start, position) else position


def units(document: Document) -> list[Unit]:
    """The document's blocks in order; paragraphs split on blank lines if it has no blocks."""
    spans = sorted((b.start, b.end, b.kind) for b in document.blocks if b.end > b.start)
    if not spans:
        spans = [(m.start(), m.end(), "paragraph") for m in _PARAGRAPH.finditer(document.text)]
    result: list[Unit] = []
    for start, end, kind in spans:
        start = _line_start(document.text, start)
        if result and start < result[-1].end:  # two blocks on one line: keep the block start
            start = max(result[-1].end, start)
        result.append(Unit(len(result) + 1, start, end, kind))
    return result


def units_between(all_units: list[Unit], start: int, end: int) -> list[Unit]:
    """The units that start inside ``[start, end)``."""
    return [u for u in all_units if start <= u.start < end]


def render(document: Document, selected: list[Unit], end: int) -> str:
    """The text from the first selected unit to ``end``, each unit introduced by ``[n] ``.

    A unit's text runs to the next unit's start, so the gap after a block stays with it; each
    anchor begins a line.
    """
    parts: list[str] = []
    for i, unit in enumerate(selected):
        stop = selected[i + 1].start if i + 1 < len(selected) else end
        piece = document.text[unit.start : stop]
        if parts and not parts[-1].endswith("\n"):
            parts.append("\n")
        parts.append(f"[{unit.number}] {piece}")
    return "".join(parts).rstrip() + "\n"


def windows(document: Document, selected: list[Unit], budget_tokens: int) -> list[list[Unit]]:
    """Consecutive runs of units whose anchored text fits ``budget_tokens`` (tiktoken counts).

    A single unit larger than the budget becomes a window of its own.
    """
    result: list[list[Unit]] = []
    current: list[Unit] = []
    used = 0
    for i, unit in enumerate(selected):
        stop = selected[i + 1].start if i + 1 < len(selected) else unit.end
        cost = count_tokens(document.text[unit.start : stop]) + ANCHOR_OVERHEAD_TOKENS
        if current and used + cost > budget_tokens:
            result.append(current)
            current, used = [], 0
        current.append(unit)
        used += cost
    if current:
        result.append(current)
    return result


class AnchorMap:
    """Anchor number → character offsets of that block."""

    def __init__(self, all_units: list[Unit]) -> None:
        self._units = {u.number: u for u in all_units}

    def offset(self, number: int) -> int:
        return self._units[number].start

    def end(self, number: int) -> int:
        return self._units[number].end


def boundary_candidates(
    document: Document, all_units: list[Unit], start: int, end: int
) -> list[int]:
    """Offsets a chunk may start at inside ``[start, end]``: block starts and sentence starts.

    Sentences inside tables are not candidates, so a snapped boundary never cuts a table.
    """
    found = {start, end}
    for unit in all_units:
        if start <= unit.start <= end:
            found.add(unit.start)
        if unit.kind == "table" or unit.end <= start or unit.start >= end:
            continue
        for match in _SENTENCE_START.finditer(document.text, unit.start, unit.end):
            if start <= match.end() <= end:
                found.add(match.end())
    return sorted(found)


def snap(
    document: Document, position: int, candidates: list[int], tolerance: int
) -> tuple[int, int]:
    """(snapped offset, distance moved). The nearest candidate within ``tolerance`` characters;
    failing that, the nearest word start, so a chunk never begins mid-word."""
    i = bisect.bisect_left(candidates, position)
    near = [candidates[j] for j in (i - 1, i) if 0 <= j < len(candidates)]
    best = min(near, key=lambda c: abs(c - position))
    if abs(best - position) <= tolerance:
        return best, abs(best - position)
    low, high = candidates[0], candidates[-1]
    words = [m.start() for m in _WORD_START.finditer(document.text, low, high)] or [low]
    best = min(words, key=lambda c: abs(c - position))
    return best, abs(best - position)

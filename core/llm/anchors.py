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
from core.llm.errors import ParsedLine, TSVError
from core.llm.replies.repairs import Repairs
from core.prompts.template import Mode as Mode  # anchors or offsets, as the template says
from core.text.sentences import sentence_starts
from core.tokens import count_tokens

_PARAGRAPH = re.compile(r"\S(?:.*?)(?=\n\s*\n|\Z)", re.DOTALL)
_WORD_START = re.compile(r"(?<=\s)(?=\S)")
_LINE_MARKUP = re.compile(r"[ \t]*(?:#{1,6}|[-*+>•]|\d{1,3}[.)])?[ \t]*")
ANCHOR_OVERHEAD_TOKENS = 4  # "[123] " plus a line break


@dataclass(frozen=True)
class AnchorBlock:
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


def anchor_blocks(document: Document) -> list[AnchorBlock]:
    """The document's blocks in order; paragraphs split on blank lines if it has no blocks."""
    spans = sorted((b.start, b.end, b.kind) for b in document.blocks if b.end > b.start)
    if not spans:
        spans = [(m.start(), m.end(), "paragraph") for m in _PARAGRAPH.finditer(document.text)]
    result: list[AnchorBlock] = []
    for start, end, kind in spans:
        start = _line_start(document.text, start)
        if result and start < result[-1].end:  # two blocks on one line: keep the block start
            start = max(result[-1].end, start)
        result.append(AnchorBlock(len(result) + 1, start, end, kind))
    return result


def blocks_between(
    all_blocks: list[AnchorBlock], start: int, end: int
) -> list[AnchorBlock]:
    """The blocks that start inside ``[start, end)``."""
    return [b for b in all_blocks if start <= b.start < end]


def render(document: Document, selected: list[AnchorBlock], end: int) -> str:
    """The text from the first selected block to ``end``, each block introduced by ``[n] ``.

    A block's text runs to the next block's start, so the gap after a block stays with it; each
    anchor begins a line.
    """
    parts: list[str] = []
    for i, block in enumerate(selected):
        stop = selected[i + 1].start if i + 1 < len(selected) else end
        piece = document.text[block.start : stop]
        if parts and not parts[-1].endswith("\n"):
            parts.append("\n")
        parts.append(f"[{block.number}] {piece}")
    return "".join(parts).rstrip() + "\n"


def windows(
    document: Document, selected: list[AnchorBlock], budget_tokens: int
) -> list[list[AnchorBlock]]:
    """Consecutive runs of blocks whose anchored text fits ``budget_tokens`` (tiktoken counts).

    A single block larger than the budget becomes a window of its own.
    """
    result: list[list[AnchorBlock]] = []
    current: list[AnchorBlock] = []
    used = 0
    for i, block in enumerate(selected):
        stop = selected[i + 1].start if i + 1 < len(selected) else block.end
        cost = count_tokens(document.text[block.start : stop]) + ANCHOR_OVERHEAD_TOKENS
        if current and used + cost > budget_tokens:
            result.append(current)
            current, used = [], 0
        current.append(block)
        used += cost
    if current:
        result.append(current)
    return result


def check_anchor(label: str, number: int, window: list[AnchorBlock], row: ParsedLine,
                 what: str, repairs: Repairs | None = None, *, ends: bool = False) -> int:
    """``number`` when it is an anchor shown in ``window``, else a TSVError. Tolerant parsing
    moves an anchor that ``ends`` something (a section's last block, DOCUMENT_END) from past the
    window's end to its last anchor, and records it; a start outside the text stays an error."""
    first, last = window[0].number, window[-1].number
    if number > last and ends and repairs is not None:
        repairs.add("anchor_clamped", label, row.line_number, row.line,
                    f"{what.replace('_', ' ')} {number} became {last}")
        return last
    if not first <= number <= last:
        raise TSVError.at(label, f"{what} {number} is not an anchor of this text "
                          f"(anchors {first}-{last})", row)
    return number


class AnchorMap:
    """Anchor number → character offsets of that block."""

    def __init__(self, all_blocks: list[AnchorBlock]) -> None:
        self._blocks = {u.number: u for u in all_blocks}

    def offset(self, number: int) -> int:
        return self._blocks[number].start

    def end(self, number: int) -> int:
        return self._blocks[number].end


def boundary_candidates(
    document: Document, all_blocks: list[AnchorBlock], start: int, end: int
) -> list[int]:
    """Offsets a chunk may start at inside ``[start, end]``: block starts and sentence starts.

    Sentences inside tables are not candidates, so a snapped boundary never cuts a table.
    """
    found = {start, end}
    for block in all_blocks:
        if start <= block.start <= end:
            found.add(block.start)
        if block.kind == "table" or block.end <= start or block.start >= end:
            continue
        for at in sentence_starts(document.text, block.start, block.end, line_breaks=False):
            if start <= at <= end:
                found.add(at)
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

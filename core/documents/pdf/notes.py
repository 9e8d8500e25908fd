"""Footnotes: the lines at the foot of a column set smaller than the page's text and opened by
a note mark ("1", "²", "*", "†", "[3]"). They are read as blocks of their own after the
paragraph they interrupt (:mod:`.writer`), never inside its sentence when that paragraph goes
on in the next column or on the next page.

Invariant: only the last lines of a column, set small, below every line of larger text they
stand under, are notes, and only when the first of them opens with a mark.
"""

from __future__ import annotations

import re
import statistics

from core.documents.pdf.layout import Line

NOTE_SIZE = 0.9  # a footnote is set at most this share of the page's text size
MARK = re.compile(r"^(\d{1,3}|[¹²³⁰-⁹]+|[*†‡§¶]+|\[\d{1,3}\]|\(\d{1,3}\))(\s|[.)]\s|$)")


def opens_note(line: Line) -> bool:
    """The line opens with a note mark, or with a number set smaller than its text."""
    first = line.words[0]
    return bool(MARK.match(line.text)) or (
        first.text.isdigit() and len(line.words) > 1 and first.size < 0.85 * line.size)


def mark_notes(lines: list[Line]) -> set[int]:
    """The indexes of a page's lines (in reading order) that are footnotes."""
    sizes = [w.size for line in lines for w in line.words for _ in range(max(w.chars, 1))]
    if len(lines) < 3 or not sizes:
        return set()
    body = statistics.median(sizes)
    columns: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        columns.setdefault(line.column, []).append(i)
    small = {i for i, line in enumerate(lines) if line.size <= NOTE_SIZE * body}
    notes: set[int] = set()
    for members in columns.values():
        foot = len(members)
        while foot > 0 and members[foot - 1] in small:
            foot -= 1
        found = members[foot:]
        if not found or not opens_note(lines[found[0]]):
            continue
        # under the running text above them (in their column, or across the page)
        top = lines[found[0]].top
        left, right = min(lines[i].x0 for i in found), max(lines[i].x1 for i in found)
        above = [line for i, line in enumerate(lines) if i not in small
                 and line.x0 < right and line.x1 > left]
        if above and all(line.bottom <= top for line in above):
            notes.update(found)
    return notes

"""Tables: ruled ones from the page's drawn lines, unruled ones from aligned columns of text.

A candidate is kept only when the evidence is clear: after empty rows and columns are dropped
it has at least two columns, two rows holding two or more filled cells, and four filled cells.
A text box drawn with a frame (one column, or one row) is not a table: its words stay in the
text flow. Cell text comes from the page's cleaned words (see :mod:`.chars`), so tables get the
same unmappable-glyph and overprint repairs as the text.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from typing import Any

from core.documents.pdf.chars import Word
from core.documents.pdf.layout import Line, group_lines, join_words

MARKER = re.compile(r"^(\S|[0-9ivxIVX]{1,4}[.)]|[A-Za-z][.)]|[0-9.]+)?$")
BRACKET = re.compile(r"^[:)|\]§]$")  # one mark down a column: a caption's bracket, not data
CELL_GAP = 1.0  # font sizes: a gap this wide between words of a line separates two cells
MAX_CELL_WORDS = 8.0  # mean words per filled cell above which aligned text is prose, not a table


@dataclass
class TableBlock:
    rows: list[list[str]]
    page: int
    x0: float
    x1: float
    top: float
    bottom: float


def clean_rows(rows: list[list[str]]) -> list[list[str]] | None:
    """Rows without empty rows and columns, or None when what is left is not a table."""
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return None
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    keep = [i for i in range(width) if any(r[i].strip() for r in rows)]
    rows = [[r[i] for i in keep] for r in rows]
    filled = [sum(1 for c in r if c.strip()) for r in rows]
    if len(keep) < 2 or sum(1 for f in filled if f >= 2) < 2 or sum(filled) < 4:
        return None
    return rows


def _cell_text(words: list[Word]) -> str:
    return " ".join(line.text for line in group_lines(words, 0))


@dataclass(frozen=True)
class _Ruling:
    """The drawn edges of a page, as pdfplumber's table finder reads a page."""

    edges: list[dict[str, Any]]


def _cell_at(rows: list[Any], x: float, y: float) -> tuple[int, int] | None:
    for r, row in enumerate(rows):
        x0, top, x1, bottom = row.bbox
        if top <= y <= bottom and x0 <= x <= x1:
            for c, cell in enumerate(row.cells):
                if cell is not None and cell[1] <= y <= cell[3] and cell[0] <= x <= cell[2]:
                    return r, c
    return None


def ruled_tables(edges: list[dict[str, Any]], words: list[Word], number: int
                 ) -> tuple[list[TableBlock], list[Word]]:
    """Tables drawn with rules or cell shading (``edges``, see :mod:`.reader`), and the words
    left outside them. A word belongs to the first cell (row by row) holding its centre."""
    from pdfplumber.table import TableFinder

    found: list[TableBlock] = []
    taken: set[int] = set()
    for table in TableFinder(_Ruling(edges)).tables:  # type: ignore[arg-type]
        x0, top, x1, bottom = table.bbox
        if any(t.x0 <= (x0 + x1) / 2 <= t.x1 and t.top <= (top + bottom) / 2 <= t.bottom
               for t in found):
            continue
        rows = table.rows
        grid: list[list[list[Word]]] = [[[] for _ in row.cells] for row in rows]
        used: set[int] = set()
        for w in words:
            if id(w) in taken:
                continue
            cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
            if not (x0 <= cx <= x1 and top <= cy <= bottom):
                continue
            cell_at = _cell_at(rows, cx, cy)
            if cell_at is not None:
                grid[cell_at[0]][cell_at[1]].append(w)
                used.add(id(w))
        kept = clean_rows([[_cell_text(c) for c in row] for row in grid])
        if kept is None:
            continue
        found.append(TableBlock(kept, number, x0, x1, top, bottom))
        taken |= used
    return found, [w for w in words if id(w) not in taken]


def _cells(line: Line) -> int:
    size = line.size
    return 1 + sum(1 for a, b in zip(line.words, line.words[1:], strict=False)
                   if b.x0 - a.x1 >= CELL_GAP * size)


def _columns(lines: list[Line]) -> list[tuple[float, float]] | None:
    """The x ranges of the columns the lines share (empty stretches across all of them)."""
    words = [w for line in lines for w in line.words]
    size = statistics.median(w.size for w in words)
    spans = sorted((w.x0, w.x1) for w in words)
    gaps = []
    reach = spans[0][1]
    for start, end in spans[1:]:
        if start - reach >= 0.5 * size:
            gaps.append((reach, start))
        reach = max(reach, end)
    if not gaps:
        return None
    edges = [spans[0][0], *(g for gap in gaps for g in gap), reach]
    return [(edges[i], edges[i + 1]) for i in range(0, len(edges), 2)]


def _as_table(lines: list[Line]) -> TableBlock | None:
    columns = _columns(lines)
    if columns is None:
        return None
    rows = []
    for line in lines:
        cells: list[list[Word]] = [[] for _ in columns]
        for w in line.words:
            cells[max(i for i, c in enumerate(columns) if w.x0 >= c[0] - 0.01)].append(w)
        rows.append([join_words(c) for c in cells])
    rows = _join_continuations(rows, lines)
    filled = [c for r in rows for c in r if c]
    for i in range(len(columns)):
        marks = [r[i] for r in rows if r[i]]
        if len(marks) >= 0.5 * len(rows) and len(set(marks)) == 1 and BRACKET.match(marks[0]):
            return None  # the parties of a court caption set against a ":" or ")" bracket
    if len(columns) == 2 and sum(1 for r in rows if MARKER.match(r[0])) >= 0.5 * len(rows):
        return None  # a list or numbered headings: markers set apart from their text
    if len(columns) < 3 and len(rows) < 4:
        return None
    if sum(len(c.split()) for c in filled) / len(filled) > MAX_CELL_WORDS:
        return None
    if sum(1 for r in rows if sum(1 for c in r if c) >= 2) < 0.7 * len(rows):
        return None
    kept = clean_rows(rows)
    if kept is None:
        return None
    return TableBlock(kept, lines[0].page, min(ln.x0 for ln in lines),
                      max(ln.x1 for ln in lines), lines[0].top, lines[-1].bottom)


def _continuation(line: Line, run: list[Line]) -> bool:
    """A line that goes on the row above it: set close under it in the same column, its text
    starting in one of the row's later cells, never in the first column."""
    above = run[-1]
    first = min(ln.x0 for ln in run)
    cells = [w.x0 for ln in run for w in ln.words if w.x0 > first + above.size]
    return (line.page == above.page and line.column == above.column
            and 0 <= line.top - above.bottom < above.size
            and line.x0 > first + above.size
            and any(abs(line.x0 - x) <= 0.5 * above.size for x in cells))


def _join_continuations(rows: list[list[str]], lines: list[Line]) -> list[list[str]]:
    """Rows (one per line) with nothing in the first column and fewer cells than the row above,
    folded into that row cell by cell, when the evidence is clear: the line holds one cell, or
    it sits closer under the row above than rows sit under each other (a wrapped cell)."""
    gaps = [b.top - a.bottom for a, b in zip(lines, lines[1:], strict=False)]
    usual = statistics.median(gaps) if gaps else 0.0
    out: list[list[str]] = []
    for k, row in enumerate(rows):
        filled = sum(1 for c in row if c)
        tight = k > 0 and (filled == 1 or gaps[k - 1] < usual - 0.1 * lines[k].size)
        if out and tight and not row[0] and filled < sum(1 for c in out[-1] if c):
            out[-1] = [f"{a} {b}".strip() for a, b in zip(out[-1], row, strict=True)]
        else:
            out.append(row)
    return out


def unruled_tables(items: list[Line | TableBlock]) -> list[Line | TableBlock]:
    """The items with each run of three or more lines that line up in columns (cells set
    apart by wide gaps, the same columns on every line) replaced by a table; a line that
    continues a cell of the row above (see :func:`_continuation`) stays in the run."""
    out: list[Line | TableBlock] = []
    i = 0
    while i < len(items):
        j = i
        while j < len(items):
            line = items[j]
            if not isinstance(line, Line):
                break
            run = [x for x in items[i:j] if isinstance(x, Line)]
            if _cells(line) < 2 and not (run and _cells(run[0]) >= 2
                                         and _continuation(line, run)):
                break
            if j > i:
                above = items[j - 1]
                assert isinstance(above, Line)
                if not (line.page == above.page and line.column == above.column
                        and 0 <= line.top - above.bottom < 2 * above.size):
                    break
            j += 1
        run = [x for x in items[i:j] if isinstance(x, Line)]
        table = _as_table(run) if sum(1 for ln in run if _cells(ln) >= 2) >= 3 else None
        if table is not None:
            out.append(table)
            i = j
        else:
            out.append(items[i])
            i += 1
    return out

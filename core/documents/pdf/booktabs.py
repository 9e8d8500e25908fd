"""Tables ruled only across: a top rule, perhaps a rule under the header, a bottom rule, and no
rule down the page (the usual style of papers, LaTeX's booktabs): their columns come from the
alignment of the cells, their rows from the baselines.

- rules are horizontal strokes or thin filled boxes, pieces on one height that touch merged
  (a browser draws a border cell by cell);
- a table is the words between two rules of the same width (the top and the bottom rule) with
  a rule of that width between them, which ends the header (two rules alone frame a heading's
  section or a note as often as a table), and no long vertical rule;
- columns are the empty stripes down the body rows (every row's cells leave them empty); a
  header word belongs to the column under its centre, header lines fold into one header row;
- rows are the body's baselines: sub-rows stay rows of their own ("OTSL" and "HTML" under one
  "6"); a cell set centred across two sub-rows (a spanned cell), on a baseline between two rows
  closer than rows are to each other, belongs to the first of them.

A candidate is kept only when it reads as a table: two columns or more, rows holding two or more
cells, and cells of a few words (prose between two rules is not a table).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from core.documents.pdf.chars import Word
from core.documents.pdf.layout import join_words
from core.documents.pdf.tables import MAX_CELL_WORDS, TableBlock, clean_rows

THIN = 2.0  # points: a filled box this thin is a rule
MIN_RULE = 40.0  # points: a shorter stroke is not a table's rule
TOUCH = 2.0  # points: pieces of a rule this close are one rule
MAX_HEADER_LINES = 3  # lines between a top rule and a header rule
SAME_WIDTH = 3.0  # points: rules whose ends lie this close are of one table


@dataclass(frozen=True)
class _Rule:
    y: float
    x0: float
    x1: float


def _rules(edges: list[dict[str, Any]]) -> tuple[list[_Rule], list[dict[str, Any]]]:
    """The page's horizontal rules (pieces merged) and its vertical strokes."""
    pieces = sorted(((e["top"] + e["bottom"]) / 2, e["x0"], e["x1"]) for e in edges
                    if e["bottom"] - e["top"] <= THIN and e["x1"] - e["x0"] > THIN)
    rules: list[list[float]] = []
    for y, x0, x1 in pieces:
        for rule in rules:
            if abs(rule[0] - y) <= THIN and x0 <= rule[2] + TOUCH and x1 >= rule[1] - TOUCH:
                rule[1], rule[2] = min(rule[1], x0), max(rule[2], x1)
                break
        else:
            rules.append([y, x0, x1])
    found = sorted((_Rule(*r) for r in rules if r[2] - r[1] >= MIN_RULE), key=lambda r: r.y)
    verticals = [e for e in edges if e["x1"] - e["x0"] <= THIN and e["bottom"] - e["top"] > THIN]
    return found, verticals


def _same(a: _Rule, b: _Rule) -> bool:
    return abs(a.x0 - b.x0) <= SAME_WIDTH and abs(a.x1 - b.x1) <= SAME_WIDTH


def _columns(words: list[Word], size: float) -> list[tuple[float, float]]:
    """The x ranges of the columns the words leave empty stripes between."""
    spans = sorted((w.x0, w.x1) for w in words)
    edges = [spans[0][0]]
    reach = spans[0][1]
    for start, end in spans[1:]:
        if start - reach >= 0.5 * size:
            edges += [reach, start]
        reach = max(reach, end)
    edges.append(reach)
    return [(edges[i], edges[i + 1]) for i in range(0, len(edges), 2)]


def _column_of(word: Word, columns: list[tuple[float, float]]) -> int:
    centre = (word.x0 + word.x1) / 2
    return min(range(len(columns)), key=lambda i: 0 if columns[i][0] <= centre <= columns[i][1]
               else min(abs(centre - columns[i][0]), abs(centre - columns[i][1])))


def _baselines(words: list[Word], size: float) -> list[list[Word]]:
    """Words on one baseline (within a quarter of the font size), top to bottom."""
    rows: list[list[Word]] = []
    for word in sorted(words, key=lambda w: w.bottom):
        if rows and word.bottom - rows[-1][-1].bottom <= 0.25 * size:
            rows[-1].append(word)
        else:
            rows.append([word])
    return rows


def _aligned(a: list[Word], b: list[Word], size: float) -> bool:
    """Two rows with a cell in one column (left or right edges together)."""
    return any(abs(w.x0 - v.x0) < size or abs(w.x1 - v.x1) < size for w in a for v in b)


def _body_rows(words: list[Word], size: float) -> list[list[Word]]:
    """Rows by baseline; a row set between two others, closer to both than rows usually are,
    whose cells the row above leaves empty (a cell spanning sub-rows, centred), joins the row
    above."""
    rows = _baselines(words, size)
    if len(rows) < 3:
        return rows
    # the usual step between two rows with cells in one column
    steps = [b[0].bottom - a[0].bottom for a, b in zip(rows, rows[1:], strict=False)
             if _aligned(a, b, size)]
    if not steps:
        return rows
    pitch = statistics.median(steps)
    out: list[list[Word]] = [rows[0]]
    for k in range(1, len(rows)):
        row, above = rows[k], out[-1]
        below = rows[k + 1] if k + 1 < len(rows) else None
        between = (row[0].bottom - above[0].bottom < 0.75 * pitch and below is not None
                   and below[0].bottom - row[0].bottom < 0.75 * pitch)
        if between and not _aligned(row, above, size):
            above.extend(row)
        else:
            out.append(row)
    return out


def _cells(words: list[Word], columns: list[tuple[float, float]]) -> list[str]:
    cells: list[list[Word]] = [[] for _ in columns]
    for w in sorted(words, key=lambda w: (round(w.bottom), w.x0)):
        cells[_column_of(w, columns)].append(w)
    return [" ".join(join_words(line) for line in _lines(c)) for c in cells]


def _lines(words: list[Word]) -> list[list[Word]]:
    size = words[0].size if words else 1.0
    return [sorted(line, key=lambda w: w.x0) for line in _baselines(words, size)]


def _table(words: list[Word], top: _Rule, bottom: _Rule, header_end: float, number: int
           ) -> TableBlock | None:
    size = statistics.median(w.size for w in words)
    head = [w for w in words if w.bottom <= header_end]
    body = [w for w in words if w.bottom > header_end]
    if not head or not body:
        return None
    rows_words = _body_rows(body, size)
    columns = _columns([w for row in rows_words for w in row], size)
    if len(columns) < 2:
        return None
    rows = [_cells(head, columns)] + [_cells(row, columns) for row in rows_words]
    kept = clean_rows(rows)
    if kept is None or len(kept) < 3:
        return None
    filled = [c for r in kept for c in r if c]
    if sum(len(c.split()) for c in filled) / len(filled) > MAX_CELL_WORDS:
        return None
    if sum(1 for r in kept if sum(1 for c in r if c) >= 2) < 0.7 * len(kept):
        return None
    return TableBlock(kept, number, top.x0, top.x1, top.y, bottom.y)


def rule_framed_tables(edges: list[dict[str, Any]], words: list[Word], number: int
                       ) -> tuple[list[TableBlock], list[Word]]:
    """Tables ruled only across on the page, and the words left outside them."""
    rules, verticals = _rules(edges)
    found: list[TableBlock] = []
    taken: set[int] = set()
    used: set[int] = set()  # rules that already closed a table
    for i, top in enumerate(rules):
        if i in used:
            continue
        for j in range(i + 1, len(rules)):
            bottom = rules[j]
            if not _same(top, bottom):
                continue
            inside = [w for w in words if id(w) not in taken and w.upright
                      and top.x0 - 1 <= (w.x0 + w.x1) / 2 <= top.x1 + 1
                      and top.y < (w.top + w.bottom) / 2 < bottom.y]
            if not inside or any(
                    top.x0 < v["x0"] < top.x1 and v["top"] < bottom.y and v["bottom"] > top.y
                    and v["bottom"] - v["top"] > 0.5 * (bottom.y - top.y) for v in verticals):
                break
            middle = [r.y for r in rules[i + 1:j] if _same(top, r)]
            table = _table(inside, top, bottom, middle[0], number) if middle else None
            if table is None:
                if not middle and len(_baselines(inside, inside[0].size)) <= MAX_HEADER_LINES:
                    continue  # the rule under the header: the bottom rule is further down
                break
            found.append(table)
            taken |= {id(w) for w in inside}
            used |= set(range(i, j + 1))
            break
    return found, [w for w in words if id(w) not in taken]

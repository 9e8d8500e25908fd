"""A table larger than a limit, cut into parts of whole rows, each part a ``table`` chunk.

A row is one non-blank line of the table's text (a Markdown row); the header is the first
line, with the ``|---|`` rule under it when there is one. Rows are never cut: a row larger
than the limit is a part of its own.

The span invariant holds for every part (``chunk.text == document.text[start:end]``), so the
header cannot be prepended to a part's text. Instead the first part's span holds the caption
(when it comes before the table), the header and the first rows; every later part's span
holds only its own rows, and the part carries the header lines in ``Chunk.table_header``;
``Chunk.display_text`` puts them back in front, and that is what is shown and embedded. A
caption after the table joins the last part. The limit counts the header a part carries.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from core.chunking.token_index import TokenIndex
from core.documents.model import Table
from core.text.spans import strip_span

RULE = re.compile(r"\|?(?:\s*:?-+:?\s*\|)*\s*:?-+:?\s*\|?")


class TablePart(NamedTuple):
    start: int
    end: int
    header: str | None  # the header lines, for every part but the first


def row_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The stripped non-blank lines of ``text[start:end]``."""
    out = []
    position = start
    while position < end:
        stop = text.find("\n", position, end)
        stop = end if stop == -1 else stop
        a, b = strip_span(text, position, stop)
        if b > a:
            out.append((a, b))
        position = stop + 1
    return out


def table_parts(index: TokenIndex, start: int, end: int, table: Table, limit: int,
                one_row_each: bool) -> list[TablePart]:
    """Parts of the table chunk ``[start, end)`` (the table with its caption): groups of
    consecutive rows of at most ``limit`` tokens, or one row each; the whole span when the
    table has fewer than two body rows."""
    text = index.text
    rows = row_spans(text, table.start, table.end)
    head = 2 if len(rows) > 1 and RULE.fullmatch(text[rows[1][0] : rows[1][1]]) else 1
    body = rows[head:]
    if len(body) < 2:
        return [TablePart(start, end, None)]
    header = text[rows[0][0] : rows[head - 1][1]]
    header_tokens = index.count(rows[0][0], rows[head - 1][1]) + 1  # + the line break
    parts: list[TablePart] = []
    part_start, part_end = start, body[0][1]
    for row_start, row_end in body[1:]:
        carried = header_tokens if parts else 0
        if one_row_each or carried + index.count(part_start, row_end) > limit:
            parts.append(TablePart(part_start, part_end, header if parts else None))
            part_start = row_start
        part_end = row_end
    parts.append(TablePart(part_start, end, header if parts else None))
    return parts

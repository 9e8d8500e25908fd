"""The lenient TSV reader: an answer's data lines, each with its columns.

Strict by default: blank lines are skipped and a line repeating the column header is ignored;
nothing else is forgiven. Tolerant (a :class:`Repairs` collector passed down instead of None) also
reads what small models write instead of plain TSV — a Markdown table, numbered rows, columns
separated by spaces, JSON — and records each repair.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from core.llm.errors import TSVError
from core.llm.replies.checks import INTEGER, Line, answer_lines
from core.llm.replies.repairs import RepairKind, Repairs

_MD_SEPARATOR = re.compile(r"\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?")
_LIST_MARK = re.compile(r"(?:\d{1,3}[.)]|[-*+\u2022])\s+(?=\S)")
_LIST_CELL = re.compile(r"(?:\d{1,3}[.)]?|[-*+\u2022])")
_SPACES = re.compile(r"[ \t]{2,}|\t")
_NAME = re.compile(r"[^a-z0-9]")
SYNONYMS = {  # words models use for a column instead of its name
    "position": "anchor", "anchor": "position", "start": "start", "end": "end",
    "type": "type", "kind": "type", "reason": "justification", "why": "justification",
    "explanation": "justification", "parent": "parent", "name": "title", "heading": "title",
    "section": "title", "depth": "level",
}


@dataclass(frozen=True)
class Columns:
    """What a TSV answer's rows hold: the column names, which columns are integers, and the
    free-text column a stray tab may split (the last one) — what tolerant parsing needs to tell
    a data row from a header, a list number or an explanation."""

    names: tuple[str, ...]
    numeric: tuple[int, ...] = ()
    free: int | None = None  # the column extra cells are joined into

    def fits(self, cells: list[str]) -> bool:
        return len(cells) == len(self.names) and all(
            INTEGER.fullmatch(cells[i].strip()) for i in self.numeric)


def _key(name: str) -> str:
    return _NAME.sub("", name.lower())


def _column_of(key: str, columns: tuple[str, ...]) -> int | None:
    """The column a JSON key names: its name, a part of it, or a synonym of a part."""
    wanted = _key(key)
    for i, column in enumerate(columns):
        if _key(column) == wanted:
            return i
    for i, column in enumerate(columns):
        parts = column.lower().split("_")
        if wanted in parts or any(SYNONYMS.get(wanted) == part for part in parts):
            return i
    return None


def _json_rows(text: str, columns: tuple[str, ...]) -> list[str] | None:
    """The TSV lines a JSON answer (a list of objects or of lists, or one object, maybe under
    one key) stands for; None when it is no such JSON."""
    body = "\n".join(line for line in text.strip().splitlines()
                     if not line.strip().startswith("```")).strip()
    if not body.startswith(("[", "{")):
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        data = lists[0] if len(lists) == 1 else [data]
    if not isinstance(data, list) or not data:
        return None
    lines = []
    for item in data:
        if isinstance(item, list):
            cells = [str(v) for v in item]
        elif isinstance(item, dict):
            cells = [""] * len(columns)
            placed = {_column_of(str(k), columns): v for k, v in item.items()}
            if None in placed or len(placed) != len(item):
                cells = [str(v) for v in item.values()]  # keys it cannot place: go by order
            else:
                for i, value in placed.items():
                    assert i is not None
                    cells[i] = "" if value is None else str(value)
        else:
            return None
        lines.append("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in cells))
    return lines


def _spaced(text: str) -> list[str]:
    return [c.strip() for c in _SPACES.split(text)]


def _tolerant_cells(line: str, shape: Columns) -> tuple[list[str] | None, RepairKind | None]:
    """The row a line stands for (None when it is none: a separator, an explanation) and the
    repair that reading it took."""
    stripped = line.strip()
    kind: RepairKind | None = None
    if "\t" not in stripped and "|" in stripped:
        if _MD_SEPARATOR.fullmatch(stripped):
            return None, "markdown_table"
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        kind = "markdown_table"
    else:
        cells = [c.strip() for c in line.split("\t")]
    n = len(shape.names)
    if len(cells) == n + 1 and _LIST_CELL.fullmatch(cells[0]) and shape.fits(cells[1:]):
        return cells[1:], "list_numbers"  # "1.<tab>row" or "| 1 | row |"
    marked = _LIST_MARK.match(cells[0])
    if marked and not shape.fits(cells) and shape.free != 0:  # "1. 5<tab>…", "- Intro<tab>…"
        unmarked = [cells[0][marked.end():], *cells[1:]]
        if shape.fits(unmarked) or (0 not in shape.numeric and len(unmarked) == n):
            cells, kind = unmarked, "list_numbers"
    if len(cells) == 1 and n > 1:  # columns separated by runs of spaces instead of tabs
        if shape.fits(_spaced(stripped)):
            return _spaced(stripped), "columns_fixed"
        numbered = _LIST_MARK.match(stripped)
        if numbered and shape.fits(_spaced(stripped[numbered.end():])):
            return _spaced(stripped[numbered.end():]), "list_numbers"
    extra = len(cells) - n
    if extra > 0 and shape.free is not None:  # a tab inside the free-text value
        free = shape.free
        joined = [*cells[:free], " ".join(cells[free : free + extra + 1]),
                  *cells[free + extra + 1 :]]
        if shape.fits(joined):
            return joined, kind or "columns_fixed"
    if extra == -1 and shape.free == n - 1 and shape.fits([*cells, ""]):
        return [*cells, ""], kind or "columns_fixed"  # the free text left out
    return cells, kind


def tsv_lines(label: str, text: str, columns: tuple[str, ...] | Columns,
              repairs: Repairs | None = None, *, max_rows: int | None = None,
              max_chars: int | None = None) -> list[Line]:
    """The data lines of a TSV answer, each with exactly ``len(columns)`` cells, at most
    ``max_rows`` of them. A line repeating the column names is skipped (recorded when tolerant).

    Tolerant (``repairs`` given; ``columns`` a :class:`Columns` says which cells must be
    integers) also reads what models write instead of plain TSV — a header naming the columns in
    other words, a Markdown table, numbered or bulleted rows, columns separated by spaces, JSON —
    and drops explanation lines before or after the data; each repair is recorded once per
    answer with the first line it changed. ``max_rows`` is then left to the phase, which first
    drops repeated and implausible rows.
    """
    shape = columns if isinstance(columns, Columns) else Columns(tuple(columns))
    names = shape.names
    header = [c.lower() for c in names]
    numbered = answer_lines(label, text, repairs, max_chars)
    if repairs is not None:
        converted = _json_rows("\n".join(line for _, line in numbered), names)
        if converted is not None:
            repairs.add("json_rows", label, numbered[0][0], numbered[0][1])
            numbered = list(enumerate(converted, numbered[0][0]))
    lines: list[Line] = []
    seen: set[RepairKind] = set()
    malformed: TSVError | None = None  # tolerant: the first row dropped for a bad value

    def note(kind: RepairKind, number: int, line: str, detail: str = "") -> None:
        if repairs is not None and kind not in seen:
            seen.add(kind)
            repairs.add(kind, label, number, line, detail)

    for number, line in numbered:
        line = line.rstrip("\r")
        if not line.strip():
            continue
        cells = line.split("\t")
        if [c.strip().lower() for c in cells] == header:
            note("header_row", number, line)
            continue
        if repairs is not None:
            read, kind = _tolerant_cells(line, shape)
            if read is None or not shape.fits(read):
                if read is not None and len(read) > 1 and not any(
                        ch.isdigit() for ch in line):
                    note("header_row", number, line)  # the columns named in other words
                elif line.strip().startswith("```"):
                    note("code_fence", number, line)
                elif kind == "markdown_table" and read is None:
                    note(kind, number, line)
                elif read is not None and len(read) == len(names):
                    bad = next(i for i in shape.numeric if not INTEGER.fullmatch(read[i]))
                    reason = f"{names[bad]} must be an integer, got {read[bad]!r}"
                    malformed = malformed or TSVError(label, reason, line_number=number,
                                                      line=line)
                    note("rows_dropped", number, line, reason)
                else:
                    note("trailing_text" if lines else "preamble", number, line)
                continue
            if kind is not None:
                note(kind, number, line)
            cells = read
        if len(cells) != len(names):
            raise TSVError(
                label,
                f"expected {len(names)} tab-separated columns "
                f"({' | '.join(names)}), got {len(cells)}",
                line_number=number, line=line,
            )
        lines.append(Line(number, line, [c.strip() for c in cells]))
        if repairs is None and max_rows is not None and len(lines) > max_rows:
            raise TSVError(label, f"more than {max_rows:,} lines for this text (the model may "
                           "be repeating itself)", line_number=number, line=line)
    if not lines:
        raise malformed or TSVError(label, "the answer holds no data lines")
    return lines


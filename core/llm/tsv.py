"""What every phase's answer is checked for first, and the TSV line reader the phases share.

An answer is checked for the common mistakes (empty, far too long, a markdown fence, a "Here is"
preamble, a copy of the template's example); then each data line for its column count. Each
phase's own parser (in :mod:`core.llm.phases`) checks the values, order and first/last rules. A
failure is a :class:`TSVError` naming the phase by its label, the line number and the line.

Parsing is **strict** by default: blank lines are skipped and a line repeating the column header
is ignored; nothing else is forgiven. **Tolerant** parsing (a :class:`Repairs` collector passed
down instead of None) also repairs what small models typically slip on — a fence, a one-line
preamble, an anchor past the end, a title in another case, rows out of order — and records each
repair, so it is shown to the user and never silent.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from core.llm.client import LLMError

Mode = Literal["anchors", "offsets"]  # how the model names positions: block anchors or offsets
Parsing = Literal["strict", "tolerant"]  # how forgiving the answer parsers are
RepairKind = Literal["code_fence", "preamble", "header_row", "anchor_clamped", "title_matched",
                     "reordered", "structure_fallback", "markdown_table", "list_numbers",
                     "json_rows", "columns_fixed", "trailing_text", "repeat_dropped",
                     "rows_dropped", "value_fixed", "example_copy", "answer_cut",
                     "boundary_fallback", "anchor_from_title"]
REPAIR_NAMES: dict[RepairKind, str] = {
    "code_fence": "markdown code fence removed",
    "preamble": "preamble line removed",
    "header_row": "header row dropped",
    "anchor_clamped": "anchor past the end moved to the last one",
    "title_matched": "title matched to the document's heading",
    "reordered": "lines put in order",
    "structure_fallback": "the document's own sections used instead of the model's",
    "markdown_table": "Markdown table read as tab-separated rows",
    "list_numbers": "list numbering removed",
    "json_rows": "JSON read as tab-separated rows",
    "columns_fixed": "columns separated by spaces, or a tab inside a value, read as meant",
    "trailing_text": "explanation after the data removed",
    "repeat_dropped": "repeated row dropped",
    "rows_dropped": "rows that cannot belong to this text dropped",
    "value_fixed": "invalid value replaced",
    "example_copy": "lines copied from the template's example dropped",
    "answer_cut": "the complete rows of an answer cut at its token limit kept",
    "boundary_fallback": "section split by the recursive splitter instead of the model",
    "anchor_from_title": "section placed at the heading its title names",
}
PREAMBLES = ("here is", "here are", "here's")
T = TypeVar("T")
_EXAMPLE = re.compile(r"EXAMPLE OUTPUT[^\n]*:[ \t]*\n(.+?)(?:\n[ \t]*\n|\Z)", re.DOTALL)


class ParsedLine(Protocol):
    @property
    def line_number(self) -> int: ...

    @property
    def line(self) -> str: ...


class TSVError(LLMError):
    """An answer that breaks its format; ``line_number`` is 1-based within the answer."""

    def __init__(
        self,
        label: str,
        reason: str,
        *,
        line_number: int | None = None,
        line: str | None = None,
        log_path: Path | None = None,
    ) -> None:
        where = f"line {line_number}: " if line_number is not None else ""
        shown = f" — line was {line[:200]!r}" if line is not None else ""
        super().__init__(f"{where}{reason}{shown}", label=label, log_path=log_path)
        self.line_number = line_number
        self.line = line

    @classmethod
    def at(cls, label: str, reason: str, row: ParsedLine) -> TSVError:
        """An error about one parsed row (a value that is well-formed but wrong here)."""
        return cls(label, reason, line_number=row.line_number, line=row.line)

    @classmethod
    def on(cls, label: str, reason: str, line: Line) -> TSVError:
        """An error about one data line of the answer."""
        return cls(label, reason, line_number=line.number, line=line.text)


@dataclass(frozen=True)
class Repair:
    """One thing tolerant parsing changed in an answer, with the raw line it changed."""

    kind: RepairKind
    label: str  # the phase, as errors name it
    line_number: int | None
    line: str
    detail: str = ""

    @property
    def name(self) -> str:
        return REPAIR_NAMES[self.kind]


class Repairs:
    """The repairs made while parsing one document's answers (thread-safe)."""

    def __init__(self) -> None:
        self._items: list[Repair] = []
        self._lock = threading.Lock()

    def add(self, kind: RepairKind, label: str, line_number: int | None, line: str,
            detail: str = "") -> None:
        with self._lock:
            self._items.append(Repair(kind, label, line_number, line, detail))

    def extend(self, other: Repairs) -> None:
        with self._lock:
            self._items.extend(other.items)

    @property
    def items(self) -> list[Repair]:
        with self._lock:
            return list(self._items)

    def counts(self) -> Counter[RepairKind]:
        return Counter(r.kind for r in self.items)


def tolerantly(repairs: Repairs | None, parse: Callable[[Repairs | None], T]) -> T:
    """``parse(repairs)``, keeping the repairs only when the whole answer parsed."""
    if repairs is None:
        return parse(None)
    draft = Repairs()
    result = parse(draft)
    repairs.extend(draft)
    return result


def folded(text: str) -> str:
    """``text`` compared case- and whitespace-insensitively."""
    return " ".join(text.split()).casefold()


_ENUM = re.compile(r"[A-Z][A-Z0-9_]*")


def _free_text(cell: str) -> str | None:
    """A cell's words, folded, when it is free text a model could copy (not a number, an enum
    value such as SEMANTIC_SHIFT or ROOT, or a word too short to tell)."""
    cell = cell.strip().strip("|").strip()
    if len(cell) < 4 or _ENUM.fullmatch(cell) or not any(ch.isalpha() for ch in cell):
        return None
    return folded(cell)


def _cells_of(line: str) -> list[str]:
    return line.split("\t") if "\t" in line else line.strip().strip("|").split("|")


def _integers(line: str) -> tuple[int, ...]:
    return tuple(int(cell) for cell in _cells_of(line) if _INTEGER.fullmatch(cell.strip()))


@dataclass(frozen=True)
class Example:
    """The template's EXAMPLE OUTPUT: its lines, the free text of its cells, and the sequence
    of positions it names — what an answer must not copy."""

    lines: tuple[str, ...] = ()

    @classmethod
    def of(cls, template_text: str) -> Example:
        match = _EXAMPLE.search(template_text)
        if match is None:
            return cls()
        return cls(tuple(line for line in match.group(1).splitlines()
                         if line.strip() and not line.strip().startswith("```")))

    def copied_cell(self, line: str, source: str) -> str | None:
        """A free-text cell of ``line`` that equals one of the example's and is not in
        ``source`` (the text the model was asked about, folded)."""
        own = {t for example in self.lines for c in _cells_of(example)
               if (t := _free_text(c)) is not None}
        for cell in _cells_of(line):
            text = _free_text(cell)
            if text is not None and text in own and text not in source:
                return cell.strip()
        return None

    def copies_positions(self, lines: list[str]) -> bool:
        """The answer names the example's positions in the example's order (three or more)."""
        mine = [n for line in self.lines if (n := _integers(line))]
        said = [n for line in lines if (n := _integers(line))]
        return len(mine) >= 3 and said == mine


COPY_REASON = "the answer copies the template's example instead of describing this text"


def without_copies(label: str, template_text: str, answer: str, source: str,
                   repairs: Repairs | None = None) -> str:
    """``answer`` without what it copied from the template's EXAMPLE OUTPUT.

    A line whose free text (a title, a justification, a summary) is the example's and does not
    occur in ``source`` (the values the prompt showed) is a copy, and so is an answer naming the
    example's positions in order. Strict: any copy is a TSVError. Tolerant: copied lines are
    blanked (line numbers stay) and recorded; an answer that is nothing but copies is still an
    error.
    """
    example = Example.of(template_text)
    if not example.lines:
        return answer
    lines = answer.splitlines()
    data = [line for line in lines if line.strip() and not line.strip().startswith("```")]
    if example.copies_positions(data):
        raise TSVError(label, COPY_REASON + " (the example's positions)", line_number=1,
                       line=data[0])
    said = {folded(line) for line in example.lines}
    if data and all(folded(line) in said for line in data):
        first = next(n for n, line in enumerate(lines, 1) if line.strip() == data[0].strip())
        raise TSVError(label, COPY_REASON, line_number=first, line=data[0])
    known = folded(source)
    copies = [(n, line, cell) for n, line in enumerate(lines, 1)
              if (cell := example.copied_cell(line, known)) is not None]
    if not copies:
        return answer
    number, line, cell = copies[0]
    if repairs is None or len(copies) == len(data):
        raise TSVError(label, f"{COPY_REASON} ({cell!r})", line_number=number, line=line)
    repairs.add("example_copy", label, number, line,
                f"{len(copies)} line(s) copied, first {cell!r}")
    blanked = {n for n, _, _ in copies}
    return "\n".join("" if n in blanked else line for n, line in enumerate(lines, 1))


@dataclass(frozen=True)
class Line:
    """One data line of a TSV answer, split into stripped cells."""

    number: int
    text: str
    cells: list[str]


def _is_preamble(line: str) -> bool:
    return line.strip().lower().startswith(PREAMBLES)


def max_answer_chars(text: str) -> int:
    """The longest answer accepted about ``text``: twice its length and some room; anything
    longer is a model repeating itself."""
    return 2 * len(text) + 4000


def answer_lines(label: str, text: str, repairs: Repairs | None = None,
                 max_chars: int | None = None) -> list[tuple[int, str]]:
    """The answer's lines numbered from 1, or a TSVError for the mistakes every phase rejects.

    Strict (``repairs`` is None): a markdown fence or a "Here is" preamble fails. Tolerant:
    fences and one-line preambles are dropped, each recorded in ``repairs``. Either way an answer
    longer than ``max_chars`` fails: a model repeating itself must not reach the cache.
    """
    stripped = (text or "").strip()
    if not stripped:
        raise TSVError(label, "the model returned an empty answer")
    if max_chars is not None and len(stripped) > max_chars:
        raise TSVError(label, f"the answer holds {len(stripped):,} characters, more than "
                       f"{max_chars:,} expected for this text (the model may be repeating itself)")
    lines = list(enumerate(stripped.splitlines(), 1))
    number, first = lines[0]
    if repairs is None:
        if first.startswith("```"):
            raise TSVError(label, "the answer is a markdown code block, expected plain output",
                           line_number=number, line=first)
        if _is_preamble(first):
            raise TSVError(label, "the answer starts with a preamble, expected the data only",
                           line_number=number, line=first)
        return lines
    while lines and (lines[0][1].strip().startswith("```")
                     or (len(lines) > 1 and _is_preamble(lines[0][1]))):
        number, first = lines.pop(0)
        repairs.add("code_fence" if first.strip().startswith("```") else "preamble", label,
                    number, first)
    while lines and lines[-1][1].strip().startswith("```"):
        lines.pop()
    if not any(line.strip() for _, line in lines):
        raise TSVError(label, "the answer holds nothing but a code fence or a preamble")
    return lines


def check_answer(label: str, text: str, repairs: Repairs | None = None) -> str:
    """The answer without what tolerant parsing drops, or a TSVError (see :func:`answer_lines`)."""
    return "\n".join(line for _, line in answer_lines(label, text, repairs)).strip()


_MD_SEPARATOR = re.compile(r"\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?")
_LIST_MARK = re.compile(r"(?:\d{1,3}[.)]|[-*+\u2022])\s+(?=\S)")
_LIST_CELL = re.compile(r"(?:\d{1,3}[.)]?|[-*+\u2022])")
_SPACES = re.compile(r"[ \t]{2,}|\t")
_INTEGER = re.compile(r"[-+]?\d+")
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
            _INTEGER.fullmatch(cells[i].strip()) for i in self.numeric)


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
                    bad = next(i for i in shape.numeric if not _INTEGER.fullmatch(read[i]))
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


def too_many(label: str, lines: list[T], max_rows: int | None, line: Line) -> None:
    """A TSVError when more than ``max_rows`` rows remain (``line`` the first one too many)."""
    if max_rows is not None and len(lines) > max_rows:
        raise TSVError.on(label, f"more than {max_rows:,} lines for this text (the model may "
                          "be repeating itself)", line)


def integer(label: str, value: str, column: str, line: Line) -> int:
    """A non-negative integer cell."""
    try:
        result = int(value)
    except ValueError:
        raise TSVError.on(label, f"{column} must be an integer, got {value!r}", line) from None
    if result < 0:
        raise TSVError.on(label, f"{column} must not be negative", line)
    return result


def one_paragraph(label: str, text: str, limits: tuple[int, int],
                  repairs: Repairs | None = None) -> str:
    """An answer of one paragraph whose length lies within ``limits`` (characters)."""
    answer = check_answer(label, text, repairs)
    lines = [line for line in answer.splitlines() if line.strip()]
    if len(lines) > 1:
        raise TSVError(label, "expected a single paragraph", line_number=2, line=lines[1])
    low, high = limits
    if not low <= len(answer) <= high:
        raise TSVError(label, f"expected {low}-{high} characters, got {len(answer)}",
                       line_number=1, line=answer)
    return answer

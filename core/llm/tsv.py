"""Parsers for the LLM phases' answers (seed 000), strict as the seed asks.

Every answer is first checked for the common mistakes (empty, a markdown fence, a "Here is"
preamble); then each data line for its column count, integer fields and allowed values; then the
whole answer for order and first/last rules. A failure is a :class:`TSVError` naming the phase,
the line number and the line. Blank lines are skipped and a line repeating the column header is
ignored; nothing else is forgiven.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.llm.client import LLMError

Mode = Literal["anchors", "offsets"]
ROOT = "ROOT"
NONE = "NONE"
PREFIX_START = "This chunk is from"
PREFIX_CHARS = (20, 300)
TABLE_SUMMARY_CHARS = (10, 1000)

# Both modes: the first line starts the section, the last marks its end (it starts no chunk).
FIRST_TYPE = "DOCUMENT_START"
LAST_TYPE = "DOCUMENT_END"
INNER_TYPES = {"SECTION_BREAK", "SEMANTIC_SHIFT", "SIZE_CONSTRAINT"}

STRUCTURE_COLUMNS = {
    "anchors": ("title", "level", "start_anchor", "end_anchor", "parent_title"),
    "offsets": ("title", "level", "start_char", "end_char", "parent_title"),
}
BOUNDARY_COLUMNS = {
    "anchors": ("anchor", "boundary_type", "justification"),
    "offsets": ("position", "boundary_type", "justification"),
}
METADATA_COLUMNS = ("chapter_title", "section_title", "subsection_title", "summary")


class TSVError(LLMError):
    """An answer that breaks its format; ``line_number`` is 1-based within the answer."""

    def __init__(
        self,
        phase: str,
        reason: str,
        *,
        line_number: int | None = None,
        line: str | None = None,
        log_path: Path | None = None,
    ) -> None:
        where = f"line {line_number}: " if line_number is not None else ""
        shown = f" — line was {line[:200]!r}" if line is not None else ""
        super().__init__(f"{where}{reason}{shown}", phase=phase, log_path=log_path)
        self.line_number = line_number
        self.line = line

    @classmethod
    def at(cls, phase: str, reason: str, row: StructureRow | BoundaryRow) -> TSVError:
        """An error about one parsed row (a value that is well-formed but wrong here)."""
        return cls(phase, reason, line_number=row.line_number, line=row.line)


@dataclass(frozen=True)
class StructureRow:
    title: str
    level: int
    start: int  # anchor number or character offset, as the mode says
    end: int  # anchors: last block, inclusive; offsets: exclusive
    parent: str | None  # None for ROOT
    line_number: int
    line: str


@dataclass(frozen=True)
class BoundaryRow:
    position: int  # anchor number or character offset
    boundary_type: str
    justification: str
    line_number: int
    line: str


@dataclass(frozen=True)
class MetadataRow:
    chapter_title: str
    section_title: str
    subsection_title: str | None
    summary: str


def check_answer(phase: str, text: str) -> str:
    """The stripped answer, or a TSVError for the mistakes every phase rejects."""
    stripped = (text or "").strip()
    if not stripped:
        raise TSVError(phase, "the model returned an empty answer")
    first = stripped.splitlines()[0]
    if stripped.startswith("```"):
        raise TSVError(
            phase, "the answer is a markdown code block, expected plain output",
            line_number=1, line=first,
        )
    if stripped.lower().startswith(("here is", "here are", "here's")):
        raise TSVError(
            phase, "the answer starts with a preamble, expected the data only",
            line_number=1, line=first,
        )
    return stripped


def _rows(phase: str, text: str, columns: tuple[str, ...]) -> list[tuple[int, str, list[str]]]:
    """(line number, line, cells) for each data line, column count checked."""
    rows = []
    header = [c.lower() for c in columns]
    for number, line in enumerate(check_answer(phase, text).splitlines(), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        cells = line.split("\t")
        if [c.strip().lower() for c in cells] == header:
            continue
        if len(cells) != len(columns):
            raise TSVError(
                phase,
                f"expected {len(columns)} tab-separated columns "
                f"({' | '.join(columns)}), got {len(cells)}",
                line_number=number, line=line,
            )
        rows.append((number, line, [c.strip() for c in cells]))
    if not rows:
        raise TSVError(phase, "the answer holds no data lines")
    return rows


def _integer(phase: str, value: str, column: str, number: int, line: str) -> int:
    try:
        result = int(value)
    except ValueError:
        raise TSVError(
            phase, f"{column} must be an integer, got {value!r}", line_number=number, line=line
        ) from None
    if result < 0:
        raise TSVError(phase, f"{column} must not be negative", line_number=number, line=line)
    return result


def parse_structure(
    text: str,
    mode: Mode = "anchors",
    *,
    phase: str = "structure_analysis",
    known_titles: frozenset[str] = frozenset(),
) -> list[StructureRow]:
    """Phase 1: ``title level start end parent_title`` per section, starts ascending."""
    columns = STRUCTURE_COLUMNS[mode]
    sections: list[StructureRow] = []
    titles = set(known_titles)
    for number, line, (title, level_s, start_s, end_s, parent) in _rows(phase, text, columns):
        if not title:
            raise TSVError(phase, "the title is empty", line_number=number, line=line)
        level = _integer(phase, level_s, "level", number, line)
        if level not in (1, 2, 3):
            raise TSVError(phase, f"level must be 1, 2 or 3, got {level}",
                           line_number=number, line=line)
        start = _integer(phase, start_s, columns[2], number, line)
        end = _integer(phase, end_s, columns[3], number, line)
        if end < start or (mode == "offsets" and end == start):
            relation = "<=" if mode == "anchors" else "<"
            raise TSVError(phase, f"{columns[2]} must be {relation} {columns[3]}",
                           line_number=number, line=line)
        if sections and start < sections[-1].start:
            raise TSVError(
                phase, f"sections must be in ascending order ({start} comes after "
                f"{sections[-1].start})", line_number=number, line=line,
            )
        if parent != ROOT and parent not in titles:
            raise TSVError(phase, f"parent_title {parent!r} is neither ROOT nor an earlier title",
                           line_number=number, line=line)
        titles.add(title)
        sections.append(StructureRow(title, level, start, end,
                                     None if parent == ROOT else parent, number, line))
    return sections


def parse_boundaries(
    text: str, mode: Mode = "anchors", *, phase: str = "boundary_detection"
) -> list[BoundaryRow]:
    """Phase 2: ``position boundary_type justification``, strictly ascending, first/last rules."""
    columns = BOUNDARY_COLUMNS[mode]
    rows = _rows(phase, text, columns)
    boundaries: list[BoundaryRow] = []
    for index, (number, line, (position_s, kind, justification)) in enumerate(rows):
        position = _integer(phase, position_s, columns[0], number, line)
        is_first, is_last = index == 0, index == len(rows) - 1
        if is_first and kind != FIRST_TYPE:
            raise TSVError(phase, f"the first boundary must be {FIRST_TYPE}, got {kind!r}",
                           line_number=number, line=line)
        if not is_first and kind == LAST_TYPE and not is_last:
            raise TSVError(phase, f"{LAST_TYPE} may only be the last boundary",
                           line_number=number, line=line)
        if not is_first and kind != LAST_TYPE and kind not in INNER_TYPES:
            allowed = ", ".join(sorted(INNER_TYPES | {LAST_TYPE}))
            raise TSVError(phase, f"boundary_type must be one of {allowed}, got {kind!r}",
                           line_number=number, line=line)
        if boundaries and position <= boundaries[-1].position:
            if not (kind == LAST_TYPE and position == boundaries[-1].position):
                raise TSVError(phase, f"positions must be ascending ({position} follows "
                               f"{boundaries[-1].position})", line_number=number, line=line)
        boundaries.append(BoundaryRow(position, kind, justification, number, line))
    if len(boundaries) < 2 or boundaries[-1].boundary_type != LAST_TYPE:
        number, line, _ = rows[-1]
        raise TSVError(phase, f"the last boundary must be {LAST_TYPE}",
                       line_number=number, line=line)
    return boundaries


def parse_metadata(text: str, *, phase: str = "chunk_metadata") -> MetadataRow:
    """Phase 3: exactly one line ``chapter section subsection summary``."""
    rows = _rows(phase, text, METADATA_COLUMNS)
    if len(rows) != 1:
        number, line, _ = rows[1]
        raise TSVError(phase, "expected a single line of metadata", line_number=number, line=line)
    number, line, (chapter, section, subsection, summary) = rows[0]
    return MetadataRow(chapter, section, None if subsection in ("", NONE) else subsection, summary)


def _one_paragraph(phase: str, text: str, limits: tuple[int, int]) -> str:
    answer = check_answer(phase, text)
    lines = [line for line in answer.splitlines() if line.strip()]
    if len(lines) > 1:
        raise TSVError(phase, "expected a single paragraph", line_number=2, line=lines[1])
    low, high = limits
    if not low <= len(answer) <= high:
        raise TSVError(phase, f"expected {low}-{high} characters, got {len(answer)}",
                       line_number=1, line=answer)
    return answer


def parse_prefix(text: str, *, phase: str = "contextual_prefix") -> str:
    """Phase 3b: one sentence starting "This chunk is from", 20-300 characters."""
    prefix = _one_paragraph(phase, text, PREFIX_CHARS)
    if not prefix.startswith(PREFIX_START):
        raise TSVError(phase, f"the prefix must start with {PREFIX_START!r}",
                       line_number=1, line=prefix)
    return prefix


def parse_table_summary(text: str, *, phase: str = "table_summary") -> str:
    """Table summary: plain prose, not a copy of the table."""
    summary = _one_paragraph(phase, text, TABLE_SUMMARY_CHARS)
    if summary.lstrip().startswith("|"):
        raise TSVError(phase, "the summary copies the table instead of describing it",
                       line_number=1, line=summary)
    return summary

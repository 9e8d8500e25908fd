"""What every phase's answer is checked for first, and the TSV line reader the phases share.

An answer is checked for the common mistakes (empty, a markdown fence, a "Here is" preamble);
then each data line for its column count. Each phase's own parser (in :mod:`core.llm.phases`)
checks the values, order and first/last rules. A failure is a :class:`TSVError` naming the phase
by its label, the line number and the line. Blank lines are skipped and a line repeating the
column header is ignored; nothing else is forgiven.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from core.llm.client import LLMError

Mode = Literal["anchors", "offsets"]  # how the model names positions: block anchors or offsets


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
class Line:
    """One data line of a TSV answer, split into stripped cells."""

    number: int
    text: str
    cells: list[str]


def check_answer(label: str, text: str) -> str:
    """The stripped answer, or a TSVError for the mistakes every phase rejects."""
    stripped = (text or "").strip()
    if not stripped:
        raise TSVError(label, "the model returned an empty answer")
    first = stripped.splitlines()[0]
    if stripped.startswith("```"):
        raise TSVError(
            label, "the answer is a markdown code block, expected plain output",
            line_number=1, line=first,
        )
    if stripped.lower().startswith(("here is", "here are", "here's")):
        raise TSVError(
            label, "the answer starts with a preamble, expected the data only",
            line_number=1, line=first,
        )
    return stripped


def tsv_lines(label: str, text: str, columns: tuple[str, ...]) -> list[Line]:
    """The data lines of a TSV answer, each with exactly ``len(columns)`` cells."""
    lines = []
    header = [c.lower() for c in columns]
    for number, line in enumerate(check_answer(label, text).splitlines(), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        cells = line.split("\t")
        if [c.strip().lower() for c in cells] == header:
            continue
        if len(cells) != len(columns):
            raise TSVError(
                label,
                f"expected {len(columns)} tab-separated columns "
                f"({' | '.join(columns)}), got {len(cells)}",
                line_number=number, line=line,
            )
        lines.append(Line(number, line, [c.strip() for c in cells]))
    if not lines:
        raise TSVError(label, "the answer holds no data lines")
    return lines


def integer(label: str, value: str, column: str, line: Line) -> int:
    """A non-negative integer cell."""
    try:
        result = int(value)
    except ValueError:
        raise TSVError.on(label, f"{column} must be an integer, got {value!r}", line) from None
    if result < 0:
        raise TSVError.on(label, f"{column} must not be negative", line)
    return result


def one_paragraph(label: str, text: str, limits: tuple[int, int]) -> str:
    """An answer of one paragraph whose length lies within ``limits`` (characters)."""
    answer = check_answer(label, text)
    lines = [line for line in answer.splitlines() if line.strip()]
    if len(lines) > 1:
        raise TSVError(label, "expected a single paragraph", line_number=2, line=lines[1])
    low, high = limits
    if not low <= len(answer) <= high:
        raise TSVError(label, f"expected {low}-{high} characters, got {len(answer)}",
                       line_number=1, line=answer)
    return answer

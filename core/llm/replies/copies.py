"""Copy detection: an answer must describe the text it was asked about, not repeat the
template's EXAMPLE OUTPUT nor leave one of the example's ``<...>`` fields in place."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.llm.errors import TSVError
from core.llm.replies.checks import INTEGER, folded
from core.llm.replies.repairs import Repairs, reject_or_repair

_EXAMPLE = re.compile(r"EXAMPLE OUTPUT[^\n]*:[ \t]*\n(.+?)(?:\n[ \t]*\n|\Z)", re.DOTALL)
_FIELD = re.compile(r"<[^<>\n]{2,120}>")  # a field of an example the model fills in
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
    return tuple(int(cell) for cell in _cells_of(line) if INTEGER.fullmatch(cell.strip()))


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
        """A free-text cell of ``line`` that equals one of the example's, or a ``<...>`` field
        of the example left in it, and is not in ``source`` (the text the model was asked
        about, folded)."""
        fields = {hole for example in self.lines for hole in _FIELD.findall(example)}
        for hole in _FIELD.findall(line):
            if hole in fields and folded(hole) not in source:
                return hole
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
    reject_or_repair(None if len(copies) == len(data) else repairs, "example_copy",
                     TSVError(label, f"{COPY_REASON} ({cell!r})", line_number=number, line=line),
                     f"{len(copies)} line(s) copied, first {cell!r}")
    blanked = {n for n, _, _ in copies}
    return "\n".join("" if n in blanked else line for n, line in enumerate(lines, 1))



_WORD = re.compile(r"\w+")
REPEATS_AT = 0.5  # an answer half of which is one verbatim run of its chunk repeats the chunk


def repeated_share(answer: str, source: str) -> float:
    """The share of ``answer``'s words covered by its longest run of words that ``source``
    holds verbatim (case aside): near 1 for a summary that is the chunk's opening sentence
    copied, low for one in the model's own words. 0 for an answer without words."""
    said = [w.casefold() for w in _WORD.findall(answer)]
    if not said:
        return 0.0
    held = f" {' '.join(w.casefold() for w in _WORD.findall(source))} "
    longest = 0
    for i in range(len(said)):
        j = i + longest + 1  # only a run longer than the longest so far matters
        while j <= len(said) and f" {' '.join(said[i:j])} " in held:
            longest, j = j - i, j + 1
    return longest / len(said)

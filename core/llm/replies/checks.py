"""What every phase's answer is checked for first: empty, far too long, a markdown fence, a
"Here is" preamble; and the checks of single values and one-paragraph answers the phases share.
Strict parsing rejects these mistakes; tolerant parsing drops fences and preambles, recorded."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeVar

from core.llm.errors import TSVError
from core.llm.replies.repairs import Repairs

PREAMBLES = ("here is", "here are", "here's")
INTEGER = re.compile(r"[-+]?\d+")
T = TypeVar("T")


def folded(text: str) -> str:
    """``text`` compared case- and whitespace-insensitively."""
    return " ".join(text.split()).casefold()



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


def whole_words(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at its last full sentence (else its last
    whole word): never a word cut in half. Shorter text is kept as it is."""
    if len(text) <= limit:
        return text
    text = text[: limit + 1]
    sentence = text.rfind(". ")
    return text[: sentence + 1] if sentence > 0 else text[:limit].rsplit(" ", 1)[0]


def one_paragraph(label: str, text: str, limits: tuple[int, int],
                  repairs: Repairs | None = None, *, shorten: bool = False) -> str:
    """An answer of one paragraph whose length lies within ``limits`` (characters). With
    ``shorten``, tolerant parsing cuts one that runs long back to whole sentences (recorded)
    rather than losing it: a small model asked for a sentence often goes on quoting the text."""
    answer = check_answer(label, text, repairs)
    lines = [line for line in answer.splitlines() if line.strip()]
    if len(lines) > 1:
        raise TSVError(label, "expected a single paragraph", line_number=2, line=lines[1])
    low, high = limits
    if len(answer) > high and shorten and repairs is not None:
        repairs.add("shortened", label, 1, answer, f"{len(answer)} characters, at most {high}")
        answer = whole_words(answer, high)
    if not low <= len(answer) <= high:
        raise TSVError(label, f"expected {low}-{high} characters, got {len(answer)}",
                       line_number=1, line=answer)
    return answer

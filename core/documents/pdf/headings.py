"""Which lines are headings, and at what level.

A line is a heading when it stands out from the body text: set clearly larger than the body
size, or entirely bold, or numbered and in capitals, and short. The body size is the size that
carries most characters; a style that carries a large share of the text is body text too.
Levels come from the styles (larger first, then bold) and, between headings of one style, from
their numbering depth ("2" above "2.1" above "2.1.3"), so numbering gives the level when the
fonts do not. A number alone on its line ("1", "Chapter 2", "IV.") is the start of the heading
that follows it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from core.documents.pdf.layout import Line

SIZE_STEP = 0.9  # points above the body size before a size counts as larger
MAX_HEADING_CHARS = 160
MAX_STYLE_SHARE = 0.3  # a heading style carries at most this share of the characters
NUMBERING = re.compile(
    r"^(?:(?:chapter|chapitre|kapitel|part|partie|section|appendix|annex|annexe|article)\s+"
    r"(?P<word>[0-9]+|[IVXLC]+|[A-Z])\.?"
    r"|(?P<dotted>[0-9]{1,2}(?:\.[0-9]{1,2}){0,5})(?:\.|\)|(?=\s))"
    r"|(?P<roman>[IVXLC]{1,6})\.|(?P<letter>[A-Z])\.(?=\s))(?:\s+|$)",
    re.IGNORECASE,
)
NUMBER_ONLY = re.compile(
    r"^(?:(?:chapter|chapitre|kapitel|part|partie|section|appendix|annex|annexe|article)\s+)?"
    r"(?:[0-9]{1,2}(?:\.[0-9]{1,2}){0,5}|[IVXLC]{1,6}|[A-Z])\.?$", re.IGNORECASE)


@dataclass(frozen=True)
class Style:
    size: float
    bold: bool


def numbering_depth(text: str) -> int | None:
    """How deep a heading's numbering goes ("3" 1, "3.2.1" 3, "Chapter 4" 1), None without."""
    match = NUMBERING.match(text)
    if match is None:
        return None
    if match.group("dotted"):
        return match.group("dotted").count(".") + 1
    return 1 if match.group("word") else None


def style_of(line: Line) -> Style:
    return Style(line.size, line.bold >= 0.9)


@dataclass
class HeadingRules:
    """The body size of a document and the line styles that mark its headings."""

    body: float
    styles: frozenset[Style]

    @classmethod
    def learn(cls, lines: list[Line]) -> HeadingRules:
        weight: Counter[Style] = Counter()
        for line in lines:
            weight[style_of(line)] += len(line.text)
        sizes: Counter[float] = Counter()
        for style, chars in weight.items():
            sizes[style.size] += chars
        total = sum(weight.values()) or 1
        body = sizes.most_common(1)[0][0] if sizes else 0.0
        styles = frozenset(
            s for s, chars in weight.items()
            if chars / total <= MAX_STYLE_SHARE
            and (s.size >= body + SIZE_STEP or (s.bold and s.size >= body - 0.5))
            and sizes[s.size] / total <= MAX_STYLE_SHARE + (0 if s.size != body else 1))
        return cls(body, styles)

    def is_heading(self, line: Line) -> bool:
        text = line.text
        if len(text) > MAX_HEADING_CHARS or not any(c.isalpha() for c in text):
            return False
        if style_of(line) in self.styles:
            return True
        letters = [c for c in text if c.isalpha()]
        marked = any(mark in text.split(" ", 1)[0] for mark in ".)")  # "2." or "2.1", not "2"
        return (marked and numbering_depth(text) is not None and len(text) <= 80
                and all(c.isupper() for c in letters) and len(letters) >= 4)


def assign_levels(headings: list[tuple[Style, int | None]]) -> list[int]:
    """A level (1 = top) for each heading given its style and numbering depth."""
    ranked = sorted({s for s, _ in headings}, key=lambda s: (-s.size, not s.bold))
    rank = {s: i for i, s in enumerate(ranked)}
    least_depth: dict[Style, int] = {}
    for style, depth in headings:
        if depth is not None:
            least_depth[style] = min(least_depth.get(style, depth), depth)
    raw = [(rank[s], (d - least_depth[s]) if d is not None else 0) for s, d in headings]
    order = {key: i + 1 for i, key in enumerate(sorted(set(raw)))}
    return [min(order[key], 6) for key in raw]

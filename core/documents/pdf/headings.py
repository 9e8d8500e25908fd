"""Which lines are headings, and at what level.

A line is a heading when it stands out from the body text: set clearly larger than every size
running text is set in, or entirely bold, or numbered and in capitals (or numbered and a little
larger), and short; and not when it reads as a sentence (long, ending with a full stop,
unnumbered), is a row of far-apart fields, or is code (a monospaced line, a statement ending with
";"). The body size is the size that carries most
characters; a style that carries a large share of the text is body text too. Levels: see
:func:`assign_levels`. A number alone on its line ("1", "Chapter 2", "IV.") is the start of the
heading that follows it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from core.documents.pdf.layout import Line

SIZE_STEP = 0.9  # points above the running text's size: a numbered line set this large is a heading
PLAIN_STEP = 1.5  # points above every running-text size before a regular line is a heading
BODY_SHARE = 0.15  # a regular style carrying this share of the characters is running text
SIZE_MERGE = 0.6  # heading sizes this close (points) are one size
SENTENCE = re.compile(r"[.!?]['\"”’)]*$")
SENTENCE_WORDS = 8  # an unnumbered line of this many words ending with "." is a sentence
FIELD_GAP = 3.0  # font sizes: a wider gap between two words of a line separates two fields
MAX_HEADING_CHARS = 160
MAX_STYLE_SHARE = 0.3  # a heading style carries at most this share of the characters
NUMBERING = re.compile(
    r"^(?:(?:chapter|chapitre|kapitel|part|partie|section|appendix|annex|annexe|article)\s+"
    r"(?P<word>[0-9]{1,3}|[IVXLC]+|[A-Z])\.?"
    r"|(?P<dotted>[0-9]{1,2}(?:\.[0-9]{1,2}){0,5})(?:\.|\)|(?=\s))"
    r"|(?P<roman>[IVXLC]{1,6})\.|(?P<letter>[A-Z])\.(?=\s))(?:\s+|$)",
    re.IGNORECASE,
)
CODE_END = re.compile(r";\s*$")
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


def outline_depth(text: str) -> int | None:
    """The depth of a heading's decimal numbering ("3" 1, "3.2.1" 3), which sets its level;
    "Chapter 4" is a heading of its own style, not a place in the decimal outline."""
    match = NUMBERING.match(text)
    return match.group("dotted").count(".") + 1 if match and match.group("dotted") else None


def reads_as_sentence(text: str) -> bool:
    """A long unnumbered line ending with a full stop is a sentence set in bold or large type
    (a notice, an emphasised remark), not a heading."""
    return (numbering_depth(text) is None and not NUMBER_ONLY.match(text.split(" ", 1)[0])
            and SENTENCE.search(text) is not None and len(text.split()) >= SENTENCE_WORDS)


def _spread(line: Line) -> bool:
    """Words set far apart on one line (a form's label and value, a letterhead's address and
    date): a row of fields, not a heading. The gap after a leading number does not count."""
    words = line.words[1:] if numbering_depth(line.text) is not None else line.words
    return any(b.x0 - a.x1 > FIELD_GAP * line.size
               for a, b in zip(words, words[1:], strict=False))


def style_of(line: Line) -> Style:
    return Style(line.size, line.bold >= 0.9)


@dataclass
class HeadingRules:
    """The body size of a document and the line styles that mark its headings."""

    body: float
    styles: frozenset[Style]
    plain: float = 0.0  # the largest size running text is set in

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
        # a regular (not bold) heading stands clear of every size running text is set in
        plain = max([body] + [s.size for s, chars in weight.items()
                              if not s.bold and chars / total >= BODY_SHARE])
        styles = frozenset(
            s for s, chars in weight.items()
            if chars / total <= MAX_STYLE_SHARE
            and (s.size >= plain + PLAIN_STEP or (s.bold and s.size >= body - 0.5))
            and sizes[s.size] / total <= MAX_STYLE_SHARE + (0 if s.size != body else 1))
        return cls(body, styles, plain)

    def is_heading(self, line: Line) -> bool:
        text = line.text
        if len(text) > MAX_HEADING_CHARS or not any(c.isalpha() for c in text):
            return False
        if all(w.mono for w in line.words) or CODE_END.search(text):
            return False  # code and commands (monospaced, or a statement ending with ";")
        if _spread(line):
            return False
        if style_of(line) in self.styles:
            return True
        letters = [c for c in text if c.isalpha()]
        marked = any(mark in text.split(" ", 1)[0] for mark in ".)")  # "2." or "2.1", not "2"
        if not marked or NUMBERING.match(text) is None or len(text) > 80 or len(letters) < 4:
            return False
        # numbered and in capitals, or numbered and set a little larger than running text
        return all(c.isupper() for c in letters) or line.size >= self.plain + SIZE_STEP


def _size_groups(sizes: set[float]) -> dict[float, int]:
    """Font sizes grouped where they lie within :data:`SIZE_MERGE` of the group's largest (11
    and 11.5 are one size of heading); group 0 is the largest."""
    group: dict[float, int] = {}
    first: float | None = None  # the largest size of the group being filled
    for size in sorted(sizes, reverse=True):
        if first is None or first - size > SIZE_MERGE:
            first = size
            group[size] = max(group.values(), default=-1) + 1
        else:
            group[size] = group[first]
    return group


def assign_levels(headings: list[tuple[Style, int | None]]) -> list[int]:
    """A level (1 = top) for each heading given its style and numbering depth.

    Styles rank by size (close sizes merged), then bold before regular. Numbered headings take
    their level from their numbering: the shallowest numbering sits at the rank of the style
    most of those headings have, and each step deeper ("2" to "2.1") is one level down, whatever
    the fonts say. Levels are dense: the ranks in use become 1, 2, 3... so the largest heading
    is level 1 and no level is skipped (at most 6).
    """
    if not headings:
        return []
    groups = _size_groups({s.size for s, _ in headings})
    ranked = sorted({(groups[s.size], not s.bold) for s, _ in headings})
    rank = {key: i for i, key in enumerate(ranked)}

    def style_rank(style: Style) -> int:
        return rank[(groups[style.size], not style.bold)]

    depths = [d for _, d in headings if d is not None]
    raw = [style_rank(s) for s, _ in headings]
    if depths:
        top = min(depths)
        base = Counter(style_rank(s) for s, d in headings if d == top).most_common(1)[0][0]
        raw = [base + depth - top if depth is not None else r
               for r, (_, depth) in zip(raw, headings, strict=True)]
    used = sorted(set(raw))
    dense = {value: i + 1 for i, value in enumerate(used)}
    return [min(dense[value], 6) for value in raw]

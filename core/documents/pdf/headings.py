"""Which lines are headings (their levels: :mod:`.outline`).

A line is a heading when it stands out from the body text: set clearly larger than every size
running text is set in, or entirely bold, or numbered and in capitals (or numbered and a little
larger), and short; and not when it reads as a sentence (long, ending with a full stop,
unnumbered), is a row of far-apart fields, or is code (a monospaced line, by its font's name or
its fixed pitch; a statement ending with ";"; a command's syntax with a placeholder "<name>",
braces or a call "f()"). The body size is the size that carries most characters; a style that
carries a large share of the text is body text too. A number alone on its line ("1", "Chapter
2", "IV.") is the start of the heading that follows it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from core.documents.pdf.layout import Line
from core.text.sentences import ends_sentence

SIZE_STEP = 0.9  # points above the running text's size: a numbered line set this large is a heading
PLAIN_STEP = 1.5  # points above every running-text size before a regular line is a heading
BODY_SHARE = 0.15  # a regular style carrying this share of the characters is running text
SIZE_MERGE = 0.6  # heading sizes this close (points) are one size
SENTENCE_WORDS = 8  # an unnumbered line of this many words ending with "." is a sentence
FIELD_GAP = 3.0  # font sizes: a wider gap between two words of a line separates two fields
MAX_HEADING_CHARS = 160
MAX_STYLE_SHARE = 0.3  # a heading style carries at most this share of the characters
NUMBERING = re.compile(
    r"^(?:(?P<kind>chapter|chapitre|kapitel|part|partie|section|appendix|annex|annexe|article)\s+"
    r"(?P<word>[0-9]{1,3}|[IVXLC]+|[A-Z])\.?"
    r"|(?P<dotted>[0-9]{1,2}(?:\.[0-9]{1,2}){0,5})(?:\.|\)|(?=\s))"
    r"|(?P<roman>[IVXLC]{1,6})\.|(?P<letter>[A-Z])\.(?=\s))(?:\s+|$)",
    re.IGNORECASE,
)
CODE_END = re.compile(r";\s*$")
# a placeholder ("<table name>"), braces, a call ("run()"), a shell prompt: a command's syntax
CODE_MARKS = re.compile(r"<\w[^<>]*>|[{}]|\w\(\)|^[$#>]\s")
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


def reads_as_sentence(text: str) -> bool:
    """A long unnumbered line ending with a full stop is a sentence set in bold or large type
    (a notice, an emphasised remark), not a heading."""
    return (numbering_depth(text) is None and not NUMBER_ONLY.match(text.split(" ", 1)[0])
            and ends_sentence(text) and len(text.split()) >= SENTENCE_WORDS)


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
        if all(w.mono for w in line.words) or CODE_END.search(text) or CODE_MARKS.search(text):
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

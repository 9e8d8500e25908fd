"""Reading order on one page: words into lines, lines into column regions.

The page is cut recursively (an XY cut): a region is split into columns at full-height vertical
gaps when every column it would make reads like prose (several lines of running text, no wide
gaps inside its lines, widths alike); otherwise it is split at its widest full-width horizontal
gap. Leaves are read top to bottom, columns left to right (right to left where most of the
region's letters are right-to-left). A table's cells never pass the
prose test, so a table is never read column by column.

Invariants: every word given is in exactly one line; lines of one region never mix columns;
``Region.column`` names the column a region lies in, so paragraphs can be followed across
regions of the same column.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from core.documents.pdf.chars import Word, joined_word
from core.documents.pdf.direction import (
    combining,
    logical,
    right_to_left,
    right_to_left_line,
)

MIN_PROSE_LINES = 3
MIN_PROSE_CHARS = 12  # median characters per line of a column of running text
INNER_GAP = 1.2  # a gap this many font sizes wide inside a line is not a word space
WORD_SPACE_SHARE = 0.5  # of a word space, beyond the line's tracking: a narrower gap is inside
# of a word space, beyond the tracking, before a closing mark: a wider gap is a thin space
# set on purpose (French "ionogramme :")
PUNCTUATION_SHARE = 0.2
DEFAULT_SPACE = 0.25  # font sizes: the word space of a font that has none of its own
MAX_TRACKING = 0.5  # font sizes: letters set further apart are not one word (a spaced label)
CLOSING = ".,;:!?)]’”"  # punctuation that closes the word before it


@dataclass(slots=True)
class Line:
    words: list[Word]
    page: int
    column: str = ""  # the column (path of vertical cuts) the line was read in
    note: bool = False  # a footnote (:mod:`.notes`)

    @property
    def text(self) -> str:
        return join_words(self.words)

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def size(self) -> float:
        """The font size carrying most of the line's characters (to half a point)."""
        weight: dict[float, int] = {}
        for w in self.words:
            key = round(w.size * 2) / 2
            weight[key] = weight.get(key, 0) + w.chars
        return max(weight, key=lambda k: weight[k])

    @property
    def bold(self) -> float:
        total = sum(w.chars for w in self.words) or 1
        return sum(w.bold * w.chars for w in self.words) / total


def unspaced(char: str) -> bool:
    """A character of a script written without spaces between words: Chinese ideographs,
    Japanese kana, their punctuation and full-width forms. Hangul is written with spaces."""
    return (("\u2e80" <= char <= "\u9fff" and not "\u3130" <= char <= "\u318f")
            or "\uf900" <= char <= "\ufaff" or "\U00020000" <= char <= "\U0003134f"
            or ("\uff00" <= char <= "\uffef" and not "\uffa0" <= char <= "\uffdc"))


def spaced_between(before: str, after: str) -> bool:
    """Whether two words (or lines) that meet are set apart by a space in the text: always,
    except between two characters of a script written without spaces."""
    return not (unspaced(before[-1]) and unspaced(after[0]))


def join_words(words: list[Word]) -> str:
    """The words of a line, given left to right, in reading order (right-to-left lines
    reordered, :func:`~core.documents.pdf.direction.logical`)."""
    out = ""
    for w in words:
        if out and spaced_between(out, w.text):
            out += " "
        out += w.text
    return logical(out)


def _tracking(words: list[Word]) -> float:
    """The usual gap between two letters of a word on this line (the producer's tracking or
    character spacing, near 0 in plain text): the median over the gaps inside its words (each
    word's usual gap, once per letter pair) and the gaps between its fragments."""
    weighted: list[tuple[float, int]] = [
        (w.letter_gap, w.chars - 1) for w in words if w.letter_gap is not None and w.chars > 1]
    weighted += [(b.x0 - a.x1, 1) for a, b in zip(words, words[1:], strict=False)]
    weighted.sort()
    half = sum(n for _, n in weighted) / 2
    seen = 0
    for gap, n in weighted:
        seen += n
        if seen >= half:
            return gap
    return 0.0


def _word_space(words: list[Word], tracking: float) -> float:
    """The line's word space beyond its tracking, in points: the font's own (or
    :data:`DEFAULT_SPACE`), or the line's usual gap between its words where that is wider
    (justified text spreads its words apart, and a shaped script's glyph boxes leave room
    around the letters): the lower quartile of the gaps already too wide to be inside a word
    (the gaps between a table's cells are wider still)."""
    font = max(w.space for w in words) or DEFAULT_SPACE * statistics.median(w.size for w in words)
    wide = sorted(gap for a, b in zip(words, words[1:], strict=False)
                  if (gap := b.x0 - a.x1 - tracking) >= WORD_SPACE_SHARE * font)
    return max(font, wide[len(wide) // 4]) if wide else font


def _edge(text: str, last: bool) -> str:
    """The letter at the end (or the start) of a word's text, its combining marks passed."""
    return next((c for c in (reversed(text) if last else text) if not combining(c)), " ")


def rejoin_spaced(words: list[Word]) -> list[Word]:
    """The words of one line (left to right), with words whose letters the producer placed one
    by one (tracking, kerning, justified text: "S p e c i f i e s", "ini t ially") joined
    again. A word gap is judged against the line's own letter spacing and word spacing
    (:func:`_word_space`): two fragments of the same size on one baseline, letters of one
    direction where they meet (or a closing punctuation mark after a letter), with no drawn
    blank between them, are one word when their gap is under the line's tracking plus
    :data:`WORD_SPACE_SHARE` of its word space (:data:`PUNCTUATION_SHARE` before a closing
    mark) (a blank pdfium inferred from the gap alone does not count: it is the gap that is
    judged). A right-to-left letter drawn in a shape that joins the letter after it (an Arabic
    initial or medial form) is joined to the fragment on its left within a font size, whatever
    the gap; a Latin word beside an Arabic one is never joined to it."""
    if len(words) < 2:
        return words
    tracking = min(max(_tracking(words), 0.0), MAX_TRACKING * words[0].size)
    space = _word_space(words, tracking)
    out = [[words[0]]]
    for word in words[1:]:
        last = out[-1][-1]
        before, after = _edge(last.text, last=True), _edge(word.text, last=False)
        gap = word.x0 - last.x1
        if (not last.spaced and before.isalpha()
                and ((after.isalpha() and right_to_left(before) == right_to_left(after))
                     or not word.text.strip(CLOSING))
                and abs(last.size - word.size) < 0.1 and word.upright
                and abs(last.bottom - word.bottom) < 0.1 * word.size
                and 0 <= gap < (word.size if word.joins_left and right_to_left(before) else
                                tracking + (WORD_SPACE_SHARE if after.isalpha()
                                            else PUNCTUATION_SHARE) * space)):
            out[-1].append(word)
        else:
            out.append([word])
    return [joined_word(part) if len(part) > 1 else part[0] for part in out]


def group_lines(words: list[Word], page: int, column: str = "") -> list[Line]:
    """Words sharing a baseline band, left to right; lines top to bottom."""
    lines: list[tuple[float, float, list[Word]]] = []  # top, bottom, words
    for word in sorted(words, key=lambda w: (w.top, w.x0)):
        if lines:
            top, bottom, members = lines[-1]
            overlap = min(bottom, word.bottom) - max(top, word.top)
            if overlap >= 0.5 * min(word.height, bottom - top):
                members.append(word)
                lines[-1] = (min(top, word.top), max(bottom, word.bottom), members)
                continue
        lines.append((word.top, word.bottom, [word]))
    out = []
    for _, _, found in lines:
        members = rejoin_spaced(sorted(found, key=lambda w: w.x0))
        start = 0
        for i in range(1, len(members)):
            a, b = members[i - 1], members[i]
            if (b.x0 - a.x1 > 2 * max(a.size, b.size)
                    and max(a.size, b.size) > 1.25 * min(a.size, b.size)):
                out.append(Line(members[start:i], page, column))  # a title beside small print
                start = i
        out.append(Line(members[start:], page, column))
    return out


def _gaps(spans: list[tuple[float, float]], min_width: float) -> list[tuple[float, float]]:
    """Empty stretches at least ``min_width`` wide between the covered ``spans``."""
    gaps = []
    ordered = sorted(spans)
    reach = ordered[0][1]
    for start, end in ordered[1:]:
        if start - reach >= min_width:
            gaps.append((reach, start))
        reach = max(reach, end)
    return gaps


def _reads_as_prose(words: list[Word]) -> bool:
    lines = group_lines(words, 0)
    if len(lines) < MIN_PROSE_LINES:
        return False
    chars = statistics.median(len(line.text) for line in lines)
    wide_gaps = 0
    for line in lines:
        size = line.size
        wide_gaps += any(b.x0 - a.x1 > INNER_GAP * size
                         for a, b in zip(line.words, line.words[1:], strict=False))
    return chars >= MIN_PROSE_CHARS and wide_gaps <= 0.2 * len(lines)


def _column_cut(words: list[Word]) -> tuple[list[list[Word]], float] | None:
    """The region's columns and its narrowest gutter, when it has full-height gaps and every
    column reads as prose."""
    size = statistics.median(w.size for w in words)
    gaps = _gaps([(w.x0, w.x1) for w in words], max(0.9 * size, 4.0))
    if not gaps:
        return None
    columns: list[list[Word]] = [[] for _ in range(len(gaps) + 1)]
    for w in words:
        columns[sum(1 for g in gaps if w.x0 >= g[1])].append(w)
    widths = [max(w.x1 for w in c) - min(w.x0 for w in c) for c in columns]
    if min(widths) < 0.25 * max(widths) or not all(_reads_as_prose(c) for c in columns):
        return None
    return columns, min(b - a for a, b in gaps)


def _split_rows(words: list[Word], gap: tuple[float, float]) -> tuple[list[Word], list[Word]]:
    low = gap[0] + 0.001
    return [w for w in words if w.bottom <= low], [w for w in words if w.bottom > low]


@dataclass
class Layout:
    """A page's lines in reading order and the most columns read side by side."""

    lines: list[Line] = field(default_factory=list)
    columns: int = 1


def _cut(words: list[Word], column: str, page: int, layout: Layout) -> None:
    if not words:
        return
    cut = _column_cut(words) if len(words) > 2 * MIN_PROSE_LINES else None
    gaps = _gaps([(w.top, w.bottom) for w in words], 0.01)
    widest = max(gaps, key=lambda g: g[1] - g[0]) if gaps else None
    if cut and widest and widest[1] - widest[0] > cut[1]:
        # a wide band across the page (a title above columns) is read first, unless the
        # columns simply go on below it
        above, below = _split_rows(words, widest)
        if not (_column_cut(above) if len(above) > 2 * MIN_PROSE_LINES else None) or not (
                _column_cut(below) if len(below) > 2 * MIN_PROSE_LINES else None):
            cut = None
    if cut:
        layout.columns = max(layout.columns, len(cut[0]))
        parts = list(enumerate(cut[0]))
        if right_to_left_line(" ".join(w.text for w in words)):
            parts.reverse()  # right-to-left columns are read from the right
        for i, part in parts:
            _cut(part, f"{column}/{i}", page, layout)
        return
    if widest is None:
        layout.lines += group_lines(words, page, column)
        return
    above, below = _split_rows(words, widest)
    _cut(above, column, page, layout)
    _cut(below, column, page, layout)


def rotated_lines(words: list[Word], page: int) -> list[Line]:
    """The page's rotated words as lines: words sharing a band across the page, read down the
    page (or up it, for text that runs upwards); lines left to right."""
    bands: list[tuple[float, float, list[Word]]] = []  # x0, x1, words
    for word in sorted((w for w in words if not w.upright), key=lambda w: (w.upward, w.x0)):
        if bands:
            x0, x1, members = bands[-1]
            overlap = min(x1, word.x1) - max(x0, word.x0)
            if members[0].upward == word.upward and overlap >= 0.5 * min(word.x1 - word.x0,
                                                                           x1 - x0):
                members.append(word)
                bands[-1] = (min(x0, word.x0), max(x1, word.x1), members)
                continue
        bands.append((word.x0, word.x1, [word]))
    lines = [Line(sorted(members, key=lambda w: -w.bottom if w.upward else w.top), page,
                  "rotated") for _, _, members in bands]
    return sorted(lines, key=lambda line: line.x0)


def read_page_lines(words: list[Word], page: int) -> Layout:
    """Lines of the page in reading order (rotated words last, as lines of their own)."""
    layout = Layout()
    _cut([w for w in words if w.upright], "", page, layout)
    layout.lines += rotated_lines(words, page)
    return layout

"""Running headers, footers and page numbers: found across pages, taken out of the text.

A band is a full-width line of words near the top or bottom edge of a page (among the first or
last :data:`EDGE_BANDS` bands, within :data:`EDGE_SHARE` of the page height), or a line of
rotated text in a side margin, beside all of the page's upright text. A band is running when
its text with the numbers taken out recurs near the same edge on at least :func:`min_repeats`
pages and it is set in the smallest size those lines are set in (within :data:`SIZE_STEP`) — or
on two pages only, when it is the page's first or last line in small print, at an edge where
the first or last line is small print of that size on that many pages (a short chapter's
running header or footer, where each chapter names itself) — or when it is just a page number
("12", "Page 3 of 10", "- 4 -", "iv") set no larger than :data:`PAGE_NUMBER_SIZE` times the
page's running text, or, in a document of one page, when it is the first line, set smaller than
the running text and not bold. So a chapter's title at the top of its first page stays, though
the running headers of its other pages repeat its words in small print, and so does a chapter
number set huge above it. Invariant: only words of such bands are removed; they are kept as
page metadata.

A line-number gutter (court transcripts, pleadings, numbered legislation) is a column of small
integers at the page's left edge, one per text line, counting up by one, with all of the
page's text between its first and last number to its right: its numbers are taken out of the
text too, and kept as page metadata.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from core.documents.pdf.chars import Word
from core.documents.pdf.layout import group_lines, join_words, rotated_lines

EDGE_SHARE = 0.14
EDGE_BANDS = 2
PAGE_NUMBER = re.compile(
    r"^(page\s+|p\.\s*|-\s*|–\s*)?([0-9]{1,5}|[ivxlcdm]{1,7})(\s*(of|/|sur|von)\s*[0-9]{1,5})?"
    r"(\s*-|\s*–)?$|^[0-9]{1,5}\s*\|\s*page$|^page\s*\|\s*[0-9]{1,5}$", re.IGNORECASE)
NUMBERS = re.compile(r"\d+")
LINE_NUMBER = re.compile(r"^[0-9]{1,3}$")
MIN_GUTTER_LINES = 5
LONE_HEADER_STEP = 1.0  # points below the running text's size: a lone page's header line
SIZE_STEP = 1.0  # points: a line of running words this much larger than the smallest is a title
SMALL_PRINT_STEP = 1.0  # points below the page's running text: an edge line in small print
PAGE_NUMBER_SIZE = 1.5  # a number set larger than this many times the running text is no folio


def _key(text: str) -> str:
    return " ".join(NUMBERS.sub("", text.lower()).split())


@dataclass
class _Band:
    words: list[Word]
    edge: str  # "top", "bottom" or "side"
    outer: bool = False  # the first line of the page, or its last

    @property
    def text(self) -> str:
        return join_words(self.words)  # in reading order

    @property
    def size(self) -> float:
        return round(max(w.size for w in self.words) * 2) / 2


def _edge_bands(words: list[Word], height: float) -> list[_Band]:
    lines = group_lines([w for w in words if w.upright], 0)
    bands = []
    for line in lines[:EDGE_BANDS]:
        if line.bottom <= height * EDGE_SHARE:
            bands.append(_Band(line.words, "top", line is lines[0]))
    for line in lines[-EDGE_BANDS:]:
        if line.top >= height * (1 - EDGE_SHARE) and all(b.words is not line.words for b in bands):
            bands.append(_Band(line.words, "bottom", line is lines[-1]))
    upright = [w for w in words if w.upright]
    left = min((w.x0 for w in upright), default=0.0)
    right = max((w.x1 for w in upright), default=0.0)
    for line in rotated_lines(words, 0):
        if line.x1 <= left or line.x0 >= right:
            bands.append(_Band(line.words, "side"))
    return bands


def min_repeats(pages: int) -> int:
    """On how many pages a band must recur to count as running (two for short documents)."""
    return 2 if pages <= 6 else 3


def _body_size(words: list[Word]) -> float:
    """The size that carries most of the page's characters (to half a point)."""
    weight: Counter[float] = Counter()
    for word in words:
        weight[round(word.size * 2) / 2] += word.chars
    return weight.most_common(1)[0][0] if weight else 0.0


def _lone_header(band: _Band, bands: list[_Band], body: float) -> bool:
    """On a document of one page, where nothing can recur: its first line, at the top edge,
    set clearly smaller than the running text (``body``) and not bold (a paper's "Published
    as a conference paper at …", a journal's issue line) is a running header."""
    if band.edge != "top" or band is not bands[0] or len(_key(band.text)) < 8:
        return False
    return (max(w.size for w in band.words) <= body - LONE_HEADER_STEP
            and all(w.bold < 0.5 for w in band.words))


def find_running(pages: list[tuple[list[Word], float]]) -> list[list[str]]:
    """For each page (its words and height), the running lines; removes their words in place."""
    bands = [_edge_bands(words, height) for words, height in pages]
    bodies = [_body_size(words) for words, _ in pages]
    seen: Counter[tuple[str, str]] = Counter()
    smallest: dict[tuple[str, str], float] = {}
    small_print: Counter[tuple[str, float]] = Counter()  # pages with small print at an edge
    for page_bands, body in zip(bands, bodies, strict=True):
        for edge_key in {(b.edge, _key(b.text)) for b in page_bands}:
            seen[edge_key] += 1
        for band in page_bands:
            edge_key = (band.edge, _key(band.text))
            smallest[edge_key] = min(smallest.get(edge_key, band.size), band.size)
        small_print.update({(b.edge, b.size) for b in page_bands
                            if b.outer and b.size <= body - SMALL_PRINT_STEP})
    need = min_repeats(len(pages))
    removed: list[list[str]] = []
    for (words, _), page_bands, body in zip(pages, bands, bodies, strict=True):
        gone: list[str] = []
        drop: set[int] = set()
        for band in page_bands:
            key = (band.edge, _key(band.text))
            folio = PAGE_NUMBER.match(band.text.strip()) and band.size <= PAGE_NUMBER_SIZE * body
            repeated = len(key[1]) >= 3 and band.size <= smallest[key] + SIZE_STEP and (
                seen[key] >= need or (seen[key] >= 2 and band.outer
                                      and band.size <= body - SMALL_PRINT_STEP
                                      and small_print[(band.edge, band.size)] >= need))
            if folio or repeated or (
                    len(pages) == 1 and _lone_header(band, page_bands, body)):
                gone.append(band.text)
                drop.update(id(w) for w in band.words)
        if drop:
            words[:] = [w for w in words if id(w) not in drop]
        removed.append(gone)
    return removed


def line_number_gutter(words: list[Word]) -> tuple[list[int], list[Word]]:
    """The line numbers printed in the page's left margin (empty when it has none) and the
    words without them."""
    lines = group_lines([w for w in words if w.upright], 0)
    starts = [line.words[0] for line in lines if LINE_NUMBER.match(line.words[0].text)]
    if len(starts) < MIN_GUTTER_LINES:
        return [], words
    # numbers set flush right (1..9 then 10..) share their right edge
    size = sorted(w.size for w in starts)[len(starts) // 2]
    column = max(([w for w in starts if abs(w.x1 - anchor.x1) <= 0.6 * size] for anchor in starts),
                 key=len)
    column.sort(key=lambda w: w.top)
    values = [int(w.text) for w in column]
    steps = sum(1 for a, b in zip(values, values[1:], strict=False) if b == a + 1)
    if len(column) < MIN_GUTTER_LINES or steps < 0.8 * (len(column) - 1):
        return [], words
    gutter = {id(w) for w in column}
    edge = max(w.x1 for w in column) + 0.5 * size
    top, bottom = column[0].top, column[-1].bottom
    beside = [w for w in words if id(w) not in gutter and top <= (w.top + w.bottom) / 2 <= bottom]
    if not beside or sum(1 for w in beside if w.x0 < edge) > 0.02 * len(beside):
        return [], words  # text reaches into the column: a numbered list or table, not a gutter
    return values, [w for w in words if id(w) not in gutter]

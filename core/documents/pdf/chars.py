"""Characters of one page, cleaned: unmappable glyphs recovered or dropped, overprints removed,
and grouped into words.

Invariants of what leaves this module:
- no character's text is a ``(cid:N)`` placeholder: pdfminer could not map the glyph to Unicode,
  so pdfium (which also reads the embedded font's own tables) is asked what the glyph at that
  spot is; a glyph neither can map is dropped, and counted;
- no two characters with the same text sit on top of each other (fake bold drawn twice with a
  small offset, shadow text): the first drawn is kept, the others are counted and dropped, and
  the kept one is marked bold when the copies were offset (that is how fake bold looks bold).
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CID = re.compile(r"^\(cid:\d+\)$")
BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|extrab|ultrab|[-,](b|bd|sb)$|bd$",
                       re.IGNORECASE)
SYMBOL_FONT = re.compile(r"symbol|dingbat|wingding|webding", re.IGNORECASE)
WORD_GAP = 0.15  # a gap wider than this times the font size between two glyphs starts a word


@dataclass
class CharFacts:
    """What cleaning the characters did, summed over pages."""

    recovered: int = 0  # unmappable glyphs whose text pdfium knew
    dropped: int = 0  # unmappable glyphs no one could map
    overprinted: int = 0  # duplicate glyphs removed

    def add(self, other: CharFacts) -> None:
        self.recovered += other.recovered
        self.dropped += other.dropped
        self.overprinted += other.overprinted


@dataclass
class Word:
    """A word on a page: its text, box (points, top-left origin) and font facts."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: float  # share of its characters set bold, 0..1
    symbol: bool = False  # set in a symbol font (bullets, dingbats)
    upright: bool = True
    chars: int = field(default=0)
    table: int | None = None  # a stand-in for the table with this index (its whole box)

    @property
    def height(self) -> float:
        return self.bottom - self.top


def font_name(char: dict[str, Any]) -> str:
    name = char.get("fontname") or ""
    if isinstance(name, bytes):
        name = name.decode("latin-1")
    return str(name).split("+", 1)[-1]


def _pdfium_glyphs(pdfium_page: Any) -> dict[tuple[int, int], str]:
    """Text of every glyph pdfium maps, keyed by its origin in PDF space (rounded to 0.5 pt)."""
    import ctypes

    import pypdfium2.raw as raw

    textpage = pdfium_page.get_textpage()
    glyphs: dict[tuple[int, int], str] = {}
    x, y = ctypes.c_double(), ctypes.c_double()
    try:
        for i in range(raw.FPDFText_CountChars(textpage.raw)):
            code = raw.FPDFText_GetUnicode(textpage.raw, i)
            if code < 32 or code in (0xFFFE, 0xFFFF, 0xFFFD) or raw.FPDFText_IsGenerated(
                    textpage.raw, i) == 1:
                continue
            if raw.FPDFText_GetCharOrigin(textpage.raw, i, ctypes.byref(x), ctypes.byref(y)):
                glyphs[(round(x.value * 2), round(y.value * 2))] = chr(code)
    finally:
        textpage.close()
    return glyphs


def _recover(chars: list[dict[str, Any]], pdfium_page: Callable[[], Any], facts: CharFacts
             ) -> list[dict[str, Any]]:
    """``(cid:N)`` characters replaced by pdfium's reading of the same glyph, else dropped."""
    if not any(CID.match(c["text"]) for c in chars):
        return chars
    page = pdfium_page()
    glyphs = _pdfium_glyphs(page) if page is not None else {}
    learned: dict[tuple[str, str], str] = {}  # (font, cid text) -> text, from glyphs found
    unresolved: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for char in chars:
        if not CID.match(char["text"]):
            out.append(char)
            continue
        x, y = char["matrix"][4], char["matrix"][5]
        found = next((glyphs[k] for dx in (0, -1, 1) for dy in (0, -1, 1)
                      if (k := (round(x * 2) + dx, round(y * 2) + dy)) in glyphs), None)
        if found:
            learned[(font_name(char), char["text"])] = found
            out.append({**char, "text": found})
            facts.recovered += 1
        else:
            unresolved.append(char)
            out.append(char)
    final = []
    for char in out:
        if CID.match(char["text"]):
            text = learned.get((font_name(char), char["text"]))
            if text is None:
                facts.dropped += 1
                continue
            facts.recovered += 1
            char = {**char, "text": text}
        final.append(char)
    return final


def _drop_overprints(chars: list[dict[str, Any]], facts: CharFacts) -> list[dict[str, Any]]:
    """The first of every set of same-text glyphs drawn (nearly) on top of each other."""
    kept: list[dict[str, Any]] = []
    cells: dict[tuple[str, int, int], list[dict[str, Any]]] = defaultdict(list)
    for char in chars:
        text = char["text"]
        if not text.strip():
            kept.append(char)
            continue
        width = max(char["x1"] - char["x0"], 0.1)
        key = (text, int(char["x0"] // 4), int(char["top"] // 4))
        twin = None
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for other in cells.get((text, key[1] + dx, key[2] + dy), ()):
                    if (abs(other["x0"] - char["x0"]) <= 0.5 * width
                            and abs(other["top"] - char["top"]) <= 0.3 * char["size"]):
                        twin = other
                        break
        if twin is not None:
            facts.overprinted += 1
            if abs(twin["x0"] - char["x0"]) > 0.05 or abs(twin["top"] - char["top"]) > 0.05:
                twin["fake_bold"] = True
            continue
        char = dict(char)
        cells[key].append(char)
        kept.append(char)
    return kept


def clean_chars(chars: list[dict[str, Any]], pdfium_page: Callable[[], Any], facts: CharFacts
                ) -> list[dict[str, Any]]:
    """Page characters with unmappable glyphs resolved and overprints removed; ``pdfium_page``
    gives the same page opened in pdfium (or None), asked only when a glyph needs it."""
    return _drop_overprints(_recover(chars, pdfium_page, facts), facts)


def _word(chars: list[dict[str, Any]], text: str) -> Word:
    visible = [c for c in chars if c["text"].strip()] or chars
    sizes = [c["size"] for c in visible]
    bold = sum(1 for c in visible if c.get("fake_bold") or BOLD_FONT.search(font_name(c)))
    return Word(
        text=text, x0=min(c["x0"] for c in chars), x1=max(c["x1"] for c in chars),
        top=min(c["top"] for c in chars), bottom=max(c["bottom"] for c in chars),
        size=statistics.median(sizes), bold=bold / len(visible),
        symbol=all(SYMBOL_FONT.search(font_name(c)) for c in visible),
        upright=bool(chars[0].get("upright", True)), chars=len(visible),
    )


def words_of(chars: list[dict[str, Any]]) -> list[Word]:
    """Words: glyphs on one line with gaps under :data:`WORD_GAP` of the font size between
    them; rotated text becomes words of its own (``upright`` False)."""
    from pdfplumber.utils.text import WordExtractor

    extractor = WordExtractor(x_tolerance_ratio=WORD_GAP, y_tolerance_ratio=0.4,
                              keep_blank_chars=False, use_text_flow=False)
    words = []
    for props, glyphs in extractor.iter_extract_tuples(chars):
        text = props["text"]
        if text.strip():
            words.append(_word(glyphs, text))
    return words

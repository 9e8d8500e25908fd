"""Characters of one page, cleaned: unmappable glyphs recovered or dropped, overprints removed,
and grouped into words.

Invariants of what leaves this module:
- every character has text: a glyph pdfium could not map to Unicode is given the text its font
  program names (:mod:`.fonts`), or dropped, and counted either way;
- no two characters with the same text sit on top of each other (fake bold drawn twice with a
  small offset, shadow text): the first drawn is kept, the others are counted and dropped, and
  the kept one is marked bold when the copies were offset (that is how fake bold looks bold).
"""

from __future__ import annotations

import functools
import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

# "-Medi": the bold of the Times clones LaTeX embeds (NimbusRomNo9L-Medi)
BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|extrab|ultrab|[-,](b|bd|sb)$|bd$"
                       r"|-medi(ital)?$", re.IGNORECASE)
MONO_FONT = re.compile(r"mono|courier|consol|menlo|typewriter|^(\w+\+)?(cm|lm)tt|code",
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
    mono: bool = False  # set in a monospaced font (code, commands)
    upright: bool = True
    upward: bool = False  # rotated text that reads from the bottom of the page up
    chars: int = field(default=0)
    spaced: bool = True  # a drawn blank follows it; False: split by a gap or an inferred blank
    space: float = 0.0  # its font's word space in points (0: the font has none)
    letter_gap: float | None = None  # the usual gap between its letters (tracking), points
    table: int | None = None  # a stand-in for the table with this index (its whole box)

    @property
    def height(self) -> float:
        return self.bottom - self.top


@functools.lru_cache(maxsize=256)
def _font_kind(name: str) -> tuple[bool, bool, bool]:
    """(bold, symbol, monospaced) read from a font's name."""
    return bool(BOLD_FONT.search(name)), bool(SYMBOL_FONT.search(name)), bool(
        MONO_FONT.search(name))


Recover = Callable[[dict[str, Any]], "str | None"]


def _recover(chars: list[dict[str, Any]], recover: Recover, facts: CharFacts
             ) -> list[dict[str, Any]]:
    """Glyphs without Unicode (``text`` None) given the text ``recover`` finds for them, else
    dropped; both counted."""
    out = []
    for char in chars:
        if char["text"] is None:
            text = recover(char)
            if not text:
                facts.dropped += 1
                continue
            facts.recovered += 1
            char = {**char, "text": text}
        out.append(char)
    return out


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
                            and abs(other["top"] - char["top"])
                            <= 0.3 * (char["bottom"] - char["top"])):
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


def clean_chars(chars: list[dict[str, Any]], recover: Recover, facts: CharFacts
                ) -> list[dict[str, Any]]:
    """Page characters (see :mod:`.reader`) with unmappable glyphs resolved through
    ``recover`` or dropped, and overprints removed."""
    return _drop_overprints(_recover(chars, recover, facts), facts)


def _word(chars: list[dict[str, Any]], text: str) -> Word:
    visible = [c for c in chars if c["text"].strip()] or chars
    sizes = [c["size"] for c in visible]
    bold = sum(1 for c in visible if c.get("fake_bold") or _font_kind(c["fontname"])[0])
    return Word(
        text=text, x0=min(c["x0"] for c in chars), x1=max(c["x1"] for c in chars),
        top=min(c["top"] for c in chars), bottom=max(c["bottom"] for c in chars),
        size=statistics.median(sizes), bold=bold / len(visible),
        symbol=all(_font_kind(c["fontname"])[1] for c in visible),
        mono=all(c.get("fixed") or _font_kind(c["fontname"])[2] for c in visible),
        upright=bool(chars[0].get("upright", True)), upward=bool(chars[0].get("upward")),
        chars=len(visible), spaced=bool(chars[-1].get("blank_after", True)),
        space=(visible[0].get("space") or 0.0) * visible[0]["size"],
        letter_gap=statistics.median(gaps) if (gaps := [
            b["x0"] - a["x1"] for a, b in zip(visible, visible[1:], strict=False)]) else None,
    )


def joined_word(parts: list[Word]) -> Word:
    """One word from fragments of it standing side by side on a line."""
    chars = sum(w.chars for w in parts) or 1
    return Word(
        text="".join(w.text for w in parts), x0=parts[0].x0, x1=parts[-1].x1,
        top=min(w.top for w in parts), bottom=max(w.bottom for w in parts),
        size=max(w.size for w in parts), bold=sum(w.bold * w.chars for w in parts) / chars,
        symbol=all(w.symbol for w in parts), upright=parts[0].upright,
        upward=parts[0].upward, chars=sum(w.chars for w in parts), spaced=parts[-1].spaced,
        space=max(w.space for w in parts), letter_gap=statistics.median(
            [b.x0 - a.x1 for a, b in zip(parts, parts[1:], strict=False)]))


def words_of(chars: list[dict[str, Any]]) -> list[Word]:
    """Words: glyphs on one line with gaps under :data:`WORD_GAP` of the font size between
    them; rotated text becomes words of its own (``upright`` False), read top to bottom or,
    when it runs up the page, bottom to top."""
    from pdfplumber.utils.text import WordExtractor

    words = []
    for char, after in zip(chars, chars[1:], strict=False):
        char["blank_after"] = not after["text"].strip() and not after.get("generated")
    if chars:
        chars[-1]["blank_after"] = True
    # pdfplumber orders bottom-to-top glyphs by their height too
    upward = [{**c, "height": c["bottom"] - c["top"]} for c in chars if c.get("upward")]
    parts: list[tuple[list[dict[str, Any]], Literal["ttb", "btt"]]] = [
        (chars if not upward else [c for c in chars if not c.get("upward")], "ttb"),
        (upward, "btt")]
    for part, char_dir in parts:
        extractor = WordExtractor(x_tolerance_ratio=WORD_GAP, y_tolerance_ratio=0.4,
                                  keep_blank_chars=False, use_text_flow=False,
                                  line_dir_rotated="ltr", char_dir_rotated=char_dir)
        for props, glyphs in extractor.iter_extract_tuples(part):
            text = props["text"]
            if text.strip():
                words.append(_word(glyphs, text))
    return words

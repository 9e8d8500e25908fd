"""Characters of one page, cleaned: unmappable glyphs recovered or dropped, overprints removed,
and grouped into words.

Invariants of what leaves this module:
- every character has text: a glyph pdfium could not map to Unicode is given the text its font
  program names (:mod:`.fonts`), or dropped, and counted either way;
- no two characters with the same text sit on top of each other (fake bold drawn twice with a
  small offset, shadow text): the first drawn is kept, the others are counted and dropped, and
  the kept one is marked bold when the copies were offset (that is how fake bold looks bold);
- a combining mark is part of the character of the letter it sits on, never one of its own.
"""

from __future__ import annotations

import functools
import re
import statistics
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from core.documents.pdf.direction import combining, right_to_left

# "-Medi": the bold of the Times clones LaTeX embeds (NimbusRomNo9L-Medi)
BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|extrab|ultrab|[-,](b|bd|sb)$|bd$"
                       r"|-medi(ital)?$", re.IGNORECASE)
MONO_FONT = re.compile(r"mono|courier|consol|menlo|typewriter|^(\w+\+)?(cm|lm)tt|code",
                       re.IGNORECASE)
SYMBOL_FONT = re.compile(r"symbol|dingbat|wingding|webding", re.IGNORECASE)
WORD_GAP = 0.15  # a gap wider than this times the font size between two glyphs starts a word
MARK_REACH = 8  # glyphs drawn this close before or after a combining mark may be its letter


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


@dataclass(slots=True)
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
    joins_left: bool = False  # it begins (on the left) with a right-to-left letter drawn in a
    # shape that joins the letter after it: the word to its left is the rest of it
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


def seat_marks(chars: list[dict[str, Any]]) -> None:
    """Right-to-left letters placed where they are drawn. Where such a letter carries a
    combining mark (a haraka), pdfium gives the letter the mark's origin and the mark's box, a
    little left of where the letter stands, and leaves the rest of the letter's width as a gap
    inside its word: the letter is widened to the narrowest shape its font draws it with, and
    the mark given the letter's box. Every other such letter is marked ``joins_next`` when
    its width is that of a shape joining the letter after it (an initial or medial form): the
    letter to its left is of the same word, whatever the gap."""
    marks: dict[tuple[float, float], list[dict[str, Any]]] = {}
    for char in chars:
        if combining(char["text"] or "") and "origin" in char:
            marks.setdefault(char["origin"], []).append(char)
    for at, char in enumerate(chars):
        shapes = char.pop("shapes", None)
        if not shapes or combining(char["text"] or ""):
            continue
        on = marks.get(char["origin"]) if "origin" in char else None
        if on:
            char["x1"] = max(char["x1"], char["x0"] + min(width for width, _ in shapes))
            # the mark's origin may be raised or lowered: the letter stands on the baseline of
            # the letters drawn beside it
            beside = next((c for c in chars[at + 1:at + 4] + chars[max(at - 3, 0):at][::-1]
                           if c.get("origin") not in marks and c["fontname"] == char["fontname"]
                           and abs(c["top"] - char["top"]) < 0.3 * char["size"]), None)
            if beside is not None:
                char["top"], char["bottom"] = beside["top"], beside["bottom"]
                char["doctop"] = beside["doctop"]
            for mark in on:
                mark.update({k: char[k] for k in ("x0", "x1", "top", "bottom", "doctop")})
        else:
            drawn = char["x1"] - char["x0"]
            char["joins_next"] = min(shapes, key=lambda shape: abs(shape[0] - drawn))[1]


def _base_of(chars: list[dict[str, Any]], at: int) -> int | None:
    """The index of the letter the combining mark ``chars[at]`` sits on: among the glyphs
    drawn near it on its line, the one under its middle (the most overlapped, the nearest
    drawn), else the nearest within a font size."""
    mark = chars[at]
    middle = (mark["x0"] + mark["x1"]) / 2
    height = mark["bottom"] - mark["top"]
    best: tuple[float, float, int] | None = None  # distance, -overlap, drawn apart
    found = None
    for j in range(max(at - MARK_REACH, 0), min(at + MARK_REACH + 1, len(chars))):
        char = chars[j]
        if (j == at or not char["text"].strip() or combining(char["text"])
                or min(char["bottom"], mark["bottom"]) - max(char["top"], mark["top"])
                < 0.5 * min(height, char["bottom"] - char["top"])):
            continue
        distance = max(char["x0"] - middle, middle - char["x1"], 0.0)
        key = (distance, max(char["x0"], mark["x0"]) - min(char["x1"], mark["x1"]),
               abs(j - at))
        if distance <= mark["size"] and (best is None or key < best):
            best, found = key, j
    return found


def attach_marks(chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page's characters with each combining mark (harakat, niqqud, accents drawn apart)
    put into the letter it sits on, so no gap or reordering separates them: after the letter,
    in canonical order (Unicode's, by combining class), or, in a right-to-left letter, whose
    glyphs are read off the page in reverse and turned back into reading order whole
    (:func:`~.direction.logical`), before it and reversed."""
    marks: dict[int, list[str]] = {}
    taken = set()
    for at, char in enumerate(chars):
        if char.get("upright", True) and combining(char["text"]):
            base = _base_of(chars, at)
            if base is not None:
                marks.setdefault(base, []).append(char["text"])
                taken.add(at)
    for base, found in marks.items():
        letter = chars[base]["text"]
        ordered = "".join(sorted("".join(found), key=unicodedata.combining))
        chars[base]["text"] = (ordered[::-1] + letter if any(map(right_to_left, letter))
                               else letter + ordered)
    return [c for i, c in enumerate(chars) if i not in taken] if taken else chars


def clean_chars(chars: list[dict[str, Any]], recover: Recover, facts: CharFacts
                ) -> list[dict[str, Any]]:
    """Page characters (see :mod:`.reader`) with unmappable glyphs resolved through
    ``recover`` or dropped, overprints removed and combining marks put with their letters."""
    seat_marks(chars)
    return attach_marks(_drop_overprints(_recover(chars, recover, facts), facts))


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
        joins_left=bool(visible[0].get("joins_next")),
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
        joins_left=parts[0].joins_left,
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

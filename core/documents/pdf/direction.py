"""Right-to-left text: from the order glyphs stand on the page to the order they are read.

A PDF draws glyphs where they stand; words and lines are read off the page left to right, so an
Arabic or Hebrew line arrives in visual order, its letters backwards. :func:`logical` turns such
a line back into reading order with the Unicode bidirectional algorithm (python-bidi): the
line's direction is that of most of its strong letters, right-to-left runs are reversed, and
numbers and Latin words inside them keep their own left-to-right order. Arabic presentation
forms (the shaped letters some fonts map glyphs to, and lam-alef ligatures) become the letters
they show (NFKC), after reordering, so a ligature's letters stay in reading order.
"""

from __future__ import annotations

import functools
import re
import unicodedata

_RTL_LETTER = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|[\U00010800-\U00010fff]")
_PRESENTATION = re.compile("[\ufb1d-\ufdff\ufe70-\ufefc]")


def _ligatures() -> frozenset[str]:
    """The letters each right-to-left ligature stands for, in reading order ("لا")."""
    found = set()
    for code in [*range(0xFB1D, 0xFE00), *range(0xFE70, 0xFEFD)]:
        letters = unicodedata.normalize("NFKC", chr(code))
        if len(letters) > 1 and all(map(right_to_left, letters)):
            found.add(letters)
    return frozenset(found)


def reading_first(letters: str) -> bool:
    """Whether the letters one right-to-left ligature glyph maps to are given in reading order
    (first letter first), as producers mostly write them; some write them as they stand
    ("ال" for lam-alef), which the known ligatures tell."""
    if letters in _LIGATURES:
        return True
    return letters[::-1] not in _LIGATURES


def right_to_left(char: str) -> bool:
    """A letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko…)."""
    return unicodedata.bidirectional(char) in ("R", "AL")


_LIGATURES = _ligatures()


def _forms() -> dict[str, tuple[tuple[str, bool], ...]]:
    """The presentation forms (isolated, final, initial, medial) of each right-to-left letter
    that has them, each with whether it joins the letter after it (initial and medial do)."""
    found: dict[str, list[tuple[str, bool]]] = {}
    for code in [*range(0xFB50, 0xFE00), *range(0xFE70, 0xFEFD)]:
        letter = unicodedata.normalize("NFKC", chr(code))
        if len(letter) == 1 and right_to_left(letter):
            joins = unicodedata.decomposition(chr(code)).startswith(("<initial>", "<medial>"))
            found.setdefault(letter, []).append((chr(code), joins))
    return {letter: tuple(forms) for letter, forms in found.items()}


_FORMS = _forms()


def shapes_of(letter: str) -> tuple[tuple[str, bool], ...]:
    """The shapes a font may draw a right-to-left letter with: the letter itself and its
    presentation forms, each with whether it joins the letter after it."""
    return ((letter, False), *_FORMS.get(letter, ()))


@functools.lru_cache(maxsize=4096)
def _mark(char: str) -> bool:
    return unicodedata.category(char) in ("Mn", "Me")


def combining(text: str) -> bool:
    """``text`` is only combining marks (Arabic harakat, Hebrew points, accents drawn apart):
    they belong with the letter they sit on, and never start a word."""
    return bool(text) and all(map(_mark, text))


def has_right_to_left(text: str) -> bool:
    """True when ``text`` holds a right-to-left letter (a fast test for most text)."""
    return _RTL_LETTER.search(text) is not None and any(map(right_to_left, text))


def right_to_left_line(text: str) -> bool:
    """True when most strong letters of ``text`` are right-to-left: a line read from the right."""
    rtl = ltr = 0
    for char in text:
        kind = unicodedata.bidirectional(char)
        rtl += kind in ("R", "AL")
        ltr += kind == "L"
    return rtl > ltr


def right_to_left_share(text: str) -> float:
    """The share of the letters of ``text`` in right-to-left scripts."""
    letters = [c for c in text if c.isalpha()]
    return sum(map(right_to_left, letters)) / len(letters) if letters else 0.0


def logical(visual: str) -> str:
    """``visual`` (a line as it stands on the page, left to right) in reading order; text
    without right-to-left letters is returned as it is."""
    if not has_right_to_left(visual):
        return visual
    from bidi import get_display

    base = "R" if right_to_left_line(visual) else "L"
    return normalise_forms(get_display(visual, base_dir=base))


def normalise_forms(text: str) -> str:
    """Arabic and Hebrew presentation forms written as the letters they stand for."""
    return _PRESENTATION.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)


def presentation_forms(text: str) -> int:
    """How many presentation-form characters ``text`` holds."""
    return len(_PRESENTATION.findall(text))

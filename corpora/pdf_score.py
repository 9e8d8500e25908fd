"""How close a converted PDF is to a reference conversion: word-level F1 of the text and the
share of the reference's headings found as sections.

Words are lower-cased runs of letters and digits (Markdown marks, table pipes and punctuation
do not count); F1 compares them as multisets, so order does not matter but every repeat does.
A reference heading is found when a section title matches it after folding case, spacing and
punctuation (or one contains the other, or they are 85 % alike).
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter

WORD = re.compile(r"\w+", re.UNICODE)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
UNMAPPED = re.compile(r"\(cid:\d+\)")


def words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in WORD.findall(text))


def word_f1(ours: str, reference: str) -> float:
    mine, theirs = words(ours), words(reference)
    common = sum((mine & theirs).values())
    if not common:
        return 0.0
    precision, recall = common / sum(mine.values()), common / sum(theirs.values())
    return 2 * precision * recall / (precision + recall)


def fold(title: str) -> str:
    return " ".join(w.lower() for w in WORD.findall(title))


def heading_recall(titles: list[str], reference_headings: list[str]) -> float | None:
    """Share of ``reference_headings`` found among ``titles`` (None when there are none)."""
    if not reference_headings:
        return None
    folded = [fold(t) for t in titles]
    found = 0
    for heading in map(fold, reference_headings):
        found += any(heading == t or (heading and (heading in t or t in heading) and t)
                     or difflib.SequenceMatcher(None, heading, t).ratio() >= 0.85
                     for t in folded)
    return found / len(reference_headings)


def reference_headings(markdown: str) -> list[str]:
    return [m.group(1) for m in HEADING.finditer(markdown)]


def doubled_glyph_words(text: str) -> list[str]:
    """Words whose every character is repeated the same number of times (2+) in a row:
    "EENNFFOORRCCEEDD", "AAAANNNN" (two or more letters, so "1100" or "ll" are not)."""
    found = []
    for word in text.split():
        runs = [len(list(group)) for _, group in itertools.groupby(word)]
        if (len(word) >= 4 and min(runs) >= 2 and len(set(runs)) == 1
                and len({c for c in word if c.isalpha()}) >= 2):
            found.append(word)
    return found


def unmapped(text: str) -> int:
    return len(UNMAPPED.findall(text))

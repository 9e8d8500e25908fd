"""Chapters named by running headers: a book's header or footer often repeats the current
chapter's number and title on every page ("Chapter 3. Monitoring and response 23",
"2 Leakage and pressure"). Such a line is taken out of the text (:mod:`.running`), but it says
which heading opens a chapter: the heading with the same title is a chapter, above the numbered
sections whatever its type size, and a line with that title set at least as large as the running
text is that heading even when its style alone would not make it one.
"""

from __future__ import annotations

import re

from core.documents.pdf.headings import NUMBERING

LETTERS = re.compile(r"[^\W\d_]+")
FOLIO = re.compile(r"\s+\d{1,5}\s*$")  # a page number after the title
MIN_WORDS = 2  # a title of fewer words ("Index", "Notes") names no chapter


def _title_key(text: str) -> str:
    """The words of a title after its numbering ("Chapter 3.", "3", "III."), lower-cased."""
    match = NUMBERING.match(text)
    rest = text[match.end():] if match else text
    return " ".join(w.lower() for w in LETTERS.findall(rest))


def chapter_names(running: list[list[str]]) -> frozenset[str]:
    """The titles (as :func:`_title_key` keys) that running lines name as numbered chapters."""
    names = set()
    for page in running:
        for line in page:
            text = FOLIO.sub("", line).strip()
            match = NUMBERING.match(text)
            if match and match.group("dotted") and NUMBERING.match(text[match.end():]):
                text = text[match.end():]  # a page number before the title's own numbering
                match = NUMBERING.match(text)
            dotted = match.group("dotted") if match else None
            if match is None or not (match.group("kind") or match.group("roman")
                                     or (dotted and "." not in dotted)):
                continue
            key = _title_key(text)
            if len(key.split()) >= MIN_WORDS:
                names.add(key)
    return frozenset(names)


def names_chapter(title: str, names: frozenset[str]) -> bool:
    """Whether a running header names ``title`` as a chapter."""
    return bool(names) and _title_key(title) in names

"""Front matter in every route: covers, contents, lists of figures or tables, and indexes,
found in the text a route wrote, so a DOCX, an HTML page, a Markdown file or a PDF mark them
the same way (:class:`~core.documents.model.FrontMatter`).

The text is read as units: a heading, or one line of any other block (a plain-text paragraph
may hold a whole contents list). Then:

- a **listing** is a short unit titled as one ("Contents", "Table of contents", "List of
  figures", "Index", …) followed by at least :data:`MIN_ENTRIES` entries, up to the first unit
  that is not one (a heading, or running text): a contents or figures entry ends in a page
  number after dot leaders or spaces ("2.1 Roles . . . 7", "Authors 2"), or is a short list
  item (a web page's contents are links, without numbers); an index entry ends in page
  numbers ("audit records, 4, 17"), and its letter dividers ("A") go on with it. One short line
  between two entries is a wrapped entry;
- a run of at least :data:`MIN_ENTRIES` lines with dot leaders and page numbers is contents
  without a title (a list of figures when most of its entries name figures or tables);
- a **cover** is the stretch before a listing that opens the document, when it holds only short
  lines (a title, an author list, a publisher): at most :data:`COVER_LINE_WORDS` words a line
  and :data:`COVER_WORDS` in all.

The PDF route also marks whole pages from their layout (:mod:`core.documents.pdf.matter`);
:func:`merge` joins both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.documents.model import Block, FrontMatter, MatterRole
from core.text.sentences import ends_sentence

CONTENTS_TITLE = re.compile(
    r"^(table of contents|contents|sommaire|table des matières|inhalt|inhaltsverzeichnis"
    r"|índice|indice|contenido|contenuto|inhoud)$", re.IGNORECASE)
FIGURES_TITLE = re.compile(
    r"^(list of (figures|tables|illustrations|exhibits)|figures|tables|table des figures"
    r"|liste des (figures|tableaux)|abbildungsverzeichnis|tabellenverzeichnis)$", re.IGNORECASE)
INDEX_TITLE = re.compile(r"^((subject|general|author|name)\s+)?index$", re.IGNORECASE)
LEADER = re.compile(r"(\.\s?){4,}\s*[0-9ivxlc]+$|…+\s*[0-9ivxlc]+$", re.IGNORECASE)
ENDS_IN_PAGE = re.compile(r"\s[0-9ivxlc]{1,5}$", re.IGNORECASE)
INDEX_ENTRY = re.compile(r"[,\s]\s*[0-9]{1,5}([-–][0-9]{1,5})?(,\s*[0-9]{1,5}([-–][0-9]{1,5})?)*$")
# a cheap first look over the whole text: no title line and no dot leaders, no listing
HINT = re.compile(r"(\.\s?){4,}\s*[0-9ivxlc]+\s*$|…\s*[0-9ivxlc]+\s*$|^\W*(table of contents"
                  r"|contents|sommaire|table des matières|inhalt\w*|índice|indice|contenido"
                  r"|contenuto|inhoud|list of \w+|figures|tables|table des figures|liste des \w+"
                  r"|\w*verzeichnis|(\w+ )?index)\W*$", re.IGNORECASE | re.MULTILINE)
NAMES_FIGURE = re.compile(r"^(figure|fig\.|table|tab\.|exhibit|illustration)\s", re.IGNORECASE)
MARKER = re.compile(r"[ \t]*(#{1,6}|[-*+]|\d{1,3}[.)])?[ \t]*")
MIN_ENTRIES = 3
ENTRY_WORDS = 16  # a contents entry, a list item of a contents list: at most this many words
COVER_LINE_WORDS = 15
COVER_WORDS = 80
MAX_TITLE_CHARS = 40


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    text: str
    heading: bool
    list_item: bool


def title_role(text: str) -> MatterRole | None:
    """The listing a title names ("Contents", "List of figures", "Index"), if any."""
    title = text.strip().rstrip(":.").strip()
    if len(title) > MAX_TITLE_CHARS:
        return None
    if CONTENTS_TITLE.match(title):
        return "contents"
    if FIGURES_TITLE.match(title):
        return "figures"
    return "index" if INDEX_TITLE.match(title) else None


def marked_start(text: str, start: int) -> int:
    """Where the line holding ``text[start:]`` starts when only a heading's marker ("## ") or
    a list's ("- ") comes before it on the line, else ``start``: front matter takes the marker
    in, so no chunk is left holding it alone."""
    line = text.rfind("\n", 0, start) + 1
    return line if MARKER.fullmatch(text[line:start]) else start


def _units(text: str, blocks: list[Block]) -> list[_Unit]:
    units = []
    for block in blocks:
        if block.kind in ("heading", "title"):
            units.append(_Unit(marked_start(text, block.start), block.end,
                               text[block.start:block.end], True, False))
            continue
        if block.kind in ("table", "code"):
            units.append(_Unit(block.start, block.end, "", False, False))  # never an entry
            continue
        at = block.start
        for line in text[block.start:block.end].split("\n"):
            stripped = line.strip()
            if stripped:
                start = marked_start(text, at + len(line) - len(line.lstrip()))
                units.append(_Unit(start, start + len(stripped), stripped, False,
                                   block.kind == "list_item"))
            at += len(line) + 1
    return units


def _words(text: str) -> int:
    return len(text.split())


def is_entry(unit: _Unit, role: MatterRole) -> bool:
    """Whether ``unit`` reads as an entry of a listing of ``role``."""
    text = unit.text
    if unit.heading or not text:
        return False
    if role == "index":
        return INDEX_ENTRY.search(text) is not None and _words(text) <= ENTRY_WORDS
    if LEADER.search(text):
        return True
    short = _words(text) <= ENTRY_WORDS
    return short and (ENDS_IN_PAGE.search(text) is not None
                      or (unit.list_item and not ends_sentence(text)))


def _wrapped(unit: _Unit) -> bool:
    """A short line that may be the first line of an entry wrapped over two (or an index's
    letter divider)."""
    return (not unit.heading and bool(unit.text) and _words(unit.text) <= ENTRY_WORDS
            and not ends_sentence(unit.text))


def _listing(units: list[_Unit], first: int, role: MatterRole) -> int:
    """The index of the last entry of the listing whose entries start at ``first`` (``first -
    1`` when it has none)."""
    last = first - 1
    k = first
    while k < len(units):
        if is_entry(units[k], role):
            last = k
        elif not (_wrapped(units[k]) and k + 1 < len(units) and is_entry(units[k + 1], role)):
            break
        k += 1
    return last


def _entries(units: list[_Unit], first: int, last: int, role: MatterRole) -> int:
    return sum(is_entry(u, role) for u in units[first:last + 1])


def find_front_matter(text: str, blocks: list[Block]) -> list[FrontMatter]:
    """The front matter of a text written as ``blocks``, in text order."""
    if HINT.search(text) is None:
        return []
    units = _units(text, blocks)
    found: list[tuple[MatterRole, int, int]] = []  # role, first unit, last unit
    k = 0
    while k < len(units):
        role = title_role(units[k].text) if units[k].text else None
        if role is not None:
            last = _listing(units, k + 1, role)
            if _entries(units, k + 1, last, role) >= MIN_ENTRIES:
                found.append((role, k, last))
                k = last + 1
                continue
        if LEADER.search(units[k].text):
            last = _listing(units, k, "contents")
            run = [u for u in units[k:last + 1] if LEADER.search(u.text)]
            if len(run) >= MIN_ENTRIES:
                figures = sum(bool(NAMES_FIGURE.match(u.text)) for u in run) * 2 > len(run)
                found.append(("figures" if figures else "contents", k, last))
                k = last + 1
                continue
        k += 1
    if found and found[0][0] != "index" and found[0][1] > 0:
        before = units[:found[0][1]]
        if (all(_words(u.text) <= COVER_LINE_WORDS and u.text for u in before)
                and sum(_words(u.text) for u in before) <= COVER_WORDS):
            found.insert(0, ("cover", 0, found[0][1] - 1))
    return [FrontMatter(role=role, start=units[a].start, end=units[b].end)
            for role, a, b in found]


def merge(*groups: list[FrontMatter]) -> list[FrontMatter]:
    """The front matter of several findings as one list in text order, without overlaps (where
    two overlap, the one starting first extends over the other)."""
    out: list[FrontMatter] = []
    for span in sorted((s for g in groups for s in g), key=lambda s: (s.start, -s.end)):
        if out and span.start < out[-1].end:
            if span.end > out[-1].end:
                out[-1] = out[-1].model_copy(update={"end": span.end})
            continue
        out.append(span)
    return out

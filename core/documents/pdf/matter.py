"""Pages that are not the body of a document: covers, contents pages and indexes.

They stay in the text, but they are marked (:attr:`~core.documents.model.PageInfo.role`), so a
reader of the text (retrieval, a heading ladder) can leave them out: a cover's huge title is not
a chapter above the whole book, and a contents page is not the answer to a question.

- a **contents** page is titled so ("Contents", "Table of contents", "Sommaire", …) or has most
  of its lines ending in a page number after dot leaders; a page right after one whose lines
  mostly end in page numbers goes on with it;
- an **index** is titled "Index" and most of its other lines end in page numbers
  ("audit records, 4, 17"); it goes on on the pages after it the same way;
- a **cover** is the first or the last page of a document of :data:`MIN_BOOK_PAGES` or more,
  set with a line far larger than the running text and larger than any line inside the book
  (a one-off title, not a chapter starting on a short last page), and holding few words (at
  most :data:`COVER_WORDS`, and well under the usual page between them).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter

from core.documents.model import PageRole
from core.documents.pdf.layout import Line

CONTENTS_TITLE = re.compile(
    r"^(table of contents|contents|sommaire|table des matières|inhalt|inhaltsverzeichnis"
    r"|índice|indice|contenido|contenuto|inhoud)$", re.IGNORECASE)
INDEX_TITLE = re.compile(r"^((subject|general|author|name)\s+)?index$", re.IGNORECASE)
LEADER = re.compile(r"(\.\s?){4,}\s*[0-9ivxlc]+$|…+\s*[0-9ivxlc]+$", re.IGNORECASE)
ENDS_IN_PAGE = re.compile(r"\s[0-9ivxlc]{1,5}$", re.IGNORECASE)
INDEX_ENTRY = re.compile(r"[,\s]\s*[0-9]{1,5}([-–][0-9]{1,5})?(,\s*[0-9]{1,5}([-–][0-9]{1,5})?)*$")
MIN_BOOK_PAGES = 4
COVER_WORDS = 300
COVER_SIZE = 1.4  # a cover's largest line is this many times the running text's size
SIZE_STEP = 1.0  # points: a cover's largest line is larger than every line inside the book
MOST = 0.5  # share of a page's lines that makes the pattern the page's own


def _share(lines: list[Line], pattern: re.Pattern[str]) -> float:
    return sum(1 for ln in lines if pattern.search(ln.text.strip())) / len(lines)


def _title(lines: list[Line]) -> str:
    return lines[0].text.strip().rstrip(":.").strip() if lines else ""


def _body_size(lines: list[Line]) -> float:
    weight: Counter[float] = Counter()
    for line in lines:
        weight[line.size] += len(line.text)
    return weight.most_common(1)[0][0] if weight else 0.0


def page_roles(lines: list[Line], pages: int) -> dict[int, PageRole]:
    """The role of each page that is not body text (pages absent from the answer are body)."""
    by_page: dict[int, list[Line]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    roles: dict[int, PageRole] = {}
    previous: PageRole | None = None
    for number in range(1, pages + 1):
        found = by_page.get(number, [])
        rest = found[1:]
        role: PageRole | None = None
        if found and (CONTENTS_TITLE.match(_title(found)) or (
                len(found) >= 4 and _share(found, LEADER) >= MOST)):
            role = "contents"
        elif rest and INDEX_TITLE.match(_title(found)) and _share(rest, INDEX_ENTRY) >= MOST:
            role = "index"
        elif previous == "contents" and found and _share(found, ENDS_IN_PAGE) >= MOST:
            role = "contents"
        elif previous == "index" and found and _share(found, INDEX_ENTRY) >= MOST:
            role = "index"
        if role is not None:
            roles[number] = role
        previous = role
    if pages >= MIN_BOOK_PAGES:
        body = _body_size(lines)
        words = {n: sum(len(ln.words) for ln in found) for n, found in by_page.items()}
        inner = [words.get(n, 0) for n in range(2, pages) if n not in roles]
        usual = statistics.median(inner) if inner else 0
        largest = max((ln.size for ln in lines if 1 < ln.page < pages), default=0.0)
        for number in (1, pages):
            found = by_page.get(number, [])
            top = max((ln.size for ln in found), default=0.0)
            if (number not in roles and body > 0 and top >= COVER_SIZE * body
                    and top > largest + SIZE_STEP
                    and words[number] <= min(COVER_WORDS, 0.6 * usual)):
                roles[number] = "cover"
    return roles

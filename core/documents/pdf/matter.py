"""Pages that are not the body of a document: covers, contents pages, lists of figures and
indexes, found from the page layout (the text of any route is read for them too:
:mod:`core.documents.matter`, whose title and entry patterns these are).

They stay in the text, but they are marked (:attr:`~core.documents.model.PageInfo.role`, and
their text as :class:`~core.documents.model.FrontMatter`), so a reader of the text (retrieval,
a heading ladder) can leave them out: a cover's title and author list are not headings, and a
contents page is not the answer to a question.

- a **contents** page is titled so ("Contents", "Table of contents", "Sommaire", …) or has most
  of its lines ending in a page number after dot leaders (a **list of figures** when titled
  so); a page right after one whose lines mostly end in page numbers goes on with it;
- an **index** is titled "Index" and most of its other lines end in page numbers
  ("audit records, 4, 17"); it goes on on the pages after it the same way;
- a **cover** is the first or the last page of a document of :data:`MIN_BOOK_PAGES` or more,
  set with a line far larger than the running text, and holding few words (at most
  :data:`COVER_WORDS`, and well under the usual page between them); its largest line of words
  is larger than any line of words inside the book (a one-off title, not a chapter starting
  on a short last page) — or, for the first page, a contents page comes right after it
  (within :data:`COVER_TO_CONTENTS` pages). Numbers alone (a chapter's huge "2") are not
  lines of words.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter

from core.documents.matter import ENDS_IN_PAGE, INDEX_ENTRY, LEADER, title_role
from core.documents.model import MatterRole
from core.documents.pdf.layout import Line

MIN_BOOK_PAGES = 4
COVER_WORDS = 300
COVER_SIZE = 1.4  # a cover's largest line is this many times the running text's size
SIZE_STEP = 1.0  # points: a cover's largest line is larger than every line inside the book
COVER_TO_CONTENTS = 2  # pages from a front cover to the contents page after it
MOST = 0.5  # share of a page's lines that makes the pattern the page's own


def _share(lines: list[Line], pattern: re.Pattern[str]) -> float:
    return sum(1 for ln in lines if pattern.search(ln.text.strip())) / len(lines)


def _lettered(line: Line) -> bool:
    return sum(c.isalpha() for c in line.text) >= 3


def _body_size(lines: list[Line]) -> float:
    weight: Counter[float] = Counter()
    for line in lines:
        weight[line.size] += len(line.text)
    return weight.most_common(1)[0][0] if weight else 0.0


def page_roles(lines: list[Line], pages: int) -> dict[int, MatterRole]:
    """The role of each page that is not body text (pages absent from the answer are body)."""
    by_page: dict[int, list[Line]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    roles: dict[int, MatterRole] = {}
    previous: MatterRole | None = None
    for number in range(1, pages + 1):
        found = by_page.get(number, [])
        rest = found[1:]
        titled = title_role(found[0].text) if found else None
        role: MatterRole | None = None
        if titled in ("contents", "figures") or (
                found and len(found) >= 4 and _share(found, LEADER) >= MOST):
            role = titled or "contents"
        elif titled == "index" and rest and _share(rest, INDEX_ENTRY) >= MOST:
            role = "index"
        elif previous in ("contents", "figures") and found and _share(found, ENDS_IN_PAGE) >= MOST:
            role = previous
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
        largest = max((ln.size for ln in lines if 1 < ln.page < pages and _lettered(ln)),
                      default=0.0)
        listing = any(roles.get(n) in ("contents", "figures")
                      for n in range(2, 2 + COVER_TO_CONTENTS))
        for number in (1, pages):
            found = [ln for ln in by_page.get(number, []) if _lettered(ln)]
            top = max((ln.size for ln in found), default=0.0)
            if (number not in roles and body > 0 and top >= COVER_SIZE * body
                    and (top > largest + SIZE_STEP or (number == 1 and listing))
                    and words[number] <= min(COVER_WORDS, 0.6 * usual)):
                roles[number] = "cover"
    return roles

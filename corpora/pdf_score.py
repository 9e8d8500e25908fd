"""How close a converted PDF is to a reference conversion: word-level F1 of the text and the
share of the reference's headings found as sections.

Words are lower-cased runs of letters and digits (Markdown marks, table pipes, punctuation and
HTML comments do not count); F1 compares them as multisets, so order does not matter but every
repeat does.
A reference heading is found when a section title matches it after folding case, spacing and
punctuation (or one contains the other, or they are 85 % alike). Tables are scored cell by cell
(:func:`table_cell_f1`) against the reference's Markdown pipe tables. A reference may fence its
front matter (``<!-- front matter: cover -->`` … ``<!-- end front matter -->``): no cover line
may be a heading (:func:`cover_headings`), and no retrieval result may hold a line of it
(:func:`front_matter_hits`).
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter

from core.documents.model import ConvertedText
from core.operations.strategies import chunk
from core.retrieval.bm25 import BM25Index
from core.retrieval.front_matter import retrievable
from core.retrieval.ranking import rank_chunks

WORD = re.compile(r"\w+", re.UNICODE)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
LEVELLED = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)
UNMAPPED = re.compile(r"\(cid:\d+\)")
PIPE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
RULE_CELL = re.compile(r"^\s*:?-+:?\s*$")
PIPE = re.compile(r"(?<!\\)\|")
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
MATTER = re.compile(r"<!-- front matter: (\w+) -->(.*?)<!-- end front matter -->", re.DOTALL)

Rows = list[list[str]]
RESULTS = 5  # retrieval results per question (:func:`front_matter_results`)


def words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in WORD.findall(COMMENT.sub(" ", text)))


def word_f1(ours: str, reference: str) -> float:
    mine, theirs = words(ours), words(reference)
    common = sum((mine & theirs).values())
    if not common:
        return 0.0
    precision, recall = common / sum(mine.values()), common / sum(theirs.values())
    return 2 * precision * recall / (precision + recall)


def fold(title: str) -> str:
    return " ".join(w.lower() for w in WORD.findall(title))


def _same_heading(heading: str, title: str) -> bool:
    return bool(heading == title or (heading and (heading in title or title in heading) and title)
                or difflib.SequenceMatcher(None, heading, title).ratio() >= 0.85)


def heading_recall(titles: list[str], reference_headings: list[str]) -> float | None:
    """Share of ``reference_headings`` found among ``titles`` (None when there are none)."""
    if not reference_headings:
        return None
    folded = [fold(t) for t in titles]
    found = sum(any(_same_heading(heading, t) for t in folded)
                for heading in map(fold, reference_headings))
    return found / len(reference_headings)


def _dense(levels: list[int]) -> list[int]:
    rank = {level: i + 1 for i, level in enumerate(sorted(set(levels)))}
    return [rank[level] for level in levels]


def heading_level_agreement(sections: list[tuple[str, int]], markdown: str) -> float | None:
    """Share of the reference's headings found as a section at the same level (levels made
    dense on both sides: the ranks in use become 1, 2, 3…); None when it has no headings."""
    reference = [(fold(m.group(2)), len(m.group(1))) for m in LEVELLED.finditer(markdown)]
    if not reference:
        return None
    ours = list(zip([fold(t) for t, _ in sections], _dense([lv for _, lv in sections]),
                    strict=True))
    theirs = _dense([lv for _, lv in reference])
    agree = 0
    for (heading, _), level in zip(reference, theirs, strict=True):
        match = next((lv for title, lv in ours if _same_heading(heading, title)), None)
        agree += match == level
    return agree / len(reference)


def reference_headings(markdown: str) -> list[str]:
    return [m.group(1) for m in HEADING.finditer(markdown)]


def front_matter_lines(markdown: str) -> dict[str, list[str]]:
    """For each role the reference fences (cover, contents, figures, index), its lines, folded."""
    found: dict[str, list[str]] = {}
    for match in MATTER.finditer(markdown):
        lines = [fold(line) for line in match.group(2).splitlines()]
        found.setdefault(match.group(1), []).extend(f for f in lines if f)
    return found


def cover_headings(titles: list[str], markdown: str) -> list[str]:
    """The ``titles`` that are a line of the reference's cover (a title, an author list, a
    publisher line): none should be."""
    cover = front_matter_lines(markdown).get("cover", [])
    return [t for t in titles if any(
        fold(t) == line or difflib.SequenceMatcher(None, fold(t), line).ratio() >= 0.85
        or (len(fold(t).split()) >= 2 and f" {fold(t)} " in f" {line} ") for line in cover)]


def front_matter_hits(texts: list[str], markdown: str) -> int:
    """How many ``texts`` (retrieval results) hold a whole line of two words or more of the
    reference's contents, list of figures or index ("2.1 Roles 7", "audit records, 11")."""
    lines = [line for role, found in front_matter_lines(markdown).items() if role != "cover"
             for line in found if len(line.split()) >= 2]
    return sum(any(f" {line} " in f" {fold(text)} " for line in lines) for text in texts)


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


def reference_tables(markdown: str) -> list[Rows]:
    """The pipe tables of a Markdown text, each as rows of cells (the rule under the header
    left out)."""
    tables: list[Rows] = []
    current: Rows = []
    for line in [*markdown.splitlines(), ""]:
        match = PIPE_ROW.match(line)
        if match:
            cells = [c.strip().replace("\\|", "|") for c in PIPE.split(match.group(1))]
            if not all(RULE_CELL.match(c) for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def _cells(rows: Rows) -> set[tuple[int, int, str]]:
    return {(r, c, fold(cell)) for r, row in enumerate(rows) for c, cell in enumerate(row)
            if fold(cell)}


def table_cell_f1(found: list[Rows], reference: list[Rows]) -> float | None:
    """Cell-level F1 of the tables found against the reference tables: each reference table
    is matched with the found table that scores best, where a cell counts when the same text
    (folded) stands at the same row and column; empty cells do not count. The mean over the
    reference tables (a table not found scores 0); None when the reference has none."""
    if not reference:
        return None
    scores = []
    for table in reference:
        theirs = _cells(table)
        best = 0.0
        for rows in found:
            mine = _cells(rows)
            if mine and theirs:
                best = max(best, 2 * len(mine & theirs) / (len(mine) + len(theirs)))
        scores.append(best)
    return sum(scores) / len(scores)


def front_matter_results(converted: ConvertedText, reference: str) -> int | None:
    """Retrieval results holding a line of the reference's contents or index, over one question
    per reference heading (None when the reference fences no front matter)."""
    if not front_matter_lines(reference):
        return None
    document = converted.document("bench", "bench.pdf", "pdf")
    chunks = [c for c in chunk(document, "recursive", {}) if retrievable(c)]
    index = BM25Index([c.text for c in chunks])
    found = [chunks[i].text for question in reference_headings(reference)
             for i, _ in rank_chunks(question, chunks, "bm25", limit=RESULTS, bm25_index=index)]
    return front_matter_hits(found, reference)

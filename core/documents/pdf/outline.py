"""Heading levels: from the document's own ladder of heading styles and from its numbering.

Styles rank by size (close sizes merged), then bold before regular. Numbering sets the levels
of numbered headings whatever their fonts say: each numbering scheme (Roman "II.", letters
"B.", decimal "3" and "3.2") sits one step below the schemes the document used before it (a
French handbook's "I." > "A." > "1."), a decimal number nests one step per dot ("5.1" under
"5"), a chapter ("Chapter 4") is above every numbered section and a part ("Part II") above
every chapter. Levels are dense: the ranks in use become 1, 2, 3… (at most 6).
"""

from __future__ import annotations

from collections import Counter

from core.documents.pdf.headings import NUMBERING, Style

SIZE_MERGE = 0.6  # heading sizes this close (points) are one size
DIVISIONS = {"chapter": "chapter", "chapitre": "chapter", "kapitel": "chapter",
             "part": "part", "partie": "part", "teil": "part"}
AMBIGUOUS_ROMAN = set("IVXLC")  # "C." is the third letter or a hundred


def numbering_scheme(text: str, last_letter: str = "") -> tuple[str, int] | None:
    """A heading's numbering scheme and its depth in it: ("decimal", 2) for "3.2",
    ("roman", 1), ("letter", 1), ("chapter", 1), ("part", 1); None when it has none of them.
    A lone "I", "V", "X", "L" or "C" is a letter when it follows ``last_letter`` ("B." then
    "C.")."""
    match = NUMBERING.match(text)
    if match is None:
        return None
    if match.group("dotted"):
        return "decimal", match.group("dotted").count(".") + 1
    roman = match.group("roman")
    if roman:
        if (len(roman) == 1 and roman.upper() in AMBIGUOUS_ROMAN and last_letter
                and ord(roman.upper()) == ord(last_letter.upper()) + 1):
            return "letter", 1
        return "roman", 1
    if match.group("letter"):
        return "letter", 1
    division = DIVISIONS.get((match.group("kind") or "").lower())
    return (division, 1) if division else None


def outline_depths(titles: list[str]) -> list[tuple[str, int] | None]:
    """For each heading, its division ("part", "chapter") or its depth in the outline of
    numbered sections (1 = the scheme the document used first), or None when unnumbered."""
    schemes: list[tuple[str, int] | None] = []
    last_letter = ""
    for title in titles:
        found = numbering_scheme(title, last_letter)
        if found and found[0] == "letter":
            last_letter = title.lstrip()[:1]
        schemes.append(found)
    order: list[str] = []
    deepest: Counter[str] = Counter()
    for found in schemes:
        if found and found[0] not in DIVISIONS.values():
            if found[0] not in order:
                order.append(found[0])
            deepest[found[0]] = max(deepest[found[0]], found[1])
    start = {}
    depth = 1
    for scheme in order:
        start[scheme] = depth
        depth += deepest[scheme]
    out: list[tuple[str, int] | None] = []
    for found in schemes:
        if found is None or found[0] in DIVISIONS.values():
            out.append((found[0], 0) if found else None)
        else:
            out.append(("section", start[found[0]] + found[1] - 1))
    return out


def _size_groups(sizes: set[float]) -> dict[float, int]:
    """Font sizes grouped where they lie within :data:`SIZE_MERGE` of the group's largest (11
    and 11.5 are one size of heading); group 0 is the largest."""
    group: dict[float, int] = {}
    first: float | None = None  # the largest size of the group being filled
    for size in sorted(sizes, reverse=True):
        if first is None or first - size > SIZE_MERGE:
            first = size
            group[size] = max(group.values(), default=-1) + 1
        else:
            group[size] = group[first]
    return group


def assign_levels(headings: list[tuple[Style, str]], chapters: frozenset[int] = frozenset()
                  ) -> list[int]:
    """A level (1 = top) for each heading given its style and title, in document order;
    ``chapters``: the indices of headings known to open chapters though their titles do not
    say so (named by running headers, :mod:`.chapters`).

    The shallowest numbered sections sit at the rank of the style most of them have, and each
    step deeper in the outline is one level down; a chapter is at its style's rank or just
    above the numbered sections, whichever is higher, and a part above the chapters the same
    way; unnumbered headings are at their style's rank, but never above the top division
    (chapters or parts): a book's preface, contents or index, however large their type, are
    its chapters' siblings.
    """
    if not headings:
        return []
    groups = _size_groups({s.size for s, _ in headings})
    ranked = sorted({(groups[s.size], not s.bold) for s, _ in headings})
    rank = {key: i for i, key in enumerate(ranked)}
    styles = [rank[(groups[s.size], not s.bold)] for s, _ in headings]
    outline = [("chapter", 0) if k in chapters and (o is None or o[0] == "section") else o
               for k, o in enumerate(outline_depths([title for _, title in headings]))]
    raw = list(styles)
    sections = [(r, o[1]) for r, o in zip(styles, outline, strict=True)
                if o and o[0] == "section"]
    ceiling = None  # the highest rank a numbered section takes
    if sections:
        top = min(d for _, d in sections)
        base = Counter(r for r, d in sections if d == top).most_common(1)[0][0]
        raw = [base + o[1] - top if o and o[0] == "section" else r
               for r, o in zip(raw, outline, strict=True)]
        ceiling = base
    for division in ("chapter", "part"):
        found = [k for k, o in enumerate(outline) if o and o[0] == division]
        if found and ceiling is not None:
            for k in found:
                raw[k] = min(raw[k], ceiling - 1)
        if found:
            ceiling = min(raw[k] for k in found)
    if any(o and o[0] in DIVISIONS.values() for o in outline) and ceiling is not None:
        raw = [max(r, ceiling) if o is None else r for r, o in zip(raw, outline, strict=True)]
    used = sorted(set(raw))
    dense = {value: i + 1 for i, value in enumerate(used)}
    return [min(dense[value], 6) for value in raw]

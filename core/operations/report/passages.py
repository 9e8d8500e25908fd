"""A retrieved passage as a report shows it: its text escaped, the reference spans inside it
marked (``<mark>``), the pages it was read from, and no more characters than the report can
afford (a window around the first reference it touches, the cut said with an ellipsis)."""

from __future__ import annotations

from collections.abc import Sequence

from core.documents.model import Document
from core.evaluation.metrics import Range, union_ranges
from core.operations.report.markup import esc

LONGEST = 1500  # characters of a passage shown when the report has room for all of it
SHORTEST = 200  # … when it has not: never fewer than this
TEXT_BUDGET = 2_500_000  # characters of passage text in one report, all passages together
ELLIPSIS = "…"


def passage_cap(passages: int) -> int:
    """Characters shown per passage so that ``passages`` of them fit :data:`TEXT_BUDGET`."""
    return max(SHORTEST, min(LONGEST, TEXT_BUDGET // max(1, passages)))


def window(start: int, end: int, references: Sequence[Range], cap: int) -> Range:
    """The stretch of ``[start, end)`` to show: all of it when it fits ``cap``, else ``cap``
    characters starting a little before the first reference it touches (or at its start)."""
    if end - start <= cap:
        return start, end
    touching = [max(s, start) for s, e in references if s < end and start < e]
    lo = max(start, min(touching) - cap // 5) if touching else start
    hi = min(end, lo + cap)
    return max(start, hi - cap), hi


def marked(text: str, lo: int, hi: int, references: Sequence[Range], offset: int = 0) -> str:
    """``text[lo - offset : hi - offset]`` escaped, the parts inside a reference marked;
    ``offset`` is where ``text`` starts in the document the spans count in."""
    out, at = [], lo
    for s, e in union_ranges((max(s, lo), min(e, hi)) for s, e in references):
        out.append(esc(text[at - offset : s - offset]))
        out.append(f"<mark>{esc(text[s - offset : e - offset])}</mark>")
        at = e
    out.append(esc(text[at - offset : hi - offset]))
    return "".join(out)


def excerpt(text: str, start: int, end: int, references: Sequence[Range], cap: int,
            offset: int = 0) -> str:
    """The passage ``[start, end)`` of a text starting at ``offset`` (see :func:`marked`),
    at most ``cap`` characters of it, an ellipsis where it was cut."""
    lo, hi = window(start, end, references, cap)
    return ((ELLIPSIS if lo > start else "") + marked(text, lo, hi, references, offset)
            + (ELLIPSIS if hi < end else ""))


def pages(document: Document | None, start: int, end: int) -> str:
    """``p. 3``, ``pp. 3–4``, or nothing for a text without pages."""
    if document is None:
        return ""
    found = document.provenance(start, end)[0]
    if not found:
        return ""
    if len(found) == 1:
        return f"p. {found[0]}"
    return f"pp. {found[0]}–{found[-1]}"

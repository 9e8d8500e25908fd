"""Generated questions made trustworthy: excerpts located exactly, weak ones rejected, repeats
dropped.

A model quoting a passage often changes line breaks, spaces or capitals. :func:`locate` looks
for the excerpt exactly first, then with every run of whitespace read as one space and case
ignored, and maps the match back to exact offsets in ``Document.text``, so a reference is
always ``text[start:end]``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.documents.model import Document

MIN_EXCERPT_CHARS = 20
QUESTION_SIMILARITY = 0.8  # word-set Jaccard at or above which two questions are the same
EXCERPT_OVERLAP = 0.8  # span IoU at or above which two excerpts are the same
AROUND_CHARS = 300  # text before and after an excerpt that may hold what its question names
STEM_CHARS = 5  # words are compared by their first letters (see _stem)
AMBIGUOUS_COUNT = 3  # an excerpt found this often in its document is an ambiguous reference
_WORD = re.compile(r"\w+")


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with whitespace runs as one space, and for each character of the
    result the offset in ``text`` it comes from."""
    out: list[str] = []
    origin: list[int] = []
    in_space = False
    for offset, char in enumerate(text):
        if char.isspace():
            if not in_space:
                out.append(" ")
                origin.append(offset)
            in_space = True
            continue
        in_space = False
        out.append(char.lower())
        origin.append(offset)
    return "".join(out), origin


def locate(excerpt: str, text: str, near: int = 0) -> tuple[int, int] | None:
    """Exact offsets of ``excerpt`` in ``text`` (the occurrence nearest ``near`` when there are
    several), or None when not even the whitespace- and case-tolerant match finds it."""
    wanted = excerpt.strip()
    if not wanted:
        return None
    exact = _occurrences(text, wanted)
    if exact:
        start = min(exact, key=lambda s: abs(s - near))
        return (start, start + len(wanted))
    folded, origin = _folded(text)
    needle, _ = _folded(wanted)
    found = _occurrences(folded, needle)
    if not found:
        return None
    first = min(found, key=lambda s: abs(origin[s] - near))
    return (origin[first], origin[first + len(needle) - 1] + 1)


def _occurrences(text: str, needle: str) -> list[int]:
    starts, at = [], text.find(needle)
    while at >= 0:
        starts.append(at)
        at = text.find(needle, at + 1)
    return starts


def rejection(span: tuple[int, int], document: Document) -> str | None:
    """Why an excerpt cannot serve as a reference (too short, or only a heading), or None."""
    start, end = span
    excerpt = document.text[start:end].strip()
    headings = [(s.heading_start, s.heading_end) for s in document.sections]
    headings += [(b.start, b.end) for b in document.blocks if b.kind in ("title", "heading")]
    if any(h_start <= start and end <= h_end + 1 for h_start, h_end in headings):
        return "the excerpt is a heading, not a passage that answers"
    if len(excerpt) < MIN_EXCERPT_CHARS:
        return f"the excerpt has {len(excerpt)} characters, fewer than {MIN_EXCERPT_CHARS}"
    return None


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


# Words that ask without naming anything: question words, function words, and the words a
# question uses to point at the text itself ("What does the document say about this?").
_EMPTY_WORDS = frozenset("""
    a about according all an and any anything are as at be been being but by can could describe
    described describes detail details did do does doing explain for from give given has have he
    her here him his how i if in information is it its key many me mention mentioned mentions more
    much my not of often on or our over point points say said says section she should so some
    something state stated states tell tells text that the their them then there these they this
    those to under us was we were what whats when where which who whom whose why will with would
    you your
    document documents passage paragraph excerpt content contents topic part table
    """.split())


def empty_question(question: str) -> str | None:
    """Why ``question`` asks about nothing in particular (no word but question, function and
    "the document says" words: "What does the document say about this?"), or None."""
    if any(w not in _EMPTY_WORDS for w in _words(question.replace("'", ""))):
        return None
    return "the question names nothing to look for (no content word)"


def _stem(word: str) -> str:
    """``word`` without a plural or verb ending, cut to its first letters: "costs" meets "cost",
    "coverage" meets "covered"."""
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    return word[:STEM_CHARS]


def content_stems(text: str) -> set[str]:
    """The stems of ``text``'s content words (not question or function words)."""
    return {_stem(w) for w in _words(text.replace("'", ""))
            if w not in _EMPTY_WORDS and len(w) > 2}


def title_stems(document: Document) -> set[str]:
    """The content words of the document's title: its one top-level heading, if it has one."""
    if not document.sections:
        return set()
    top = min(s.level for s in document.sections)
    titles = [s.title for s in document.sections if s.level == top]
    return content_stems(titles[0]) if len(titles) == 1 else set()


def unanswered(question: str, spans: Sequence[tuple[int, int]], document: Document) -> str | None:
    """Why the excerpts at ``spans`` do not answer ``question``, or None: none of the question's
    content words occurs in them, or fewer than half occur in them and the text around them
    (a heading or the sentence before may name what a table row or a short sentence is about).
    The words of the document's title are not asked for: "… at the Municipal Library?" is
    answered by a sentence of the library's policy that never names the library.
    """
    wanted = content_stems(question) - title_stems(document)
    if not wanted or not spans:
        return None
    text = document.text
    inside = set().union(*(content_stems(text[a:b]) for a, b in spans))
    around = set().union(*(content_stems(text[max(0, a - AROUND_CHARS) : b + AROUND_CHARS])
                           for a, b in spans))
    if wanted & inside and 2 * len(wanted & around) >= len(wanted):
        return None
    missing = sorted(w for w in _words(question) if _stem(w) in wanted - around)[:4]
    return ("the excerpt does not answer the question (it never mentions "
            f"{', '.join(repr(w) for w in missing) or 'what the question asks about'})")


def times_found(span: tuple[int, int], document: Document) -> int:
    """How often the excerpt at ``span`` occurs in its document (spaces and case ignored)."""
    folded, _ = _folded(document.text)
    needle, _ = _folded(document.text[span[0] : span[1]].strip())
    return len(_occurrences(folded, needle)) if needle else 0


def similar_questions(a: str, b: str) -> bool:
    """Near-duplicates: their word sets share at least :data:`QUESTION_SIMILARITY` (Jaccard)."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return a.strip().lower() == b.strip().lower()
    return len(wa & wb) / len(wa | wb) >= QUESTION_SIMILARITY


def same_excerpt(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> bool:
    """Near-duplicate references: some span of ``a`` and some of ``b`` overlap with an IoU of
    at least :data:`EXCERPT_OVERLAP`."""
    for a_start, a_end in a:
        for b_start, b_end in b:
            shared = min(a_end, b_end) - max(a_start, b_start)
            if shared > 0 and shared / (max(a_end, b_end) - min(a_start, b_start)) \
                    >= EXCERPT_OVERLAP:
                return True
    return False


@dataclass(frozen=True)
class Candidate:
    """A question with its located references, before deduplication."""

    question: str
    corpus_id: str
    spans: tuple[tuple[int, int], ...]
    kind: str = "text"


def duplicate_of(candidate: Candidate, kept: Sequence[Candidate]) -> str | None:
    """Why ``candidate`` repeats one of ``kept`` (same document), or None."""
    for other in kept:
        if other.corpus_id != candidate.corpus_id:
            continue
        if similar_questions(candidate.question, other.question):
            return f"near-duplicate of the question {other.question!r}"
        if same_excerpt(candidate.spans, other.spans):
            return f"asks about the same excerpt as {other.question!r}"
    return None

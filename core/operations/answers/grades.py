"""Grades of one RAG answer without an LLM, from what ChunkLab already knows: the question's
reference excerpts (and its alternatives: other places that answer it as well), the sources in
the prompt (its citations) and the answer's markers.

- ``cited``: the answer cites at least one source;
- ``citations_valid``: the share of the sources it cites that are in the prompt;
- ``citations_supported``: the share of the sources it cites whose passage overlaps an
  excerpt that answers the question — a reference or an alternative's (same document,
  overlapping characters): each of those places holds the answer, so citing any is support;
- ``statements_supported``: the share of its cited statements (the text before a run of
  markers, back to the previous marker or the start of the line) whose cited passages hold at
  least half of the statement's content words: a format that makes a model cite at random
  lowers it;
- ``reference_coverage``: the share of the reference excerpts' content words found in the
  answer (a recall proxy; none for an unanswerable question); with alternatives, the best
  share over the references and each alternative, as retrieval scores the best one found;
- ``abstained``: the answer says the sources do not answer (:func:`abstains`);
  ``abstention_right``: it abstained exactly when the question is unanswerable, so a wrong
  abstention on an answerable question counts against it as much as a made-up answer;
- answer tokens, seconds, and the sentences it repeats.

A share is None when it has nothing to count (no citation; no reference words).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.assembly.citations import CitationCheck
from core.assembly.model import Citation
from core.evaluation.questions import Reference
from core.text.sentences import sentences

Span = tuple[int, int]

# Phrases of an answer that declines: "I do not know", "the sources do not say", ...
_ABSTAIN = re.compile(
    r"\b(?:i\s+(?:do\s+not|don'?t|cannot|can'?t)\s+(?:know|tell|answer|find)"
    r"|(?:do|does|did)\s+not\s+(?:say|state|mention|specify|contain|include|provide|answer"
    r"|address|cover\s+this|give)"
    r"|(?:doesn'?t|don'?t)\s+(?:say|state|mention|specify|contain|include|provide|answer)"
    r"|no\s+(?:information|mention|answer|details?)\s+(?:about|on|of|in|is|are|to)"
    r"|not\s+(?:enough|sufficient)\s+information|insufficient\s+information"
    r"|(?:cannot|can'?t|unable\s+to)\s+(?:be\s+)?(?:answer|determin|find|tell)\w*"
    r"|not\s+(?:mentioned|stated|specified|provided|covered|answered)\s+in)",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
STOPWORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in "
    "into is it its may might must no nor not of on or our per shall should so such than that "
    "the their them then there these they this those to under up upon was we were what when "
    "where which while who whom why will with would you your".split()
)


def content_words(text: str) -> set[str]:
    """Lower-cased words that carry content: stop words dropped, numbers kept."""
    return {w for w in (m.group(0).lower() for m in _WORD.finditer(text))
            if w not in STOPWORDS and (len(w) > 1 or w.isdigit())}


def abstains(answer: str, cited: bool) -> bool:
    """The answer declines: an abstaining phrase in its first sentence, or anywhere in an
    answer that cites nothing."""
    opening = next(iter(sentences(answer)), "")
    return bool(_ABSTAIN.search(opening) or (not cited and _ABSTAIN.search(answer)))


SUPPORTED_SHARE = 0.5  # of a statement's content words found in the passages it cites


def statements(answer: str, check: CitationCheck) -> list[tuple[str, list[int]]]:
    """Each cited statement of ``answer`` with the numbers it cites: the text from the end of
    the previous marker (or the start of its line) to a run of markers (markers separated by
    spaces, commas or semicolons only)."""
    out: list[tuple[str, list[int]]] = []
    hits, cursor, i = check.hits, 0, 0
    while i < len(hits):
        text = answer[cursor:hits[i].start].rsplit("\n", 1)[-1]
        numbers, j = [hits[i].number], i + 1
        while j < len(hits) and not answer[hits[j - 1].end:hits[j].start].strip(" ,;"):
            numbers.append(hits[j].number)
            j += 1
        out.append((text, numbers))
        cursor, i = hits[j - 1].end, j
    return out


def statements_supported(answer: str, check: CitationCheck,
                         passages: Sequence[str]) -> float | None:
    """The share of the answer's statements citing a passage of the prompt whose cited
    passages (``passages[n - 1]`` for marker ``n``) hold :data:`SUPPORTED_SHARE` of its
    content words; None when no statement cites one."""
    judged = supported = 0
    for text, numbers in statements(answer, check):
        words = content_words(text)
        cited = [passages[n - 1] for n in numbers if 0 < n <= len(passages)]
        if not words or not cited:
            continue
        judged += 1
        found = content_words(" ".join(cited))
        supported += len(words & found) >= SUPPORTED_SHARE * len(words)
    return supported / judged if judged else None


def _overlaps(spans: Sequence[Span], references: Sequence[Span]) -> bool:
    return any(s < re_ and rs < e for s, e in spans for rs, re_ in references)


@dataclass(frozen=True)
class AnswerGrades:
    cited: bool
    citations: int  # distinct sources cited (known or not)
    citations_valid: float | None
    citations_supported: float | None
    reference_coverage: float | None
    abstained: bool
    abstention_right: bool
    tokens: int
    seconds: float
    repeats: int  # sentences said more than once
    statements_supported: float | None = None  # None too for runs graded before it was

    def value(self, metric: str) -> float | None:
        """The grade as a number (a yes/no as 1/0), None when it has nothing to count."""
        raw = getattr(self, metric)
        return float(raw) if raw is not None else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnswerGrades:
        return cls(**data)


def _coverage(found: set[str], option: Sequence[Reference]) -> float | None:
    """The share of ``option``'s content words in ``found``; None when it has none."""
    wanted = content_words(" ".join(r.content for r in option))
    return len(wanted & found) / len(wanted) if wanted else None


def grade_answer(answer: str, check: CitationCheck, citations: Sequence[Citation], *,
                 doc_of: Callable[[Reference], str], accepted: Sequence[Sequence[Reference]],
                 answerable: bool, tokens: int, seconds: float,
                 passages: Sequence[str] = ()) -> AnswerGrades:
    """Grade ``answer`` (checked against the prompt's ``citations``, whose passage texts are
    ``passages``, in order) for a question that any one of ``accepted`` answers
    (:attr:`Question.options`: its references, then each alternative); ``doc_of`` gives the
    doc_id of the document a reference lies in (an alternative may lie in another)."""
    cited = [*check.used, *check.unknown]
    by_marker = {c.marker: c for c in citations}
    places = [(doc_of(r), r.span) for option in accepted for r in option]
    supported = [m for m in check.used
                 if _overlaps(by_marker[m].span_offsets,
                              [span for doc_id, span in places if doc_id == by_marker[m].doc_id])]
    found = content_words(answer)
    shares = [s for option in accepted if (s := _coverage(found, option)) is not None]
    abstained = abstains(answer, bool(cited))
    return AnswerGrades(
        cited=bool(cited),
        citations=len(cited),
        citations_valid=len(check.used) / len(cited) if cited else None,
        citations_supported=len(supported) / len(cited) if cited else None,
        reference_coverage=max(shares) if shares and answerable else None,
        abstained=abstained,
        abstention_right=abstained != answerable,
        tokens=tokens,
        seconds=seconds,
        repeats=len(check.repeats),
        statements_supported=statements_supported(answer, check, passages),
    )

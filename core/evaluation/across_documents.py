"""Scoring a question whose accepted places lie in several documents (an alternative in another
document): chunks retrieved from any of them, each counting only against the references of its
own document.

Each document gets a block of offsets of its own — the documents in corpus-id order, each moved
past the ones before it plus one character, so that no two blocks touch — and the moved ranges
are scored by :func:`core.evaluation.metrics.score_alternatives` unchanged: a chunk and a
reference of different documents never share a character there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.evaluation.metrics import QuestionScore, Range, score_alternatives
from core.evaluation.questions import Question


@dataclass(frozen=True)
class Place:
    """A range of one document's text (a chunk or a reference)."""

    corpus_id: str
    start: int
    end: int


def question_places(question: Question) -> list[list[Place]]:
    """Each of the question's options (its references, then each alternative) as places."""
    return [[Place(question.corpus_of(r), r.start, r.end) for r in option]
            for option in question.options]


def score_across_documents(
    retrieved: Sequence[Place], options: Sequence[Sequence[Place]],
    all_chunks: Sequence[Place], lengths: Mapping[str, int], retrieved_tokens: int = 0,
) -> tuple[QuestionScore, int]:
    """:func:`~core.evaluation.metrics.score_alternatives` over places of the documents whose
    text lengths ``lengths`` gives: ``retrieved`` in rank order, ``all_chunks`` every chunk of
    those documents (for precisionΩ). A place in no document of ``lengths``, or beyond its
    document's end, is an error (it would spill into another document's block)."""
    shifts: dict[str, int] = {}
    total = 0
    for corpus_id in sorted(lengths):
        shifts[corpus_id] = total
        total += lengths[corpus_id] + 1

    def moved(places: Sequence[Place]) -> list[Range]:
        ranges = []
        for place in places:
            if place.corpus_id not in shifts:
                raise ValueError(f"no document {place.corpus_id!r} to score against")
            if not 0 <= place.start <= place.end <= lengths[place.corpus_id]:
                raise ValueError(f"{place.start}–{place.end} lies outside {place.corpus_id!r}'s "
                                 f"{lengths[place.corpus_id]} characters")
            shift = shifts[place.corpus_id]
            ranges.append((place.start + shift, place.end + shift))
        return ranges

    return score_alternatives(moved(retrieved), [moved(option) for option in options],
                              moved(all_chunks), retrieved_tokens)

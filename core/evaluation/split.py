"""The question set cut in two for a tune: a **search part** every trial is scored on and a
**held-back part** the recommendation is reported on (choosing the best of many trials on the
questions that report it would flatter it). The cut is per document and seeded, so the same set
is always cut the same way."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from core.evaluation.questions import Question, QuestionSet, QuestionSetError

HELD_BACK_SHARE = 0.3
SPLIT_SEED = 0
MIN_QUESTIONS = 8  # below this a split leaves too little on either side to tell anything


@dataclass(frozen=True)
class Split:
    """The question set cut in two, per document, the same way every time for the same set."""

    search: QuestionSet
    held_back: QuestionSet
    share: float
    seed: int
    by_document: dict[str, tuple[int, int]]  # corpus_id -> (search, held back)

    def to_json(self) -> dict[str, Any]:
        return {"search": len(self.search.questions), "held_back": len(self.held_back.questions),
                "held_back_share": self.share, "seed": self.seed, "stratified_by": "document",
                "by_document": {cid: list(counts) for cid, counts in self.by_document.items()}}


def tune_minimum() -> str:
    """What a question set needs to be tuned on, in one sentence."""
    return (f"Tune needs at least {MIN_QUESTIONS} valid questions, some of them on a document "
            "with two or more.")


def too_few(question_set: QuestionSet) -> str:
    """Why ``question_set`` cannot be split for a tune, or '' when it can: it needs
    :data:`MIN_QUESTIONS` questions, some document with two or more (one to hold back)."""
    questions = question_set.questions
    per_document: dict[str, int] = defaultdict(int)
    for q in questions:
        per_document[q.corpus_id] += 1
    if len(questions) >= MIN_QUESTIONS and max(per_document.values(), default=0) >= 2:
        return ""
    return f"{tune_minimum()[:-1]}, to hold some back; this set has {len(questions)}."


def split_questions(question_set: QuestionSet, share: float = HELD_BACK_SHARE,
                    seed: int = SPLIT_SEED) -> Split:
    """Hold back ``share`` of each document's questions (rounded; a document with one question
    keeps it for the search), chosen by a generator seeded with ``seed`` and the document."""
    if not 0 < share < 1:
        raise QuestionSetError(f"The held-back share must be between 0 and 1, not {share}.")
    if problem := too_few(question_set):
        raise QuestionSetError(problem)
    by_document: dict[str, list[Question]] = defaultdict(list)
    for q in question_set.questions:
        by_document[q.corpus_id].append(q)
    held: set[tuple[str, int]] = set()
    counts = {}
    for corpus_id, questions in sorted(by_document.items()):
        n_held = min(len(questions) - 1, round(len(questions) * share))
        picked = random.Random(f"{seed}:{corpus_id}").sample(questions, n_held)
        held |= {(q.corpus_id, q.row) for q in picked}
        counts[corpus_id] = (len(questions) - n_held, n_held)
    search = tuple(q for q in question_set.questions if (q.corpus_id, q.row) not in held)
    back = tuple(q for q in question_set.questions if (q.corpus_id, q.row) in held)
    if not back:  # every document with two or more rounded its share to nothing
        raise QuestionSetError(f"Holding back {share:.0%} of each document's questions leaves "
                               "none held back: raise the share or add questions.")
    name = question_set.name
    return Split(QuestionSet(f"{name} (tune: search part)", search),
                 QuestionSet(f"{name} (tune: held back)", back), share, seed, counts)

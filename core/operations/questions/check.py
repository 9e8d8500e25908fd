"""What would spoil a run of a question set, found before it starts: references not found in
their document (the rows :func:`core.evaluation.questions.validate` skips), references in front
matter (a contents page, an index: retrieval leaves those out), references too short or only a
heading to tell a right chunk from a wrong one, questions without a content word, duplicates
and near-duplicates (they count one question twice), and how many questions the set needs for
the differences it is meant to tell apart (:func:`core.evaluation.stats.questions_needed`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.documents.model import Document
from core.evaluation.excerpts import (
    empty_question,
    rejection,
    same_excerpt,
    similar_questions,
)
from core.evaluation.questions import Question, QuestionSet, validate
from core.evaluation.stats import questions_needed
from core.operations.questions.sets import LoadedSet

DIFFERENCE = 0.05  # the difference in recall (or hit rate) a set is meant to tell, by default
WINS_PER_LOSS = 3  # assumed: the better one does better on three questions for each it loses

NOT_FOUND, FRONT_MATTER, SHORT, NO_CONTENT, DUPLICATE, NEAR_DUPLICATE = (
    "reference not found", "reference in front matter", "reference too short",
    "no content word", "duplicate", "near-duplicate")
KINDS = (NOT_FOUND, FRONT_MATTER, SHORT, NO_CONTENT, DUPLICATE, NEAR_DUPLICATE)


@dataclass(frozen=True)
class Finding:
    kind: str  # one of KINDS
    row: int  # spreadsheet row, the header being row 1
    corpus_id: str
    question: str
    detail: str


@dataclass(frozen=True)
class SetSize:
    """How many questions it takes to tell ``difference`` apart, against how many there are."""

    difference: float
    needed: int | None
    questions: int  # answerable questions the run would score

    def sentence(self) -> str:
        points = f"{self.difference * 100:g} points of recall"
        if self.needed is None:
            return f"No number of questions would tell {points} apart."
        enough = "enough" if self.questions >= self.needed else "too few"
        return (f"To tell {points} apart (the better configuration ahead on {WINS_PER_LOSS} "
                f"questions for each it is behind on), a set needs about {self.needed:,} "
                f"answerable questions; this one has {self.questions:,}: {enough}.")


@dataclass(frozen=True)
class SetCheck:
    name: str
    rows: int  # questions read, valid or not
    findings: tuple[Finding, ...]
    size: SetSize

    def counts(self) -> dict[str, int]:
        return {kind: sum(f.kind == kind for f in self.findings) for kind in KINDS}

    def summary(self) -> str:
        found = {k: n for k, n in self.counts().items() if n}
        if not found:
            return f"Nothing found that would spoil a run of the {self.rows} questions."
        return (f"{len(self.findings)} finding{'s' * (len(self.findings) != 1)} in "
                f"{self.rows} questions: " + ", ".join(f"{n} {k}" for k, n in found.items())
                + ".")

    def to_json(self) -> dict[str, Any]:
        return {"question_set": self.name, "rows": self.rows, "summary": self.summary(),
                "counts": self.counts(), "findings": [asdict(f) for f in self.findings],
                "size": asdict(self.size) | {"sentence": self.size.sentence()}}


def check_set(loaded: LoadedSet, difference: float = DIFFERENCE) -> SetCheck:
    """Every finding, row by row, and the size the set needs to tell ``difference``."""
    question_set = loaded.questions
    findings = [Finding(NOT_FOUND, p.row, p.corpus_id, "", p.reason)
                for p in question_set.problems]
    earlier: list[Question] = []
    for question in question_set.questions:
        findings += _own_findings(question, loaded)
        findings += _repeats(question, earlier)
        earlier.append(question)
    findings.sort(key=lambda f: (f.row, KINDS.index(f.kind)))
    answerable = sum(q.answerable for q in question_set.questions)
    behind = difference / (WINS_PER_LOSS - 1)  # ahead − behind = difference
    needed = questions_needed(WINS_PER_LOSS * behind, behind)
    return SetCheck(question_set.name, len(question_set.questions) + len(question_set.problems),
                    tuple(findings), SetSize(difference, needed, answerable))


def check_questions(name: str, questions: Sequence[Question], documents: Mapping[str, Document],
                    difference: float = DIFFERENCE) -> SetCheck:
    """:func:`check_set` for questions being written (``corpus_id``: a key of ``documents``)."""
    question_set = validate(QuestionSet(name, tuple(questions)), documents)
    used = {cid: documents[cid] for q in question_set.questions for cid in q.corpus_ids}
    return check_set(LoadedSet(question_set, used), difference)


def _own_findings(question: Question, loaded: LoadedSet) -> list[Finding]:
    def found(kind: str, detail: str) -> Finding:
        return Finding(kind, question.row, question.corpus_id, question.question, detail)

    out = []
    if (empty := empty_question(question.question)) is not None:
        out.append(found(NO_CONTENT, empty))
    for name, reference in question.named_references():
        document = loaded.documents[question.corpus_of(reference)]
        role = document.matter_of(reference.start, reference.end)
        if role is not None:
            out.append(found(FRONT_MATTER, f"{name} lies in the document's {role}, which "
                                           "retrieval leaves out"))
        elif (weak := rejection(reference.span, document)) is not None:
            out.append(found(SHORT, f"{name}: {weak}"))
    return out


def _repeats(question: Question, earlier: list[Question]) -> list[Finding]:
    for other in earlier:
        if other.corpus_id != question.corpus_id:
            continue
        if " ".join(other.question.lower().split()) == " ".join(question.question.lower().split()):
            kind, detail = DUPLICATE, f"the same question as row {other.row}"
        elif similar_questions(other.question, question.question):
            kind, detail = NEAR_DUPLICATE, f"nearly the same question as row {other.row}"
        elif question.references and same_excerpt([r.span for r in other.references],
                                                  [r.span for r in question.references]):
            kind, detail = NEAR_DUPLICATE, f"asks about the same excerpt as row {other.row}"
        else:
            continue
        return [Finding(kind, question.row, question.corpus_id, question.question, detail)]
    return []

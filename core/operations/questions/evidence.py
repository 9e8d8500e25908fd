"""Candidate evidence for hand-written questions: the passages of a question's document that
best match its distinctive words, for the user to pick as its reference.

Lexical only, never the embedder a run will evaluate: references chosen with its help would
favour it. A passage is a sentence or a table row of the document (a row also holds its table's
header words, which say what its cells are), or two neighbouring ones of the same block, each
also holding the words of the headings above it; front matter (contents pages, indexes) is left
out, as retrieval leaves it out. A passage scores the summed rarity (BM25's IDF) of the
question's content-word stems it holds, each counted once and with no penalty for length: a
passage is at most two sentences, and a long sentence that names what the question asks is no
worse for it. The passages shown for a question do not overlap each other. A question that
already has a reference is marked found when one of its passages shares characters with the
reference (with any one of its alternatives).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.documents.model import Document
from core.evaluation.answer_excerpt import units
from core.evaluation.excerpts import content_stems
from core.evaluation.metrics import Range, touches
from core.evaluation.questions import Question, QuestionSet, validate
from core.operations.questions.sets import LoadedSet
from core.retrieval.bm25 import BM25Index

TOP = 3  # passages shown per question
WINDOW = 2  # most sentences (or rows) in one passage


@dataclass(frozen=True)
class Passage:
    start: int
    end: int
    text: str  # == document.text[start:end]
    score: float  # the summed IDF of the question's stems it holds; only the order means much
    pages: tuple[int, ...]  # pages of a paginated original it was read from, else empty
    reference: bool  # shares characters with the question's stored reference


@dataclass(frozen=True)
class QuestionEvidence:
    row: int  # spreadsheet row, the header being row 1 (0 for a question not yet in a set)
    corpus_id: str
    question: str
    passages: tuple[Passage, ...]
    has_reference: bool

    @property
    def found(self) -> bool | None:
        """Whether a passage is the stored reference; None when there is none to look for."""
        return any(p.reference for p in self.passages) if self.has_reference else None


@dataclass(frozen=True)
class SetEvidence:
    name: str
    top: int
    questions: tuple[QuestionEvidence, ...]

    def counts(self) -> tuple[int, int]:
        """(questions whose reference is among their passages, questions with a reference)."""
        judged = [q.found for q in self.questions if q.found is not None]
        return sum(judged), len(judged)

    def summary(self) -> str:
        found, judged = self.counts()
        listed = (f"The best {self.top} passages of {len(self.questions)} "
                  f"question{'s' * (len(self.questions) != 1)}")
        if not judged:
            return f"{listed}; none has a reference yet to compare them with."
        return (f"{listed}: the stored reference is among them for {found} of the {judged} "
                f"with a reference.")

    def to_json(self) -> dict[str, Any]:
        found, judged = self.counts()
        return {"question_set": self.name, "top": self.top, "summary": self.summary(),
                "found": found, "with_reference": judged,
                "questions": [asdict(q) | {"found": q.found} for q in self.questions]}


class PassageIndex:
    """The passages of one document, indexed once for every question asked about it."""

    def __init__(self, document: Document) -> None:
        self.document = document
        text = document.text
        found = [u for u in units(document, 0, len(text))
                 if document.matter_of(u.start, u.end) is None]
        self.windows: list[Range] = []
        stems: list[str] = []
        for first, unit in enumerate(found):
            for last in range(first, min(first + WINDOW, len(found))):
                if found[last].block != unit.block:
                    break
                self.windows.append((unit.start, found[last].end))
                words = set().union(*(u.stems for u in found[first : last + 1]))
                words |= self._context(unit.start)
                stems.append(" ".join(sorted(words)))
        self.bm25 = BM25Index(stems, b=0.0)  # no length normalisation

    def _context(self, position: int) -> set[str]:
        """The words of the headings above ``position``: what its section is about."""
        return content_stems(" ".join(self.document.heading_path(position)))

    def best(self, question: str, references: Sequence[Sequence[Range]] = (),
             top: int = TOP) -> list[Passage]:
        """The ``top`` best-matching passages, no two overlapping, best first;
        ``references``: the question's reference spans, one list per alternative."""
        if not self.windows:
            return []
        scores = self.bm25.scores(" ".join(sorted(content_stems(question))))
        order = sorted(range(len(self.windows)), key=lambda i: (-scores[i], i))
        chosen: list[int] = []
        for i in order:
            if len(chosen) == top or scores[i] <= 0:
                break
            if not touches(self.windows[i], [self.windows[j] for j in chosen]):
                chosen.append(i)
        spans = [span for alternative in references for span in alternative]
        return [self._passage(self.windows[i], float(scores[i]), spans) for i in chosen]

    def _passage(self, span: Range, score: float, references: Sequence[Range]) -> Passage:
        start, end = span
        pages, _ = self.document.provenance(start, end)
        return Passage(start, end, self.document.text[start:end], round(score, 4),
                       tuple(pages), touches(span, references))


def question_evidence(question: Question, index: PassageIndex, top: int = TOP) -> QuestionEvidence:
    """The best passages for one question of ``index``'s document."""
    return QuestionEvidence(question.row, question.corpus_id, question.question,
                            tuple(index.best(question.question, question.accepted, top)),
                            bool(question.references))


def find_evidence(loaded: LoadedSet, top: int = TOP) -> SetEvidence:
    """The best ``top`` passages of every valid question of the set (each in its document)."""
    indexes = {cid: PassageIndex(doc) for cid, doc in loaded.documents.items()}
    return SetEvidence(loaded.questions.name, top, tuple(
        question_evidence(q, indexes[q.corpus_id], top) for q in loaded.questions.questions))


def evidence_for_questions(name: str, questions: Sequence[Question],
                           documents: Mapping[str, Document], top: int = TOP) -> SetEvidence:
    """:func:`find_evidence` for questions being written (``corpus_id``: a key of
    ``documents``); questions whose document or reference is missing are left out."""
    question_set = validate(QuestionSet(name, tuple(questions)), documents)
    used = {cid: documents[cid] for q in question_set.questions for cid in q.corpus_ids}
    return find_evidence(LoadedSet(question_set, used), top)

"""The working question set of the Question sets page, without Streamlit: what replaces it,
what makes it unsaved and what saves it, its rows numbered as its CSV, and the draft kept for
a new session while (and only while) it has unsaved changes; an edit keeps what it should."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.documents import convert
from core.documents.model import Document
from core.evaluation.questions import UNANSWERABLE, Question, Reference
from core.operations.questions.sets import (
    Draft,
    alternative_from_excerpt,
    edited_question,
    load_draft,
    make_question,
)
from core.operations.questions.working import NEW_SET, WorkingSet, keep
from tests.docfactory import CLAIMS_HANDBOOK


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture(scope="module")
def handbook() -> Document:
    return convert(CLAIMS_HANDBOOK.encode(), "claims_handbook.md")


def _asked(document: Document, text: str, excerpt: str) -> Question:
    start = document.text.index(excerpt)
    return make_question(document, text, start, start + len(excerpt))


@pytest.fixture(scope="module")
def questions(handbook: Document) -> list[Question]:
    return [_asked(handbook, "How long is the waiting period?", "Water damage claims have a "
                   "waiting period of thirty days"),
            _asked(handbook, "When are fire claims paid?", "Fire claims are paid within ten "
                   "working days")]


def test_a_session_starts_from_the_draft_or_from_a_new_empty_set(questions):
    assert WorkingSet.resumed(None) == WorkingSet(NEW_SET, (), dirty=False)
    resumed = WorkingSet.resumed(Draft("claims", tuple(questions), ("3 asked",)))
    assert resumed.name == "claims" and resumed.dirty
    assert [q.row for q in resumed.questions] == [2, 3]


def test_opening_is_clean_and_an_edit_makes_it_unsaved_and_renumbers(questions):
    opened = WorkingSet.opened("claims", questions[::-1])
    assert not opened.dirty
    assert [(q.row, q.question) for q in opened.questions] == [
        (2, "When are fire claims paid?"), (3, "How long is the waiting period?")]
    edited = opened.edited(opened.questions[1:])
    assert edited.dirty and edited.name == "claims"
    assert [(q.row, q.question) for q in edited.questions] == [
        (2, "How long is the waiting period?")]
    assert not opened.dirty  # frozen: the set before the edit is unchanged


def test_a_generated_set_is_unsaved_until_saved_under_its_new_name(questions):
    generated = WorkingSet.generated("generated", questions)
    assert generated.dirty and [q.row for q in generated.questions] == [2, 3]
    saved = generated.saved("claims set")
    assert saved == WorkingSet("claims set", generated.questions, dirty=False)


def test_the_draft_is_kept_while_unsaved_and_gone_once_saved(data, questions):
    working = WorkingSet.generated("claims", questions)
    keep(working, ["2 questions asked", "dropped: why"])
    draft = load_draft()
    assert draft is not None
    assert draft.name == "claims" and draft.dropped == ("2 questions asked", "dropped: why")
    assert [q.question for q in draft.questions] == [q.question for q in questions]
    assert WorkingSet.resumed(draft) == working
    keep(working.saved("claims"), ["2 questions asked"])
    assert load_draft() is None


def test_opening_a_set_discards_the_draft(data, questions):
    keep(WorkingSet.generated("claims", questions))
    keep(WorkingSet.opened("other", questions))
    assert load_draft() is None


def test_an_edit_keeps_the_alternatives_unless_the_question_becomes_unanswerable(handbook):
    asked = _asked(handbook, "How do I report a claim?", "Claims are reported by phone")
    with_other = alternative_from_excerpt(asked, handbook, "through the online portal")
    start, end = asked.references[0].span
    reworded = edited_question(with_other, handbook, "How is a claim reported?", start, end,
                               "text")
    assert reworded.question == "How is a claim reported?"
    assert reworded.alternatives == with_other.alternatives
    unanswerable = edited_question(with_other, handbook, "How is a claim reported?", start,
                                   end, UNANSWERABLE)
    assert unanswerable.kind == UNANSWERABLE and unanswerable.alternatives == ()


def test_an_edit_keeps_further_references_only_while_the_first_excerpt_stays(handbook):
    first = _asked(handbook, "What does fire cover?", "Fire claims are paid").references[0]
    second = _asked(handbook, "What does smoke cover?", "Smoke damage to furniture").references[0]
    question = Question(2, "What about fire?", "claims_handbook.md", (first, second))
    kept = edited_question(question, handbook, "What about fire claims?", *first.span, "text")
    assert kept.references == (first, second)
    moved = edited_question(question, handbook, "What about fire claims?", first.start,
                            first.end + 5, "table")
    assert moved.kind == "table"
    assert moved.references == (Reference(handbook.text[first.start:first.end + 5],
                                          first.start, first.end + 5),)

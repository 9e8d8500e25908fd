"""Question sets as the pages and the CLI load them, each with the documents it asks about.

A shipped set (one or all of ``sample_docs/questions``) is asked about the sample documents, as
the library converted them; an uploaded or saved set about the library's documents, matched by
file name; a set given to the CLI about the files of a folder. Saved sets (generated or edited
by the user) are kept as the same CSV under ``data_dir()/question_sets``. Every set is
validated reference by reference (:func:`core.evaluation.questions.validate`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from core.config import SAMPLE_QUESTIONS_DIR, SAMPLES_DIR, data_dir
from core.documents import convert
from core.documents.model import Document, content_id
from core.evaluation.excerpts import locate, rejection
from core.evaluation.questions import (
    KINDS,
    Question,
    QuestionSet,
    QuestionSetError,
    Reference,
    RowProblem,
    corpus_files,
    match_corpus_ids,
    parse_questions,
    to_csv,
    validate,
)
from core.files import read_json_object, write_atomic, write_json
from core.library import DocumentLibrary, UnknownDocumentError

SET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.\-]{0,59}")
DRAFT_FILE = "question_draft.json"  # in the data folder, beside (not among) the saved sets


@dataclass(frozen=True)
class LoadedSet:
    """A validated question set and the documents its corpus ids name (those its
    alternatives name included)."""

    questions: QuestionSet
    documents: dict[str, Document]


def shipped_sets() -> list[Path]:
    """The question sets shipped with the sample documents."""
    return sorted(SAMPLE_QUESTIONS_DIR.glob("*.csv")) if SAMPLE_QUESTIONS_DIR.is_dir() else []


def _sample(path: Path, library: DocumentLibrary | None) -> Document:
    """The library's conversion of a sample (made at first start), else a fresh conversion
    (the user removed it from the library)."""
    data = path.read_bytes()
    if library is not None:
        try:
            return library.get(content_id(data))
        except UnknownDocumentError:
            pass
    return convert(data, path.name)


def load_shipped(paths: Sequence[Path], name: str,
                 library: DocumentLibrary | None = None) -> LoadedSet:
    """Shipped sets, concatenated (rows keep their own file's numbers)."""
    questions: list[Question] = []
    problems: list[RowProblem] = []
    for path in paths:
        parsed = parse_questions(path.read_bytes(), path.name)
        questions += parsed.questions
        problems += parsed.problems
    question_set = QuestionSet(name, tuple(questions), tuple(problems))
    files = corpus_files(question_set.corpus_ids, SAMPLES_DIR)
    documents = {cid: _sample(path, library) for cid, path in files.items()}
    return LoadedSet(validate(question_set, documents), documents)


def load_uploaded(data: bytes, filename: str, library: DocumentLibrary) -> LoadedSet:
    """An uploaded CSV, asked about the library's documents (corpus_id = a file name)."""
    question_set = parse_questions(data, filename)
    by_name = {doc.source_name: doc for doc in library.documents()}
    matched = match_corpus_ids(question_set.corpus_ids, by_name)
    documents = {cid: by_name[name] for cid, name in matched.items()}
    return LoadedSet(validate(question_set, documents), documents)


def load_from_folder(csv_path: Path, docs_folder: Path) -> LoadedSet:
    """A question set file and the documents of a folder, converted."""
    question_set = parse_questions(csv_path.read_bytes(), csv_path.name)
    files = corpus_files(question_set.corpus_ids, docs_folder)
    documents = {cid: convert(path.read_bytes(), path.name) for cid, path in files.items()}
    return LoadedSet(validate(question_set, documents), documents)


def _saved_dir() -> Path:
    return data_dir() / "question_sets"


def saved_sets() -> list[str]:
    """Names of the question sets the user saved, sorted."""
    folder = _saved_dir()
    return sorted(p.stem for p in folder.glob("*.csv")) if folder.is_dir() else []


def _saved_path(name: str) -> Path:
    if not SET_NAME.fullmatch(name):
        raise QuestionSetError(
            "A question set name has 1–60 letters, digits, spaces, dots, dashes or underscores "
            "and starts with a letter or digit.")
    return _saved_dir() / f"{name}.csv"


def save_set(name: str, questions: Sequence[Question]) -> Path:
    """Write (or replace) the saved set ``name`` as CSV, atomically."""
    path = _saved_path(name)
    write_atomic(path, to_csv(questions))
    return path


def saved_csv(name: str) -> bytes:
    path = _saved_path(name)
    if not path.is_file():
        raise QuestionSetError(f"There is no saved question set named {name!r}.")
    return path.read_bytes()


def load_saved(name: str, library: DocumentLibrary) -> LoadedSet:
    """A saved set, asked about the library's documents."""
    loaded = load_uploaded(saved_csv(name), f"{name}.csv", library)
    return LoadedSet(QuestionSet(name, loaded.questions.questions, loaded.questions.problems),
                     loaded.documents)


def delete_saved(name: str) -> None:
    _saved_path(name).unlink(missing_ok=True)


@dataclass(frozen=True)
class Draft:
    """A question set being made that is not saved yet (generated, edited), with the generated
    questions the generator dropped and why."""

    name: str
    questions: tuple[Question, ...]
    dropped: tuple[str, ...] = ()


def save_draft(draft: Draft) -> None:
    """Keep ``draft`` in the data folder until it is saved or discarded, so a reload, a new tab
    or a restart finds it (one draft: the data folder is one user's workspace)."""
    write_json(data_dir() / DRAFT_FILE, {"name": draft.name,
                                         "questions": to_csv(draft.questions).decode("utf-8"),
                                         "dropped": list(draft.dropped)}, ensure_ascii=False)


def load_draft() -> Draft | None:
    """The kept draft (None when there is none, or it cannot be read)."""
    saved = read_json_object(data_dir() / DRAFT_FILE)
    name, text, dropped = saved.get("name"), saved.get("questions"), saved.get("dropped", [])
    if not isinstance(name, str) or not isinstance(text, str) or not isinstance(dropped, list):
        return None
    try:
        questions = parse_questions(text, DRAFT_FILE).questions
    except QuestionSetError:  # a draft with every question deleted
        questions = ()
    return Draft(name, questions, tuple(str(d) for d in dropped))


def discard_draft() -> None:
    (data_dir() / DRAFT_FILE).unlink(missing_ok=True)


def make_question(document: Document, question: str, start: int, end: int,
                  kind: str = "text") -> Question:
    """A question asked about ``document`` whose answer is ``text[start:end]`` (an edit or a
    question added by selecting text); refused with a sentence when the span cannot serve."""
    if not question.strip():
        raise QuestionSetError("Write the question first.")
    if kind not in KINDS:
        raise QuestionSetError(f"A question is of kind {' or '.join(KINDS)}, not {kind!r}.")
    if not 0 <= start < end <= len(document.text):
        raise QuestionSetError(
            f"The excerpt must lie within the document's {len(document.text):,} characters "
            f"and end after it starts (got {start:,}–{end:,}).")
    reason = rejection((start, end), document)
    if reason:
        raise QuestionSetError(f"This excerpt cannot answer a question: {reason}.")
    return Question(0, question.strip(), document.source_name,
                    (Reference(document.text[start:end], start, end),), kind)


def edited_question(question: Question, document: Document, text: str, start: int, end: int,
                    kind: str) -> Question:
    """``question`` with its text, excerpt and kind edited (:func:`make_question`). It keeps
    its further references while its first excerpt stays where it was, and its alternatives
    unless it became unanswerable."""
    edited = make_question(document, text, start, end, kind)
    if len(question.references) > 1 and (start, end) == question.references[0].span:
        edited = replace(edited, references=question.references)
    if edited.answerable:
        edited = replace(edited, alternatives=question.alternatives)
    return edited


def with_alternative(question: Question, document: Document, start: int, end: int) -> Question:
    """``question`` accepting ``text[start:end]`` of ``document`` as well as its references
    (another place that answers it; in another document than the question's own, the reference
    names it by its file name); refused with a sentence when the span cannot serve or that place
    is accepted already."""
    [span] = make_question(document, question.question, start, end).references
    if any(len(option) == 1 and option[0].span == span.span
           and _names(question.corpus_of(option[0]), document) for option in question.options):
        raise QuestionSetError("That excerpt is already accepted for this question.")
    if not question.references:
        raise QuestionSetError("An unanswerable question has no alternatives.")
    own = _names(question.corpus_id, document)
    place = span if own else replace(span, corpus_id=document.source_name)
    return replace(question, alternatives=(*question.alternatives, (place,)))


def _names(corpus_id: str, document: Document) -> bool:
    """Whether ``corpus_id`` names ``document`` (by file name, as sets are matched to the
    library's documents: :func:`match_corpus_ids`)."""
    try:
        match_corpus_ids([corpus_id], [document.source_name])
    except QuestionSetError:
        return False
    return True


def without_alternative(question: Question, number: int) -> Question:
    """``question`` without its alternative ``number`` (1-based)."""
    kept = tuple(a for n, a in enumerate(question.alternatives, 1) if n != number)
    return replace(question, alternatives=kept)


def question_from_excerpt(document: Document, question: str, excerpt: str,
                          kind: str = "text") -> Question:
    """:func:`make_question` for an excerpt pasted from the document (located exactly, or
    with whitespace and case tolerated)."""
    return make_question(document, question, *_located(excerpt, document), kind)


def alternative_from_excerpt(question: Question, document: Document, excerpt: str) -> Question:
    """:func:`with_alternative` for an excerpt pasted from ``document`` (the question's own or
    another)."""
    return with_alternative(question, document, *_located(excerpt, document))


def _located(excerpt: str, document: Document) -> tuple[int, int]:
    span = locate(excerpt, document.text)
    if span is None:
        raise QuestionSetError("That excerpt is not in the document; copy it from the text "
                               "shown (spaces and capitals may differ).")
    return span


def renumbered(questions: Sequence[Question]) -> list[Question]:
    """Rows numbered as in the CSV the set exports to (the header is row 1)."""
    return [replace(q, row=n) for n, q in enumerate(questions, start=2)]

"""Question sets as the pages and the CLI load them, each with the documents it asks about.

A shipped set (one or all of ``sample_docs/questions``) is asked about the sample documents, as
the library converted them; an uploaded set about the library's documents, matched by file name;
a set given to the CLI about the files of a folder. Every set is validated reference by
reference (:func:`core.evaluation.questions.validate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.config import SAMPLE_QUESTIONS_DIR, SAMPLES_DIR
from core.documents import convert
from core.documents.model import Document, content_id
from core.evaluation.questions import (
    Question,
    QuestionSet,
    RowProblem,
    corpus_files,
    match_corpus_ids,
    parse_questions,
    validate,
)
from core.library import DocumentLibrary, UnknownDocumentError


@dataclass(frozen=True)
class LoadedSet:
    """A validated question set and the documents its corpus ids name."""

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
    files = corpus_files({q.corpus_id for q in questions}, SAMPLES_DIR)
    documents = {cid: _sample(path, library) for cid, path in files.items()}
    return LoadedSet(validate(question_set, documents), documents)


def load_uploaded(data: bytes, filename: str, library: DocumentLibrary) -> LoadedSet:
    """An uploaded CSV, asked about the library's documents (corpus_id = a file name)."""
    question_set = parse_questions(data, filename)
    by_name = {doc.source_name: doc for doc in library.documents()}
    matched = match_corpus_ids({q.corpus_id for q in question_set.questions}, by_name)
    documents = {cid: by_name[name] for cid, name in matched.items()}
    return LoadedSet(validate(question_set, documents), documents)


def load_from_folder(csv_path: Path, docs_folder: Path) -> LoadedSet:
    """A question set file and the documents of a folder, converted."""
    question_set = parse_questions(csv_path.read_bytes(), csv_path.name)
    files = corpus_files({q.corpus_id for q in question_set.questions}, docs_folder)
    documents = {cid: convert(path.read_bytes(), path.name) for cid, path in files.items()}
    return LoadedSet(validate(question_set, documents), documents)

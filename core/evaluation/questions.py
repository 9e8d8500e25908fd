"""Question sets: Chroma's evaluation CSV (``question``, ``references``, ``corpus_id``, optional
``kind`` and ``alternatives``), parsed, matched to documents and validated reference by
reference.

A question of kind ``unanswerable`` asks what its document does not say: its references may be
empty (``[]``), and a good answer says the sources do not answer it.

``references`` is a JSON list of ``{"content", "start_index", "end_index"}`` with offsets into the
document's ``Document.text``; a reference is valid when ``text[start_index:end_index] == content``.

``alternatives`` (optional: a file without the column, or a row with it empty, has none) names
other places that answer the question as well (a figure in a table and in the text): a JSON list
whose items are each a list of references like ``references`` (a single reference object stands
for a list of one). A reference of an alternative may name another document with a
``"corpus_id"`` key (a clause repeated in two documents); without it, it lies in the question's
own document. Scoring counts whichever of ``references`` and its alternatives was found best
(:func:`core.evaluation.metrics.score_alternatives`). A set without alternatives is written
without the column, and a reference in the question's own document without the key, as before.
Rows that fail are not evaluated: they come back as :class:`RowProblem` (row number as in a
spreadsheet, the header being row 1, and the reason), never as a traceback. Problems with the
file itself (not CSV, a missing column, no rows, no document for a corpus) raise
:class:`QuestionSetError`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath

from core.documents.model import Document
from core.errors import ChunkLabError

REQUIRED_COLUMNS = ("question", "references", "corpus_id")
UNANSWERABLE = "unanswerable"
KINDS = ("text", "table", UNANSWERABLE)
MAX_SHOWN = 60  # characters of a mismatching text quoted in a problem


class QuestionSetError(ChunkLabError):
    """A question set that cannot be used at all (bad CSV, missing column, missing document)."""


@dataclass(frozen=True)
class Reference:
    content: str
    start: int
    end: int
    corpus_id: str = ""  # its document when not the question's own (only in an alternative)

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


@dataclass(frozen=True)
class Question:
    row: int  # spreadsheet row: the header is row 1
    question: str
    corpus_id: str
    references: tuple[Reference, ...]
    kind: str = "text"
    alternatives: tuple[tuple[Reference, ...], ...] = ()  # other places that answer it as well

    @property
    def answerable(self) -> bool:
        return self.kind != UNANSWERABLE

    def named_references(self) -> list[tuple[str, Reference]]:
        """Every reference with its name in a message: "reference 2", "alternative 1,
        reference 1"."""
        options = [("", self.references)] + [
            (f"alternative {n}, ", option) for n, option in enumerate(self.alternatives, 1)]
        return [(f"{where}reference {index}", ref) for where, option in options
                for index, ref in enumerate(option, 1)]

    def corpus_of(self, reference: Reference) -> str:
        """The document ``reference`` lies in."""
        return reference.corpus_id or self.corpus_id

    @property
    def corpus_ids(self) -> list[str]:
        """The question's document, then each other document an alternative names, in order."""
        named = [self.corpus_of(r) for option in self.alternatives for r in option]
        return list(dict.fromkeys([self.corpus_id, *named]))

    @property
    def options(self) -> list[tuple[Reference, ...]]:
        """``references`` and each alternative: any one answers the question."""
        return [option for option in (self.references, *self.alternatives) if option]

    @property
    def accepted(self) -> list[list[tuple[int, int]]]:
        """The spans of each of :attr:`options` that lies wholly in the question's own
        document: what retrieval over that document alone can find."""
        return [[r.span for r in option] for option in self.options
                if all(self.corpus_of(r) == self.corpus_id for r in option)]


@dataclass(frozen=True)
class RowProblem:
    row: int
    corpus_id: str
    reason: str

    def __str__(self) -> str:
        return f"row {self.row} ({self.corpus_id or 'no corpus'}): {self.reason}"


@dataclass(frozen=True)
class QuestionSet:
    name: str
    questions: tuple[Question, ...]
    problems: tuple[RowProblem, ...] = field(default=())

    @property
    def corpus_ids(self) -> list[str]:
        """Every document the questions ask about or an alternative names, sorted."""
        return sorted({cid for q in self.questions for cid in q.corpus_ids})

    @property
    def version(self) -> str:
        """12 hex digits naming the questions and their references: an edit changes it."""
        return hashlib.sha256(to_csv(self.questions)).hexdigest()[:12]


CSV_COLUMNS = ("question", "references", "corpus_id", "kind")
ALTERNATIVES = "alternatives"


def to_csv(questions: Iterable[Question]) -> bytes:
    """The CSV :func:`parse_questions` reads (``references`` as JSON with exact offsets); the
    ``alternatives`` column only when some question has alternatives."""
    questions = list(questions)
    with_alternatives = any(q.alternatives for q in questions)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS + (ALTERNATIVES,) * with_alternatives)
    for q in questions:
        row = [q.question, _references_json(q.references), q.corpus_id, q.kind]
        if with_alternatives:
            row.append("[" + ", ".join(_references_json(a) for a in q.alternatives) + "]"
                       if q.alternatives else "")
        writer.writerow(row)
    return buffer.getvalue().encode("utf-8")


def _references_json(references: Iterable[Reference]) -> str:
    return json.dumps([{"content": r.content, "start_index": r.start, "end_index": r.end}
                       | ({"corpus_id": r.corpus_id} if r.corpus_id else {})
                       for r in references], ensure_ascii=False)


def parse_questions(data: bytes | str, name: str = "questions.csv") -> QuestionSet:
    """Parse the CSV; rows whose fields are malformed become problems."""
    text = data.decode("utf-8-sig", errors="replace") if isinstance(data, bytes) else data
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = [column.strip() for column in reader.fieldnames or []]
        rows = list(reader)
    except csv.Error as err:
        raise QuestionSetError(f"{name} is not a readable CSV file: {err}.") from None
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        raise QuestionSetError(
            f"{name} lacks the column(s) {', '.join(missing)}; a question set needs "
            f"{', '.join(REQUIRED_COLUMNS)} and optionally kind and {ALTERNATIVES}."
        )
    questions: list[Question] = []
    problems: list[RowProblem] = []
    for number, raw in enumerate(rows, start=2):
        row = {(key or "").strip(): (value or "") for key, value in raw.items()}
        try:
            questions.append(_parse_row(number, row))
        except ValueError as err:
            problems.append(RowProblem(number, row.get("corpus_id", "").strip(), str(err)))
    if not questions and not problems:
        raise QuestionSetError(f"{name} has no questions.")
    return QuestionSet(name, tuple(questions), tuple(problems))


def _parse_row(number: int, row: dict[str, str]) -> Question:
    question, corpus_id = row["question"].strip(), row["corpus_id"].strip()
    if not question:
        raise ValueError("the question is empty")
    if not corpus_id:
        raise ValueError("corpus_id is empty")
    kind = row.get("kind", "").strip().lower() or "text"
    if kind not in KINDS:
        raise ValueError(f"kind is {kind!r}, expected one of {', '.join(KINDS)}")
    try:
        items = json.loads(row["references"])
    except json.JSONDecodeError as err:
        raise ValueError(f"references is not valid JSON ({err.msg})") from None
    if not isinstance(items, list) or (not items and kind != UNANSWERABLE):
        raise ValueError("references must be a non-empty JSON list (empty only for an "
                         "unanswerable question)")
    references = tuple(_reference(index, item) for index, item in enumerate(items, 1))
    alternatives = _alternatives(row.get(ALTERNATIVES, ""))
    if alternatives and not references:
        raise ValueError("an unanswerable question has no alternatives")
    return Question(number, question, corpus_id, references, kind, alternatives)


def _alternatives(cell: str) -> tuple[tuple[Reference, ...], ...]:
    if not cell.strip():
        return ()
    try:
        items = json.loads(cell)
    except json.JSONDecodeError as err:
        raise ValueError(f"{ALTERNATIVES} is not valid JSON ({err.msg})") from None
    if not isinstance(items, list):
        raise ValueError(f"{ALTERNATIVES} must be a JSON list of alternatives")
    found = []
    for number, item in enumerate(items, 1):
        option = item if isinstance(item, list) else [item]
        if not option:
            raise ValueError(f"alternative {number} is empty")
        try:
            found.append(tuple(_reference(i, ref, elsewhere=True)
                               for i, ref in enumerate(option, 1)))
        except ValueError as err:
            raise ValueError(f"alternative {number}: {err}") from None
    return tuple(found)


def _reference(index: int, item: object, elsewhere: bool = False) -> Reference:
    """One reference object; ``elsewhere``: it may name its document (``corpus_id``)."""
    if not isinstance(item, dict) or not {"content", "start_index", "end_index"} <= item.keys():
        raise ValueError(f"reference {index} needs content, start_index and end_index")
    try:
        start, end = int(item["start_index"]), int(item["end_index"])
    except (TypeError, ValueError):
        raise ValueError(f"reference {index} has non-integer offsets") from None
    if not isinstance(item["content"], str):
        raise ValueError(f"reference {index} content is not a string")
    if not 0 <= start < end:
        raise ValueError(f"reference {index} has start_index {start} and end_index {end}")
    corpus_id = item.get("corpus_id", "") if elsewhere else ""
    if not isinstance(corpus_id, str):
        raise ValueError(f"reference {index} corpus_id is not a string")
    return Reference(item["content"], start, end, corpus_id.strip())


def validate(question_set: QuestionSet, documents: Mapping[str, Document]) -> QuestionSet:
    """Keep the questions whose every reference matches its document's text exactly."""
    valid: list[Question] = []
    problems = list(question_set.problems)
    for q in question_set.questions:
        reason = _reference_problem(q, documents)
        if reason:
            problems.append(RowProblem(q.row, q.corpus_id, reason))
        else:
            valid.append(q)
    problems.sort(key=lambda p: p.row)
    return replace(question_set, questions=tuple(valid), problems=tuple(problems))


def _reference_problem(question: Question, documents: Mapping[str, Document]) -> str | None:
    if question.corpus_id not in documents:
        return f"no document for corpus_id {question.corpus_id!r}"
    for name, ref in question.named_references():
        document = documents.get(question.corpus_of(ref))
        if document is None:
            return f"{name}: no document {question.corpus_of(ref)!r} is loaded"
        text = document.text
        if ref.end > len(text):
            return f"{name} ends at {ref.end}, beyond the document's {len(text)} characters"
        found = text[ref.start : ref.end]
        if found != ref.content:
            return (f"{name}: text[{ref.start}:{ref.end}] is {_shorten(found)} but content is "
                    f"{_shorten(ref.content)}")
    return None


def _shorten(text: str) -> str:
    return repr(text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…")


def match_corpus_ids(corpus_ids: Iterable[str], names: Iterable[str]) -> dict[str, str]:
    """Map each corpus_id to one of ``names`` (file or document names) by file name, with or
    without extension: ``insurance_policy``, ``insurance_policy.docx`` and
    ``corpora/insurance_policy.docx`` all match ``insurance_policy.docx``."""
    names = list(names)
    matched: dict[str, str] = {}
    for corpus_id in sorted(set(corpus_ids)):
        wanted = PurePath(corpus_id.replace("\\", "/")).name
        exact = [n for n in names if n == wanted]
        candidates = exact or [n for n in names if PurePath(n).stem == wanted]
        if len(candidates) != 1:
            problem = "no file" if not candidates else f"several files ({', '.join(candidates)})"
            raise QuestionSetError(f"corpus_id {corpus_id!r} matches {problem}.")
        matched[corpus_id] = candidates[0]
    return matched


def corpus_files(corpus_ids: Iterable[str], folder: Path) -> dict[str, Path]:
    """Files of ``folder`` for each corpus_id (see :func:`match_corpus_ids`)."""
    if not folder.is_dir():
        raise QuestionSetError(f"{folder} is not a folder of documents.")
    names = [p.name for p in folder.iterdir() if p.is_file()]
    try:
        return {cid: folder / name for cid, name in match_corpus_ids(corpus_ids, names).items()}
    except QuestionSetError as err:
        raise QuestionSetError(f"{str(err)[:-1]} in {folder}.") from None

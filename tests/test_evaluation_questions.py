"""Question-set loader: CSV parsing, reference validation, corpus matching."""

import csv
import io
import json

import pytest

from core.documents.model import Document
from core.evaluation.questions import (
    QuestionSetError,
    match_corpus_ids,
    parse_questions,
    validate,
)

TEXT = "Dwelling coverage is $300,000. The deductible is $1,000. Floods are excluded."


def _doc(text: str = TEXT) -> Document:
    return Document(doc_id="d1", source_name="policy.txt", format="txt", route="text", text=text)


def _ref(content: str, text: str = TEXT) -> dict:
    start = text.index(content)
    return {"content": content, "start_index": start, "end_index": start + len(content)}


def _csv(rows: list[dict], columns=("question", "references", "corpus_id", "kind")) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "references": row["references"] if isinstance(
            row["references"], str) else json.dumps(row["references"])})
    return out.getvalue()


def test_valid_rows_parse_and_validate():
    data = _csv([
        {"question": "What is the deductible?", "references": [_ref("The deductible is $1,000.")],
         "corpus_id": "policy", "kind": "table"},
        {"question": "Are floods covered?", "references": [_ref("Floods are excluded.")],
         "corpus_id": "policy"},
    ])
    qs = validate(parse_questions(data), {"policy": _doc()})
    assert qs.problems == ()
    assert [q.kind for q in qs.questions] == ["table", "text"]
    assert qs.questions[0].row == 2 and qs.questions[0].references[0].content.startswith("The")
    assert qs.corpus_ids == ["policy"]


def test_chroma_format_without_kind_and_string_offsets_is_accepted():
    ref = _ref("Floods are excluded.")
    ref = {k: str(v) for k, v in ref.items()}
    data = _csv([{"question": "q", "references": [ref], "corpus_id": "policy"}],
                columns=("question", "references", "corpus_id"))
    qs = validate(parse_questions(data), {"policy": _doc()})
    assert len(qs.questions) == 1 and qs.questions[0].kind == "text"


def test_failing_rows_are_reported_with_row_number_and_reason():
    good = _ref("Floods are excluded.")
    shifted = {**good, "start_index": good["start_index"] - 1, "end_index": good["end_index"] - 1}
    data = _csv([
        {"question": "ok", "references": [good], "corpus_id": "policy"},
        {"question": "shifted", "references": [good, shifted], "corpus_id": "policy"},
        {"question": "bad json", "references": "[{not json", "corpus_id": "policy"},
        {"question": "too far", "references": [{**good, "end_index": 10_000}],
         "corpus_id": "policy"},
        {"question": "no doc", "references": [good], "corpus_id": "other"},
        {"question": "weird kind", "references": [good], "corpus_id": "policy", "kind": "graph"},
        {"question": "empty", "references": [], "corpus_id": "policy"},
        {"question": "reversed", "references": [{**good, "end_index": 0}], "corpus_id": "policy"},
    ])
    qs = validate(parse_questions(data), {"policy": _doc()})
    assert [q.question for q in qs.questions] == ["ok"]
    reasons = {p.row: p.reason for p in qs.problems}
    assert sorted(reasons) == [3, 4, 5, 6, 7, 8, 9]
    assert reasons[3].startswith("reference 2: text[") and "but content is" in reasons[3]
    assert "not valid JSON" in reasons[4]
    assert "beyond the document" in reasons[5]
    assert "no document for corpus_id 'other'" in reasons[6]
    assert "kind is 'graph'" in reasons[7]
    assert "non-empty" in reasons[8]
    assert "start_index" in reasons[9]
    assert str(qs.problems[0]).startswith("row 3 (policy): ")


def test_file_level_errors_are_typed_and_one_sentence():
    with pytest.raises(QuestionSetError, match="lacks the column"):
        parse_questions("question,corpus_id\nq,policy\n")
    with pytest.raises(QuestionSetError, match="no questions"):
        parse_questions("question,references,corpus_id\n")


def test_corpus_ids_match_file_names_with_or_without_extension():
    names = ["insurance_policy.docx", "technical_handbook.md", "notes.md", "notes.txt"]
    matched = match_corpus_ids(
        ["insurance_policy", "technical_handbook.md", "corpora/insurance_policy.docx"], names)
    assert matched == {
        "insurance_policy": "insurance_policy.docx",
        "technical_handbook.md": "technical_handbook.md",
        "corpora/insurance_policy.docx": "insurance_policy.docx",
    }
    with pytest.raises(QuestionSetError, match="several files"):
        match_corpus_ids(["notes"], names)
    assert match_corpus_ids(["notes.txt"], names) == {"notes.txt": "notes.txt"}
    with pytest.raises(QuestionSetError, match="'missing' matches no file"):
        match_corpus_ids(["missing"], names)

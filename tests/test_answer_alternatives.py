"""An answer run grades a question with alternatives against the best place that answers it,
keeps the alternatives with its rows for the views, and still loads runs kept before."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from core.evaluation.questions import QuestionSet, Reference
from core.operations.answers import report
from core.operations.answers.run import (
    AnswerOptions,
    AnswerRow,
    arms_for,
    configurations,
    run_answers,
)
from core.operations.questions.sets import load_from_folder
from fakes.llm import FakeRequest, fake_llm  # noqa: F401  (fixture)

DOCS = Path(__file__).resolve().parents[1] / "sample_docs"
# the configuration table says it too: a second place that answers "What is a dead-letter
# queue called?", whose reference is the prose of section 1
SUFFIX_ROW = ("| `dead_letter.queue_suffix` | `.dlq` | any valid queue name suffix | Suffix used "
              "to name dead-letter queues. |")



def saying(words: str, marked_by: str):
    """A reply that says ``words``, citing the passage of the prompt holding ``marked_by``."""

    def reply(request: FakeRequest) -> str:
        passages = re.split(r"\n\[\S+\]\nDoc: ", request.prompt.split("Context:", 1)[1])[1:]
        number = next(n for n, passage in enumerate(passages, 1) if marked_by in passage)
        return f"{words} [{number}]"

    return reply


def dead_letter_question():
    """The handbook's shipped documents, and its question whose reference is section 1's prose."""
    loaded = load_from_folder(DOCS / "questions" / "technical_handbook.csv", DOCS)
    return loaded, next(q for q in loaded.questions.questions
                        if q.question == "What is a dead-letter queue called?")


def test_an_answer_saying_only_what_the_alternative_says_covers_it(
        tmp_path, monkeypatch, fake_llm):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    loaded, question = dead_letter_question()
    text = loaded.documents[question.corpus_id].text
    start = text.index(SUFFIX_ROW)
    alternative = Reference(SUFFIX_ROW, start, start + len(SUFFIX_ROW))
    with_alternative = replace(question, alternatives=((alternative,),))
    fake_llm.respond(saying(SUFFIX_ROW.strip("| "), "queue_suffix"))
    run = run_answers(QuestionSet("one.csv", (with_alternative,)), loaded.documents,
                      arms_for(["default"], configurations(["fixed 1000 chars"])),
                      fake_llm.settings(concurrency=1), AnswerOptions(ranking="bm25"))
    row = run.arms[0].rows[0]
    assert row.status == "ok" and row.grades is not None
    assert row.grades.reference_coverage == 1.0  # not the reference's words: the alternative's
    assert row.grades.citations_supported == 1.0  # the passage it cites holds the row
    assert row.alternatives == [[[alternative.start, alternative.end]]]
    assert AnswerRow.from_json(row.to_json()) == row
    doc_id = loaded.documents[question.corpus_id].doc_id
    assert row.doc_id == doc_id
    assert report.excerpt_spans(row.to_json(), doc_id) == [question.references[0].span,
                                                           alternative.span]
    assert report.excerpt_spans(row.to_json(), "another") == []


def test_a_row_kept_before_alternatives_were_loads_without_them():
    kept = {"index": 0, "row": 2, "corpus_id": "policy.md", "question": "Which limit?",
            "kind": "text", "status": "ok", "reason": "", "answer": "300,000 EUR [1]",
            "references": [[150, 199]], "citations": [], "cited": ["[¹]"], "cached": False,
            "judge": None, "grades": None}
    row = AnswerRow.from_json(kept)
    assert row.alternatives == [] and row.references == [[150, 199]]
    assert report.excerpt_spans(kept, "policy") == [(150, 199)]


RIDER_CLAUSE = "In every rider, a dead-letter queue is called a parking queue."


def test_an_answer_citing_an_alternative_in_another_document_is_supported(
        tmp_path, monkeypatch, fake_llm):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    loaded, question = dead_letter_question()
    rider = make_rider(RIDER_CLAUSE)
    documents = {**loaded.documents, "rider.md": rider}
    at = rider.text.index(RIDER_CLAUSE)
    alternative = Reference(RIDER_CLAUSE, at, at + len(RIDER_CLAUSE), "rider.md")
    fake_llm.respond(saying(RIDER_CLAUSE, "every rider"))
    run = run_answers(QuestionSet("one.csv", (replace(question, alternatives=((alternative,),)),)),
                      documents, arms_for(["default"], configurations(["fixed 1000 chars"])),
                      fake_llm.settings(concurrency=1), AnswerOptions(ranking="bm25"))
    row = run.arms[0].rows[0]
    assert row.status == "ok" and row.grades is not None
    assert any(c["doc_id"] == rider.doc_id and c["source"] == "rider.md" for c in row.citations)
    assert row.grades.citations_supported == 1.0  # the rider's passage holds the clause
    assert row.grades.reference_coverage == 1.0
    assert row.alternatives == [[[at, at + len(RIDER_CLAUSE), rider.doc_id]]]
    assert report.excerpt_spans(row.to_json(), rider.doc_id) == [alternative.span]
    assert report.excerpt_spans(row.to_json(), row.doc_id) == [question.references[0].span]


def make_rider(clause: str):
    from core.documents.model import Document

    text = "# Rider\n\nRiders change the handbook for one team.\n\n" + clause + "\n"
    return Document(doc_id="rider-doc", source_name="rider.md", format="md", route="text",
                    text=text)

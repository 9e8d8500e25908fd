"""Alternative references: a question may accept other places of its document; the CSV stays
backward compatible (an old file loads, writes back byte for byte and scores as before), a run
counts whichever alternative was found best, and the alternatives are validated, kept through
edits and removable."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from core.evaluation.metrics import score_alternatives, score_question
from core.evaluation.questions import (
    QuestionSet,
    QuestionSetError,
    Reference,
    parse_questions,
    to_csv,
    validate,
)
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.questions.sets import (
    alternative_from_excerpt,
    without_alternative,
)
from tests.evaluation_helpers import (  # noqa: F401  (fixtures)
    POLICY,
    documents,
    make_doc,
    make_question,
    question_set,
    stand_in_chunker,
)

SHIPPED = sorted((Path(__file__).resolve().parents[1] / "sample_docs" / "questions")
                 .glob("*.csv"))


def _span(text: str, passage: str) -> Reference:
    start = text.index(passage)
    return Reference(passage, start, start + len(passage))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_an_old_csv_loads_and_writes_back_unchanged(path):
    data = path.read_bytes()
    parsed = parse_questions(data, path.name)
    assert parsed.questions and not parsed.problems
    assert all(q.alternatives == () for q in parsed.questions)
    assert to_csv(parsed.questions) == data.replace(b"\r\n", b"\n")  # so its version too


def test_without_alternatives_a_question_scores_exactly_as_before():
    chunks = [(0, 40), (30, 90), (90, 200), (200, 260)]
    for references in ([(35, 80)], [(10, 20), (95, 150)], [(210, 260)]):
        for retrieved in ([(30, 90)], [(90, 200), (0, 40)], [(200, 260), (30, 90), (0, 40)]):
            assert score_alternatives(retrieved, [references], chunks) == (
                score_question(retrieved, references, chunks), 0)


def test_a_run_of_an_old_set_scores_as_before_and_matching_only_the_alternative_is_full_recall(
        question_set, documents):  # noqa: F811
    before = evaluate(question_set, documents, [Candidate("para", "stub")], ranking="bm25",
                      retrieval=Retrieval(k=1))[0]
    # "What is the deductible?" now names a passage k=1 never retrieves; the one it does
    # retrieve is accepted as an alternative
    deductible = question_set.questions[0]
    moved = replace(deductible, references=(_span(POLICY, "Floods and earthquakes are "
                                                          "excluded."),))
    with_alternative = replace(moved, alternatives=(deductible.references,))
    for asked, recall in ((moved, 0.0), (with_alternative, 1.0)):
        changed = QuestionSet("t", (asked, *question_set.questions[1:]))
        [after] = evaluate(changed, documents, [Candidate("para", "stub")], ranking="bm25",
                           retrieval=Retrieval(k=1))
        row = after.questions[0]
        assert row.scores.recall == recall and row.scores.hit == bool(recall)
        assert after.questions[1:] == before.questions[1:]
    assert row.references == [deductible.references[0].span]  # the one that counted
    assert row.retrieved[0].touches_reference and row.scores.iou == 1.0


def test_the_best_alternative_counts_every_figure():
    chunks = [(0, 100), (100, 200), (200, 300)]
    score, chosen = score_alternatives([(100, 200)], [[(10, 60)], [(120, 180)], [(100, 200)]],
                                       chunks)
    assert chosen == 2 and score.recall == score.precision == score.iou == 1.0
    assert score.first_hit_rank == 1


def test_alternatives_round_trip_are_validated_and_edited():
    text = POLICY
    asked = make_question(2, "What is the deductible?", "policy",
                          "The deductible is 1000 dollars.", text)
    document = make_doc("policy", text)
    document = document.model_copy(update={"source_name": "policy"})
    two = alternative_from_excerpt(asked, document, "dwelling COVERAGE limit is 300000 dollars.")
    assert two.alternatives == ((_span(text, "Dwelling coverage limit is 300000 dollars."),),)
    assert two.accepted == [[asked.references[0].span], [two.alternatives[0][0].span]]
    with pytest.raises(QuestionSetError, match="already accepted"):
        alternative_from_excerpt(two, document, "Dwelling coverage limit is 300000 dollars.")

    written = to_csv([two, make_question(3, "Are floods excluded?", "policy",
                                         "Floods and earthquakes are excluded.", text)])
    header = written.decode().splitlines()[0]
    assert header == "question,references,corpus_id,kind,alternatives"
    back = parse_questions(written).questions
    assert back[0].alternatives == two.alternatives and back[1].alternatives == ()
    assert without_alternative(back[0], 1).alternatives == ()

    wrong = Reference("not the text at all here", 0, 24)
    bad = validate(QuestionSet("t", (replace(two, alternatives=((wrong,),)),)),
                   {"policy": document})
    assert not bad.questions and "alternative 1, reference 1" in bad.problems[0].reason


def test_alternatives_given_by_hand_one_object_or_a_list_and_bad_ones_explained():
    reference = {"content": "The deductible", "start_index": 44, "end_index": 58}
    rows = [["What is the deductible?", json.dumps([reference]), "policy", "text", cell]
            for cell in ("", json.dumps([reference]), json.dumps([[reference, reference]]),
                         "[oops", json.dumps([[]]))]
    text = "question,references,corpus_id,kind,alternatives\n" + "\n".join(
        ",".join('"' + c.replace('"', '""') + '"' for c in row) for row in rows)
    parsed = parse_questions(text)
    assert [len(q.alternatives) for q in parsed.questions] == [0, 1, 1]
    assert len(parsed.questions[2].alternatives[0]) == 2
    assert [p.reason for p in parsed.problems] == [
        "alternatives is not valid JSON (Expecting value)", "alternative 1 is empty"]

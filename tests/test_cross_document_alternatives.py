"""An alternative in another document (a clause repeated in two documents): the CSV names its
document per reference and stays byte for byte what it was without one; validation, loading
and checking look in that document; retrieval over the question's own document alone scores only
the options lying in it; scoring across documents counts a chunk only against the references
of its own document."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from core.evaluation.across_documents import Place, question_places, score_across_documents
from core.evaluation.metrics import score_alternatives
from core.evaluation.questions import (
    Question,
    QuestionSet,
    QuestionSetError,
    Reference,
    parse_questions,
    to_csv,
    validate,
)
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.questions.check import check_questions
from core.operations.questions.evidence import evidence_for_questions
from core.operations.questions.sets import (
    alternative_from_excerpt,
    load_from_folder,
    make_question,
    with_alternative,
)
from tests.evaluation_helpers import (  # noqa: F401  (fixtures)
    MANUAL,
    POLICY,
    make_doc,
    stand_in_chunker,
)

CLAUSE = "Floods and earthquakes are excluded."
RIDER = "Riders apply.\n\n" + CLAUSE + "\n\nNothing else."


def _ref(text: str, passage: str, corpus_id: str = "") -> dict[str, object]:
    start = text.index(passage)
    return {"content": passage, "start_index": start, "end_index": start + len(passage)} | (
        {"corpus_id": corpus_id} if corpus_id else {})


def _csv(alternatives: list[list[dict[str, object]]]) -> bytes:
    return to_csv(parse_questions(
        "question,references,corpus_id,kind,alternatives\n"
        + ",".join(['"Are floods excluded?"',
                    '"' + json.dumps([_ref(POLICY, CLAUSE)]).replace('"', '""') + '"',
                    "policy", "text",
                    '"' + json.dumps(alternatives).replace('"', '""') + '"']) + "\n").questions)


def _question(alternatives: list[list[dict[str, object]]]):
    [question] = parse_questions(_csv(alternatives)).questions
    return question


def test_an_alternative_names_its_document_and_writes_back_unchanged():
    data = _csv([[_ref(RIDER, CLAUSE, "rider")], [_ref(POLICY, "The deductible is 1000 "
                                                                "dollars.")]])
    [question] = parse_questions(data).questions
    assert [r.corpus_id for option in question.alternatives for r in option] == ["rider", ""]
    assert [question.corpus_of(option[0]) for option in question.alternatives] == [
        "rider", "policy"]
    assert question.corpus_ids == ["policy", "rider"]
    assert parse_questions(data).corpus_ids == ["policy", "rider"]
    assert to_csv([question]) == data
    assert data.count(b'corpus_id"') == 1  # only the reference in another document names it
    # retrieval over the question's own document scores only the options lying in it
    assert question.accepted == [[question.references[0].span],
                                 [question.alternatives[1][0].span]]


def test_the_references_column_stays_in_the_question_s_own_document():
    text = ('question,references,corpus_id\nq,"'
            + json.dumps([_ref(RIDER, CLAUSE, "rider")]).replace('"', '""') + '",policy\n')
    [question] = parse_questions(text).questions
    assert question.references[0].corpus_id == "" and question.corpus_ids == ["policy"]


def test_validation_checks_each_reference_in_its_own_document():
    question = _question([[_ref(RIDER, CLAUSE, "rider")]])
    policy, rider = make_doc("policy", POLICY), make_doc("rider", RIDER)
    checked = validate(parse_questions(to_csv([question])), {"policy": policy, "rider": rider})
    assert checked.questions and not checked.problems

    missing = validate(parse_questions(to_csv([question])), {"policy": policy})
    assert [p.reason for p in missing.problems] == [
        "alternative 1, reference 1: no document 'rider' is loaded"]

    # the rider's offsets do not hold in the policy
    wrong = validate(parse_questions(to_csv([question])), {"policy": policy,
                                                           "rider": make_doc("rider", MANUAL)})
    assert wrong.problems[0].reason.startswith("alternative 1, reference 1: text[")


def test_a_set_loads_the_documents_its_alternatives_name(tmp_path):
    (tmp_path / "policy.txt").write_text(POLICY)
    (tmp_path / "rider.txt").write_text(RIDER)
    (tmp_path / "manual.txt").write_text(MANUAL)  # named by nothing: not loaded
    csv_path = tmp_path / "set.csv"
    csv_path.write_bytes(_csv([[_ref(RIDER, CLAUSE, "rider.txt")]]))
    loaded = load_from_folder(csv_path, tmp_path)
    assert sorted(loaded.documents) == ["policy", "rider.txt"]
    assert len(loaded.questions.questions) == 1 and not loaded.questions.problems


def test_checking_and_evidence_take_the_alternative_s_document():
    # the clause lies past the policy's end: looked for in the policy, it would be empty
    rider = "Riders apply to the policy; read each one with it.\n\n" * 4 + CLAUSE
    question = _question([[_ref(rider, CLAUSE, "rider")]])
    documents = {"policy": make_doc("policy", POLICY), "rider": make_doc("rider", rider)}
    assert check_questions("t", [question], documents).findings == ()
    assert len(evidence_for_questions("t", [question], documents).questions) == 1


def test_a_run_does_not_credit_a_chunk_at_another_document_s_offsets():
    # the rider's clause sits at the very offsets of the policy's flood paragraph (the same
    # text: the policy's, first of the tie, is what k=1 retrieves); the question's own
    # reference is another paragraph
    at = POLICY.index(CLAUSE)
    rider = "R" * (at - 2) + "\n\n" + CLAUSE
    other = "Personal property is covered at 50 percent."
    own = Reference(other, POLICY.index(other), POLICY.index(other) + len(other))
    asked = Question(2, "Are floods excluded?", "policy", (own,),
                     alternatives=((Reference(CLAUSE, at, at + len(CLAUSE), "rider"),),))
    documents = {"policy": make_doc("policy", POLICY), "rider": make_doc("rider", rider)}
    assert validate(QuestionSet("t", (asked,)), documents).questions == (asked,)

    def recall(question: Question) -> float:
        [result] = evaluate(QuestionSet("t", (question,)), documents, [Candidate("para", "stub")],
                            ranking="bm25", retrieval=Retrieval(k=1))
        return result.questions[0].scores.recall

    assert recall(asked) == recall(replace(asked, alternatives=())) == 0.0


HAIL = "Hail damage to the roof is excluded in every rider."
HAIL_RIDER = "Riders apply to the policy.\n\n" + HAIL


def _hail_question(alternatives: bool = True) -> Question:
    own = Reference(CLAUSE, POLICY.index(CLAUSE), POLICY.index(CLAUSE) + len(CLAUSE))
    at = HAIL_RIDER.index(HAIL)
    return Question(2, "Is hail damage to the roof excluded?", "policy", (own,),
                    alternatives=((Reference(HAIL, at, at + len(HAIL), "rider"),),)
                    if alternatives else ())


@pytest.mark.parametrize(("retrieval", "merged"), [
    (Retrieval(k=1), False), (Retrieval(k=3, budget=20), False), (Retrieval(k=2), True)])
def test_a_question_searches_the_documents_its_alternatives_name(retrieval, merged):
    documents = {"policy": make_doc("policy", POLICY), "rider": make_doc("rider", HAIL_RIDER),
                 "manual": make_doc("manual", MANUAL)}

    def run(question: Question):
        [result] = evaluate(QuestionSet("t", (question,)), documents,
                            [Candidate("para", "stub", merge_adjacent=merged)],
                            ranking="bm25", retrieval=retrieval)
        return result

    result = run(_hail_question())
    [row] = result.questions
    top = row.retrieved[0]
    at = HAIL_RIDER.index(HAIL)
    assert top.corpus_id == "rider" and row.corpus_of(top) == "rider" and top.touches_reference
    assert row.scores.recall == 1.0 and row.scores.first_hit_rank == 1
    assert row.references == [(at, at + len(HAIL))] and row.reference_documents == ["rider"]
    assert "manual" not in result.chunk_counts  # named by no question
    # the same question without the alternative searches its own document alone
    [alone] = run(_hail_question(alternatives=False)).questions
    assert {alone.corpus_of(hit) for hit in alone.retrieved} == {"policy"}
    assert alone.reference_documents == ["policy"] and alone.reference_corpus_ids == []


def test_a_cached_result_names_each_hit_s_document(tmp_path):
    documents = {"policy": make_doc("policy", POLICY), "rider": make_doc("rider", HAIL_RIDER)}

    def run():
        [result] = evaluate(QuestionSet("t", (_hail_question(),)), documents,
                            [Candidate("para", "stub")], ranking="bm25",
                            retrieval=Retrieval(k=1))
        return result

    first, again = run(), run()
    assert again.cached or again.questions == first.questions
    assert again.questions[0].retrieved[0].corpus_id == "rider"
    assert again.questions[0].reference_corpus_ids == ["rider"]


LENGTHS = {"policy": len(POLICY), "rider": len(RIDER)}
CHUNKS = [Place("policy", 0, 42), Place("policy", 44, 75), Place("policy", 77, 113),
          Place("policy", 115, len(POLICY)), Place("rider", 0, 13), Place("rider", 15, 51),
          Place("rider", 53, len(RIDER))]


def test_a_chunk_counts_only_against_references_of_its_own_document():
    start = RIDER.index(CLAUSE)
    only_rider = [[Place("rider", start, start + len(CLAUSE))]]
    # the policy's chunk at the rider clause's very offsets answers nothing
    score, _ = score_across_documents([Place("policy", start, start + len(CLAUSE))],
                                      only_rider, CHUNKS, LENGTHS)
    assert score.recall == 0.0 and not score.hit and score.precision == 0.0
    score, _ = score_across_documents([Place("rider", start, start + len(CLAUSE))],
                                      only_rider, CHUNKS, LENGTHS)
    assert score.recall == 1.0 and score.hit and score.precision == 1.0


def test_finding_only_the_other_document_s_clause_is_full_recall():
    question = _question([[_ref(RIDER, CLAUSE, "rider")]])
    options = question_places(question)
    assert options[1] == [Place("rider", 15, 51)]
    rider_clause, policy_chunk = CHUNKS[5], CHUNKS[0]
    score, chosen = score_across_documents([policy_chunk, rider_clause], options, CHUNKS,
                                           LENGTHS)
    assert chosen == 1 and score.recall == 1.0 and score.first_hit_rank == 2
    assert score.precision == len(CLAUSE) / (42 + len(CLAUSE))  # both chunks are read
    missed, _ = score_across_documents([policy_chunk], options, CHUNKS, LENGTHS)
    assert missed.recall == 0.0


def test_within_one_document_it_scores_as_before():
    spans = [(c.start, c.end) for c in CHUNKS if c.corpus_id == "policy"]
    references = [[(77, 113)], [(44, 75)]]
    for retrieved in ([(44, 75)], [(0, 42), (77, 113)], [(115, len(POLICY))]):
        assert score_across_documents(
            [Place("policy", *r) for r in retrieved],
            [[Place("policy", *r) for r in option] for option in references],
            [Place("policy", *s) for s in spans], {"policy": len(POLICY)},
        ) == score_alternatives(retrieved, references, spans)


@pytest.mark.parametrize("place", [Place("manual", 0, 5), Place("rider", 0, len(RIDER) + 1)])
def test_a_place_outside_the_documents_is_refused(place):
    with pytest.raises(ValueError):
        score_across_documents([place], [[Place("rider", 15, 51)]], CHUNKS, LENGTHS)


def _asked_in_policy() -> Question:
    """A question asked on the page: its corpus_id is its document's file name."""
    policy = make_doc("policy", POLICY)
    at = POLICY.index(CLAUSE)
    return make_question(policy, "Are floods excluded?", at, at + len(CLAUSE))


def test_an_alternative_added_from_another_document_names_it_by_its_file_name():
    asked, rider = _asked_in_policy(), make_doc("rider", RIDER)
    assert asked.corpus_id == "policy.txt"
    added = alternative_from_excerpt(asked, rider, "floods and EARTHQUAKES   are excluded.")
    start = RIDER.index(CLAUSE)
    assert added.alternatives == ((Reference(CLAUSE, start, start + len(CLAUSE), "rider.txt"),),)
    assert added.corpus_ids == ["policy.txt", "rider.txt"]
    # written with its document, and valid against the documents keyed as the page keys them
    back = parse_questions(to_csv([added]))
    assert back.questions == (replace(added, row=2),)
    assert validate(back, {"policy.txt": make_doc("policy", POLICY),
                           "rider.txt": rider}).questions == back.questions
    # retrieval over the policy alone scores only its own reference
    assert added.accepted == [[asked.references[0].span]]


def test_an_alternative_in_the_question_s_own_document_names_none():
    asked = _asked_in_policy()
    own = alternative_from_excerpt(asked, make_doc("policy", POLICY),
                                   "The deductible is 1000 dollars.")
    assert own.alternatives[0][0].corpus_id == ""
    # a corpus_id naming the document without its extension is its own document as well
    by_stem = replace(asked, corpus_id="policy")
    assert alternative_from_excerpt(by_stem, make_doc("policy", POLICY), "The deductible is "
                                    "1000 dollars.").alternatives[0][0].corpus_id == ""


def test_already_accepted_compares_places_in_the_same_document_only():
    asked = _asked_in_policy()
    at = POLICY.index(CLAUSE)
    rider = make_doc("rider", "R" * (at - 2) + "\n\n" + CLAUSE)  # the clause at the same offsets
    with pytest.raises(QuestionSetError, match="already accepted"):
        with_alternative(asked, make_doc("policy", POLICY), at, at + len(CLAUSE))
    added = with_alternative(asked, rider, at, at + len(CLAUSE))  # another place
    assert added.alternatives[0][0] == Reference(CLAUSE, at, at + len(CLAUSE), "rider.txt")
    with pytest.raises(QuestionSetError, match="already accepted"):
        with_alternative(added, rider, at, at + len(CLAUSE))
    with pytest.raises(QuestionSetError, match="already accepted"):
        with_alternative(added, make_doc("policy", POLICY), at, at + len(CLAUSE))


def test_the_excerpt_is_looked_for_in_the_document_chosen():
    asked = _asked_in_policy()
    with pytest.raises(QuestionSetError, match="not in the document"):
        alternative_from_excerpt(asked, make_doc("manual", MANUAL), CLAUSE)
    with pytest.raises(QuestionSetError, match="within the document"):
        with_alternative(asked, make_doc("manual", MANUAL), 0, len(POLICY))


def test_the_report_csv_and_drill_down_name_the_other_document():
    from core.operations.evaluation.report import results_csv
    from core.operations.report.evaluation import questions_section
    from ui.evaluation_view import _drawing

    documents = {"policy": make_doc("policy", POLICY), "rider": make_doc("rider", HAIL_RIDER)}
    [result] = evaluate(QuestionSet("t", (_hail_question(),)), documents,
                        [Candidate("para", "stub")], ranking="bm25", retrieval=Retrieval(k=3))
    [row] = result.questions
    where = [row.corpus_of(hit) for hit in row.retrieved]
    assert where[0] == "rider" and "policy" in where
    body = questions_section([result], documents).body
    # the reference counted and each hit from the rider
    assert body.count("in rider.txt") == 1 + where.count("rider")
    assert "Hail damage to the roof" in body
    at = HAIL_RIDER.index(HAIL)
    assert f"rider:{at}-{at + len(HAIL)}" in results_csv([result]).decode()
    drawing = _drawing(documents, row)
    assert "In rider.txt, the document of the alternative counted" in drawing
    policy_ranks = ", ".join(str(n) for n, cid in enumerate(where, 1) if cid == "policy")
    assert f"Retrieved from policy.txt: ranks {policy_ranks}" in drawing


@pytest.mark.parametrize("ranking", ["vector", "hybrid"])
def test_the_documents_vectors_are_searched_as_one_ranking(ranking):
    documents = {"policy": make_doc("policy", POLICY), "rider": make_doc("rider", HAIL_RIDER)}
    [result] = evaluate(QuestionSet("t", (_hail_question(),)), documents,
                        [Candidate("para", "stub")], ranking=ranking, retrieval=Retrieval(k=1))
    [row] = result.questions
    assert row.corpus_of(row.retrieved[0]) == "rider" and row.scores.recall == 1.0

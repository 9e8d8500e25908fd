"""The runner's bookkeeping with a stand-in chunker and BM25 ranking (no model needed):
retrieval stays inside the question's document, top-k, metrics, result cache."""

import csv
import io
import threading
from dataclasses import replace

import pytest

from core.evaluation.questions import QuestionSet
from core.operations.evaluation import Candidate, EvaluationError, Retrieval, evaluate
from core.operations.evaluation.report import results_csv
from core.progress import Cancelled
from tests.evaluation_helpers import (  # noqa: F401  (fixtures)
    MANUAL,
    POLICY,
    documents,
    question_set,
    stand_in_chunker,
)


def test_paragraph_chunks_score_perfectly_with_k1(question_set, documents):  # noqa: F811
    [result] = evaluate(question_set, documents, [Candidate("para", "stub")], ranking="bm25",
                        retrieval=Retrieval(k=1))
    overall = result.metrics.overall
    assert overall.questions == 3
    assert overall.recall == overall.precision == overall.iou == 1.0
    assert overall.hit_rate == overall.mrr == 1.0
    assert result.metrics.table_query_accuracy == 1.0
    assert result.chunk_counts == {"manual": 2, "policy": 4}
    battery = result.questions[2]
    # retrieval stays in the question's own document
    assert all(r.end <= len(MANUAL) for r in battery.retrieved)
    assert battery.retrieved[0].touches_reference


def test_whole_document_chunk_has_full_recall_and_low_precision(question_set, documents):  # noqa: F811
    [result] = evaluate(question_set, documents, [Candidate("whole", "stub", {"size": 5000})],
                        ranking="bm25", retrieval=Retrieval(k=5))
    first = result.questions[0]
    assert len(first.retrieved) == 1
    assert first.scores.recall == 1.0
    assert first.scores.precision == pytest.approx(31 / len(POLICY))
    assert result.metrics.per_corpus["manual"].precision == pytest.approx(28 / len(MANUAL))


def test_unchanged_configuration_comes_from_the_cache(question_set, documents):  # noqa: F811
    configs = [Candidate("para", "stub"), Candidate("whole", "stub", {"size": 5000})]
    first = evaluate(question_set, documents, configs, ranking="bm25")
    again = evaluate(question_set, documents, configs, ranking="bm25")
    assert [r.cached for r in first] == [False, False]
    assert [r.cached for r in again] == [True, True]
    assert again[0].metrics == first[0].metrics
    assert again[1].questions == first[1].questions
    other_k = evaluate(question_set, documents, configs[:1], ranking="bm25",
                       retrieval=Retrieval(k=2))
    assert not other_k[0].cached


def test_progress_is_reported_and_ends_at_one(question_set, documents):  # noqa: F811
    seen = []
    evaluate(question_set, documents, [Candidate("para", "stub")], ranking="bm25",
             progress=seen.append)
    fractions = [p.fraction for p in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("para: chunking" in p.message for p in seen)


def test_cancel_stops_the_evaluation(question_set, documents):  # noqa: F811
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        evaluate(question_set, documents, [Candidate("para", "stub")], ranking="bm25",
                 cancel=cancel)


def test_bad_inputs_raise_typed_errors(question_set, documents):  # noqa: F811
    with pytest.raises(EvaluationError, match="Unknown ranking"):
        evaluate(question_set, documents, [Candidate("para", "stub")], ranking="magic")
    with pytest.raises(EvaluationError, match="k must be"):
        evaluate(question_set, documents, [Candidate("para", "stub")], retrieval=Retrieval(k=0))
    with pytest.raises(EvaluationError, match="no valid question"):
        evaluate(QuestionSet("e", ()), documents, [Candidate("para", "stub")])


def test_integrity_counts_come_with_every_result_and_its_exports(question_set, documents):  # noqa: F811
    configs = [Candidate("para", "stub"), Candidate("tight", "stub", {"size": 10, "unit": "chars"})]
    first = evaluate(question_set, documents, configs, ranking="bm25")
    assert first[0].integrity["over_size"] == 0 and first[0].integrity["uncovered"] == 0
    assert first[1].integrity["over_size"] == 6  # every paragraph is over 10 characters
    again = evaluate(question_set, documents, configs, ranking="bm25")
    assert again[1].cached and again[1].integrity == first[1].integrity
    assert first[1].to_json()["integrity"]["over_size"] == 6
    rows = list(csv.DictReader(io.StringIO(results_csv(first).decode())))
    assert {r["check_over_size"] for r in rows if r["configuration"] == "tight"} == {"6"}
    assert {r["check_offsets"] for r in rows} == {"0"}


def test_a_configuration_with_its_own_retrieval_retrieves_it(question_set, documents):  # noqa: F811
    own = Candidate("own top-1", "stub", retrieval=Retrieval(1))
    budgeted = Candidate("own budget", "stub", retrieval=Retrieval(budget=5))
    cut = Candidate("own autocut", "stub", retrieval=Retrieval(3, autocut=1))
    run = evaluate(question_set, documents, [Candidate("run's", "stub"), own, budgeted, cut],
                   ranking="bm25", retrieval=Retrieval(k=2))
    assert [(r.k, r.budget, r.autocut) for r in run] == [
        (2, None, None), (1, None, None), (5, 5, None), (3, None, 1)]
    assert [r.retrieval for r in run] == [
        "top-2", "top-1", "5-token budget", "autocut of top-3"]
    assert [len(q.retrieved) for q in run[1].questions] == [1, 1, 1]
    assert [run.retrieval_of(r) for r in run] == [r.retrieval for r in run]
    # the same chunking retrieving another k is not served from the first one's cache
    again = evaluate(question_set, documents, [own, replace(own, retrieval=Retrieval(2))],
                     ranking="bm25", retrieval=Retrieval(k=2))
    assert [(r.cached, r.k) for r in again] == [(True, 1), (False, 2)]


def test_small_to_big_with_a_budget_of_its_own_fails_alone(question_set, documents):  # noqa: F811
    merged = Candidate("merged", "stub", merge_adjacent=True, retrieval=Retrieval(budget=50))
    run = evaluate(question_set, documents, [merged, Candidate("para", "stub")], ranking="bm25")
    [failure] = run.failures
    assert "Small-to-big retrieval is measured at top k" in failure.reason
    assert run.retrieval_of(failure) == "50-token budget" and len(run.results) == 1
    with pytest.raises(EvaluationError, match="Autocut cuts the top k"):
        Retrieval(5, budget=100, autocut=1)


def test_each_way_of_retrieving_is_evaluated_and_kept_with_one_progress(
        question_set, documents, tmp_path, monkeypatch):  # noqa: F811
    from core.operations.evaluation.history import run_history
    from core.operations.evaluation.sweep import evaluate_each

    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    seen = []
    kept = evaluate_each(question_set, documents, [Candidate("para", "stub")],
                         [Retrieval(2), Retrieval(2, budget=40)], ranking="bm25",
                         progress=seen.append)
    assert [k.evaluation.retrieval for k in kept] == ["top-2", "40-token budget"]
    assert [k.evaluation[0].budget for k in kept] == [None, 40]
    assert {r.id for r in run_history()} == {k.record.id for k in kept if k.record}
    fractions = [p.fraction for p in seen]
    assert fractions == sorted(fractions) and 0.5 in fractions and fractions[-1] == 1.0

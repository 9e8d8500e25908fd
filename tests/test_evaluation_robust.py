"""A configuration that fails does not take the others down (runner, run history, exports, CLI),
and every result carries the tokens it retrieved per question."""

import csv
import io
import json
from pathlib import Path

import pytest

from core.cli import main
from core.errors import ChunkingError
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.evaluation import run as runner
from core.operations.evaluation.history import history_csv, record_run, run_history
from core.operations.evaluation.report import results_csv
from core.operations.presets import SMALL_TO_BIG
from core.tokens import count_tokens
from tests.evaluation_helpers import (  # noqa: F401  (fixtures)
    MANUAL,
    POLICY,
    documents,
    paragraph_chunks,
    question_set,
    stand_in_chunker,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def one_breaks(monkeypatch):
    """The stand-in chunker, except that the configuration labelled "broken" raises a typed
    error, as a chunk set without the document or an endpoint that is down would."""

    def chunker(document, candidate, store=None, embedder=None):
        if candidate.label == "broken":
            raise ChunkingError("The embedding endpoint refused the connection.")
        return paragraph_chunks(document, candidate)

    monkeypatch.setattr(runner, "chunks_for", chunker)


def test_a_failed_configuration_is_reported_and_the_others_are_kept(
        question_set, documents, one_breaks):  # noqa: F811
    seen = []
    evaluation = evaluate(question_set, documents, [
        Candidate("para", "stub"), Candidate("broken", "stub"),
        Candidate("whole", "stub", {"size": 5000})], ranking="bm25", progress=seen.append)
    assert [r.candidate.label for r in evaluation] == ["para", "whole"]
    (failure,) = evaluation.failures
    assert failure.candidate.label == "broken" and failure.error == "ChunkingError"
    assert failure.reason == "The embedding endpoint refused the connection."
    assert [o.candidate.label for o in evaluation.outcomes] == ["para", "broken", "whole"]
    assert seen[-1].fraction == 1.0 and seen[-1].caption() == (
        "Done; 1 of 3 configurations failed")  # the bar ends, with no time left shown
    assert evaluation[0].metrics.overall.recall == 1.0
    with pytest.raises(runner.EvaluationError, match="broken: The embedding endpoint"):
        evaluation.require_all()


def test_the_run_history_and_exports_list_the_failure(question_set, documents, one_breaks):  # noqa: F811
    evaluation = evaluate(question_set, documents, [
        Candidate("para", "stub"), Candidate("broken", "stub")], ranking="bm25")
    record = record_run(evaluation, question_set)
    assert record is not None and run_history()[0] == record
    assert [c.label for c in record.configurations] == ["para"]
    assert [f.reason for f in record.failures] == [
        "The embedding endpoint refused the connection."]
    rows = [r for r in csv.DictReader(io.StringIO(history_csv([record]).decode()))]
    assert [(r["configuration"], r["failed"]) for r in rows] == [
        ("para", ""), ("broken", "The embedding endpoint refused the connection.")]
    exported = list(csv.DictReader(io.StringIO(
        results_csv(evaluation.results, evaluation.failures).decode())))
    assert exported[-1]["configuration"] == "broken" and exported[-1]["failed"]
    nothing = evaluate(question_set, documents, [Candidate("broken", "stub")], ranking="bm25")
    assert not nothing and record_run(nothing, question_set) is None


def test_mean_tokens_are_what_each_question_retrieved(question_set, documents):  # noqa: F811
    [result] = evaluate(question_set, documents, [Candidate("para", "stub")], ranking="bm25",
                        retrieval=Retrieval(k=1))
    per_question = []
    for q in result.questions:
        text = POLICY if q.corpus_id == "policy" else MANUAL
        expected = sum(count_tokens(text[r.start : r.end]) for r in q.retrieved)
        assert q.scores.retrieved_tokens == expected > 0
        per_question.append(expected)
    assert result.metrics.overall.mean_tokens == pytest.approx(sum(per_question) / 3)
    assert result.metrics.per_corpus["manual"].mean_tokens == per_question[2]
    [wider] = evaluate(question_set, documents, [Candidate("para", "stub")], ranking="bm25",
                       retrieval=Retrieval(k=3))
    assert wider.metrics.overall.mean_tokens > result.metrics.overall.mean_tokens
    rows = list(csv.DictReader(io.StringIO(results_csv([result]).decode())))
    assert [int(r["tokens"]) for r in rows] == per_question


def test_cli_reports_a_failed_configuration_in_its_own_entry_and_exits_3(capsys):
    questions = str(ROOT / "sample_docs" / "questions" / "service_levels.csv")
    code = main(["eval", "--questions", questions, "--docs", str(ROOT / "sample_docs"),
                 "--preset", "fixed 1000 chars", "--preset", SMALL_TO_BIG, "--rank", "bm25",
                 "--budget", "300"])  # small-to-big is measured at top k only
    captured = capsys.readouterr()
    assert code == 3
    out = json.loads(captured.out)
    ok, failed = out["results"]
    assert ok["status"] == "ok" and ok["config"]["label"] == "fixed 1000 chars"
    assert 0 < ok["overall"]["mean_tokens"] <= 300
    assert failed == {"config": failed["config"], "status": "failed",
                      "embedder": {"name": "all-MiniLM-L6-v2-onnx-int8", "where": "local",
                                   "label": "MiniLM (built-in)"},
                      "error": "EvaluationError", "reason": failed["reason"]}
    assert ok["embedder"]["name"] == failed["embedder"]["name"]  # both say which embedder
    assert failed["config"]["label"] == SMALL_TO_BIG and "top k" in failed["reason"]
    assert out["comparisons"] == []  # nothing to compare the one result with
    assert captured.err.strip() == f"failed: {SMALL_TO_BIG}: {failed['reason']}"

"""Fair comparisons in the runner: the token budget, contextual prefixes as a dimension,
intervals and paired comparisons of two results, and the kept run history."""

import csv
import io
import json

import numpy as np
import pytest

from core.chunking.chunk import LLMAnnotations
from core.embeddings import port
from core.operations.evaluation import Candidate, EvaluationError, Retrieval, evaluate
from core.operations.evaluation import run as runner
from core.operations.evaluation.confidence import compare, intervals, outcome_rows, verdict
from core.operations.evaluation.history import history_csv, history_json, record_run, run_history
from core.tokens import count_tokens
from tests.evaluation_helpers import (  # noqa: F401  (fixtures)
    POLICY,
    documents,
    paragraph_chunks,
    question_set,
    stand_in_chunker,
)


def test_budget_cuts_the_last_chunk_and_is_part_of_the_result(question_set, documents):  # noqa: F811
    whole = Candidate("whole", "stub", {"size": 5000})
    [result] = evaluate(question_set, documents, [whole], ranking="bm25",
                        retrieval=Retrieval(budget=5))
    first = result.questions[0]
    assert result.budget == 5 and result.retrieval == "5-token budget"
    assert len(first.retrieved) == 1 and first.retrieved[0].cut
    span = first.retrieved[0]
    assert count_tokens(POLICY[span.start : span.end]) <= 5 < count_tokens(POLICY)
    assert first.scores.retrieved_chars == span.end - span.start
    [top_k] = evaluate(question_set, documents, [whole], ranking="bm25")
    assert top_k.budget is None and not top_k.cached and not top_k.questions[0].retrieved[0].cut
    [again] = evaluate(question_set, documents, [whole], ranking="bm25",
                       retrieval=Retrieval(budget=5))
    assert again.cached and again.budget == 5 and again.questions == result.questions
    with pytest.raises(EvaluationError, match="budget"):
        evaluate(question_set, documents, [whole], ranking="bm25", retrieval=Retrieval(budget=0))


def test_a_large_budget_takes_several_whole_chunks(question_set, documents):  # noqa: F811
    [result] = evaluate(question_set, documents, [Candidate("para", "stub")], ranking="bm25",
                        retrieval=Retrieval(budget=1000))
    assert all(not r.cut for q in result.questions for r in q.retrieved)
    assert max(len(q.retrieved) for q in result.questions) > 1


def test_contextual_prefixes_are_embedded_only_when_asked(question_set, documents, monkeypatch):  # noqa: F811
    def with_prefix(document, config, store=None, embedder=None):
        note = LLMAnnotations(boundary_type="SEMANTIC_SHIFT", justification="j",
                              context_prefix="This chunk is from the policy.")
        return [c.model_copy(update={"llm": note}) for c in paragraph_chunks(document, config)]

    embedded: list[list[str]] = []

    def fake_embed(texts, **options):
        embedded.append(list(texts))
        return np.ones((len(texts), 4), dtype=np.float32)

    monkeypatch.setattr(runner, "chunks_for", with_prefix)
    monkeypatch.setattr(port, "embed", fake_embed)  # MiniLM, as the port calls it
    plain = Candidate("llm", "stub")
    results = evaluate(question_set, documents, [plain, plain.without_prefixes()],
                       ranking="vector", use_cache=False)
    assert [r.candidate.label for r in results] == ["llm", "llm (no prefixes)"]
    with_prefixes, without = embedded[1], embedded[2]  # [0] holds the questions
    assert all(t.startswith("This chunk is from the policy.") for t in with_prefixes)
    assert not any("This chunk is from" in t for t in without)
    assert plain.key() != plain.without_prefixes().key()
    assert plain.chunking_key() == plain.without_prefixes().chunking_key()


def test_intervals_and_comparison_of_two_results(question_set, documents):  # noqa: F811
    para, whole = evaluate(question_set, documents, [
        Candidate("para", "stub"), Candidate("whole", "stub", {"size": 5000})], ranking="bm25",
        retrieval=Retrieval(k=1))
    ci = intervals(whole)
    assert set(ci) >= {"recall", "precision", "iou", "hit_rate", "mrr"}
    low, high = ci["precision"]
    assert low <= whole.metrics.overall.precision <= high
    result = compare(para, whole, "precision")
    assert (result.wins, result.losses, result.ties) == (0, 3, 0)
    assert result.p_value == pytest.approx(0.25)
    assert verdict(result) == ("No difference on precision detectable with 3 questions "
                               "(whole higher on 0, para on 3, 0 ties; p = 0.25).")
    rows = outcome_rows(para, whole, "precision")
    assert [r.outcome for r in rows] == ["A wins"] * 3 and rows[2].index == 2


def test_runs_are_kept_with_their_set_version_and_export(question_set, documents):  # noqa: F811
    results = evaluate(question_set, documents, [
        Candidate("para", "stub"), Candidate("whole", "stub", {"size": 5000})], ranking="bm25",
        retrieval=Retrieval(budget=50))
    record = record_run(results, question_set)
    history = run_history()
    assert history[0] == record
    assert record.question_set_version == question_set.version and record.budget == 50
    assert [c.label for c in record.configurations] == ["para", "whole"]
    rows = list(csv.DictReader(io.StringIO(history_csv(history).decode())))
    mine = [r for r in rows if r["run"] == record.id]
    assert [r["configuration"] for r in mine] == ["para", "whole"]
    assert mine[0]["retrieval"] == "50-token budget"
    assert float(mine[0]["recall_ci95_low"]) <= float(mine[0]["recall"])
    assert json.loads(history_json(history))[0]["id"] == record.id

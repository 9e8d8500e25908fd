"""The shipped question sets: every sample document has one, every reference matches the
converted text exactly (fails when the converter's text changes), and an end-to-end run on one
sample set with the real chunkers, embeddings and ranking."""

from pathlib import Path

import pytest

from core.evaluation.questions import load_question_set
from core.evaluation.runner import evaluate, preset_config

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_docs"
QUESTIONS = SAMPLES / "questions"
SAMPLE_FILES = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.suffix != ".py")


def test_every_sample_document_has_a_question_set():
    assert SAMPLE_FILES, "no sample documents"
    missing = [p.name for p in SAMPLE_FILES if not (QUESTIONS / f"{p.stem}.csv").exists()]
    assert not missing


@pytest.mark.parametrize("csv_path", sorted(QUESTIONS.glob("*.csv")), ids=lambda p: p.stem)
def test_shipped_set_validates_against_its_sample(csv_path):
    question_set, documents = load_question_set(csv_path, SAMPLES)
    assert [str(p) for p in question_set.problems] == []
    assert len(question_set.questions) >= 15
    assert len(documents) == 1


def test_insurance_set_has_the_table_questions_seed_002_asks_for():
    question_set, _ = load_question_set(QUESTIONS / "insurance_policy.csv", SAMPLES)
    tables = [q.question.lower() for q in question_set.questions if q.kind == "table"]
    assert len(tables) >= 10
    for topic in ("dwelling info", "deductible", "excluded", "limit"):
        assert any(topic in q for q in tables), topic


def test_end_to_end_on_one_sample_set():
    question_set, documents = load_question_set(QUESTIONS / "product_manual.csv", SAMPLES)
    configs = [preset_config("fixed 1000 chars"), preset_config("recursive 500/50")]
    results = evaluate(question_set, documents, configs, rank="hybrid", k=5, use_cache=False)
    for result in results:
        overall = result.metrics["overall"]
        assert overall["questions"] == len(question_set.questions)
        assert 0.5 <= overall["recall"] <= 1.0  # retrieval finds most answers
        assert 0.0 < overall["precision"] < overall["recall"]
        assert 0.0 < overall["iou"] <= overall["precision"]  # IoU never exceeds precision
        assert result.metrics["table_query_accuracy"] is not None
        for q in result.questions:
            assert 1 <= len(q.retrieved) <= 5
            doc = documents[q.corpus_id]
            assert all(0 <= r.start < r.end <= len(doc.text) for r in q.retrieved)
    fixed, recursive = results
    assert sum(fixed.chunk_counts.values()) != sum(recursive.chunk_counts.values())

"""The shipped question sets: every sample document has one, every reference matches the
converted text exactly (fails when the converter's text changes), and an end-to-end run on one
sample set with the real chunkers, embeddings and ranking."""

from pathlib import Path

import pytest

from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.presets import preset
from core.operations.questions.sets import load_from_folder

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
    loaded = load_from_folder(csv_path, SAMPLES)
    assert [str(p) for p in loaded.questions.problems] == []
    assert len(loaded.questions.questions) >= 15
    assert len(loaded.documents) == 1


def test_insurance_set_has_table_questions():
    question_set = load_from_folder(QUESTIONS / "insurance_policy.csv", SAMPLES).questions
    tables = [q.question.lower() for q in question_set.questions if q.kind == "table"]
    assert len(tables) >= 10
    for topic in ("dwelling info", "deductible", "excluded", "limit"):
        assert any(topic in q for q in tables), topic


def test_end_to_end_on_one_sample_set():
    loaded = load_from_folder(QUESTIONS / "product_manual.csv", SAMPLES)
    question_set, documents = loaded.questions, loaded.documents
    candidates = [Candidate(p.name, p.strategy, dict(p.settings))
                  for p in (preset("fixed 1000 chars"), preset("recursive 500/50"))]
    results = evaluate(question_set, documents, candidates, ranking="hybrid",
                       retrieval=Retrieval(k=5),
                       use_cache=False)
    for result in results:
        overall = result.metrics.overall
        assert overall.questions == len(question_set.questions)
        assert 0.5 <= overall.recall <= 1.0  # retrieval finds most answers
        assert 0.0 < overall.precision < overall.recall
        assert 0.0 < overall.iou <= overall.precision  # IoU never exceeds precision
        assert result.metrics.table_query_accuracy is not None
        for q in result.questions:
            assert 1 <= len(q.retrieved) <= 5
            doc = documents[q.corpus_id]
            assert all(0 <= r.start < r.end <= len(doc.text) for r in q.retrieved)
    fixed, recursive = results
    assert sum(fixed.chunk_counts.values()) != sum(recursive.chunk_counts.values())

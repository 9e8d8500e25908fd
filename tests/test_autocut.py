"""Autocut: the ranked hits are kept up to the first large drop in their scores — the rule
itself, then in the evaluation, in retrieval from a chunk set and in the CLI."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.resources
from core.cli import main
from core.library import default_library
from core.operations.evaluation import Candidate, EvaluationError, Retrieval, evaluate
from core.retrieval.autocut import autocut, cut
from core.retrieval.retrieve import RetrievalError, retrieve
from core.store import ChunkStore
from tests.evaluation_helpers import (  # noqa: F401  (fixtures)
    documents,
    question_set,
    stand_in_chunker,
)
from tests.pages import page_path
from tests.retrieval_helpers import HANDBOOK, SAMPLES, FakeStore, chunks_of, handbook_set

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "How many coordinator failures does a cluster with five coordinators tolerate?"


@pytest.mark.parametrize("scores, jumps, kept", [
    ([0.90, 0.88, 0.87, 0.50, 0.49, 0.48], 1, 3),  # one cliff after the third
    ([0.90, 0.60, 0.59, 0.58, 0.57, 0.56], 1, 1),  # only the best one stands out
    ([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], 1, 6),  # an even descent: no jump, all kept
    ([0.90, 0.89, 0.60, 0.59, 0.30, 0.29], 1, 2),
    ([0.90, 0.89, 0.60, 0.59, 0.30, 0.29], 2, 4),  # the second jump
    ([0.90, 0.89, 0.60, 0.59, 0.30, 0.29], 3, 6),  # fewer jumps than asked: all
    ([0.5, 0.5, 0.5], 1, 3),  # all equal
    ([0.9, 0.1], 1, 2),  # too few to see a jump in
    ([], 1, 0),
    ([0.90, 0.88, 0.87, 0.50], 0, 4),  # no jumps asked: nothing cut
    ([0.033, 0.032, 0.031, 0.016, 0.0159, 0.0158], 1, 3),  # RRF-sized scores cut the same
])
def test_autocut_keeps_the_hits_before_the_jump(scores, jumps, kept):
    assert autocut(scores, jumps) == kept


def test_the_last_hit_alone_can_be_cut():
    assert autocut([0.9, 0.89, 0.88, 0.87, 0.2]) == 4


def test_cut_keeps_whole_items_and_none_means_off():
    ranked = ["a", "b", "c", "d"]
    assert cut(ranked, [0.9, 0.89, 0.3, 0.29], 1) == ["a", "b"]
    assert cut(ranked, [0.9, 0.89, 0.3, 0.29], None) == ranked


def test_the_evaluation_cuts_the_top_k_and_names_the_retrieval(question_set, documents):  # noqa: F811
    [top] = evaluate(question_set, documents, [Candidate("para", "stub")], ranking="bm25",
                     retrieval=Retrieval(k=4))
    [cut_result] = evaluate(question_set, documents, [Candidate("para", "stub")],
                            ranking="bm25", retrieval=Retrieval(k=4, autocut=1))
    assert cut_result.retrieval == "autocut of top-4" and cut_result.autocut == 1
    assert not cut_result.cached  # autocut is part of what decides the result
    for plain, shortened in zip(top.questions, cut_result.questions, strict=True):
        assert shortened.retrieved == plain.retrieved[: len(shortened.retrieved)]
    assert (cut_result.metrics.overall.mean_tokens < top.metrics.overall.mean_tokens)
    with pytest.raises(EvaluationError, match="no token budget"):
        evaluate(question_set, documents, [Candidate("para", "stub")],
                 retrieval=Retrieval(budget=100, autocut=1))


def test_retrieval_from_a_chunk_set_stops_at_the_jump():
    text = ("kiln burner kiln burner kiln.\n\nkiln burner notes.\n\nbread flour.\n\n"
            "rye flour.\n\noven racks.")
    spans, start = [], 0
    for part in text.split("\n\n"):
        spans.append((start, start + len(part)))
        start += len(part) + 2
    store = FakeStore({"bakery": chunks_of("d", text, spans)}, active="bakery")
    packs = retrieve("kiln burner flour", limit=5, ranking="vector", store=store, autocut=1)
    assert [p.spans[0][0] for p in packs] == [spans[0][0], spans[1][0]]
    with pytest.raises(RetrievalError, match="at least 1 jump"):
        retrieve("kiln", store=store, autocut=0)


def test_cli_eval_takes_autocut(capsys):
    questions = str(ROOT / "sample_docs" / "questions" / "service_levels.csv")
    assert main(["eval", "--questions", questions, "--docs", str(ROOT / "sample_docs"),
                 "--strategy", "recursive", "--rank", "bm25", "--k", "8", "--autocut"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["autocut"] == 1 and out["retrieval"] == "autocut of top-8"
    assert 0 < out["overall"]["mean_tokens"]


def test_assemble_cuts_when_autocut_is_on(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    ui.resources.clear()
    default_library().add((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    handbook_set(ChunkStore(), "handbook 200")
    at = AppTest.from_file(page_path("assemble"), default_timeout=120)
    at.session_state["assemble_question"] = QUESTION
    at.session_state["assemble_limit"] = 10
    at.run()
    every = len([s for s in at.subheader if "technical_handbook" in s.value])
    at.toggle(key="assemble_autocut").set_value(True).run()
    assert not at.exception
    kept = len([s for s in at.subheader if "technical_handbook" in s.value])
    assert every == 10 and 1 <= kept < every
    ui.resources.clear()


def test_a_floor_keeps_the_first_hits_and_cuts_at_the_next_jump():
    scores = [0.9, 0.3, 0.29, 0.28, 0.1, 0.09]  # a jump after the first hit, another after 4
    assert autocut(scores) == 1
    assert autocut(scores, floor=2) == 4  # the first jump is within the floor: the next one
    assert autocut(scores, floor=5) == 6  # no jump past the floor: the whole window
    assert cut(list("abcdef"), scores, 1, floor=2) == list("abcd")

"""Small-to-big retrieval: small chunks are ranked, hits that are neighbours in their document
come back as one range (in memory, in the evaluation, from a chunk set), and a preset names it."""

from __future__ import annotations

import pytest

from core.documents.model import Document
from core.evaluation.questions import Question, QuestionSet, Reference
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.evaluation import run as runner
from core.operations.presets import (
    BUILTIN_PRESETS,
    SMALL_TO_BIG,
    built_with,
    save_user_preset,
    set_candidate,
)
from core.operations.strategies import validated_config
from core.retrieval.packs import merge_adjacent, merge_depth, merged_packs
from core.retrieval.ranking import rank_merged
from core.retrieval.retrieve import retrieve
from core.store import ChunkSetInfo
from tests.retrieval_helpers import FakeStore, chunks_of

# Three sentences about the kiln: a question about it should get them back as one passage.
TEXT = ("The kiln is fired every Tuesday. Its burner needs a new thermocouple. "
        "The kiln engineer visits in March. Bread is baked daily at dawn. "
        "Cakes are iced on Fridays. Deliveries leave from the yard at noon.")
SENTENCES = [s + "." for s in TEXT.removesuffix(".").split(". ")]


def _spans() -> list[tuple[int, int]]:
    spans, start = [], 0
    for sentence in SENTENCES:
        start = TEXT.index(sentence, start)
        spans.append((start, start + len(sentence)))
        start += len(sentence)
    return spans


CHUNKS = chunks_of("bakery", TEXT, _spans())


def test_neighbouring_hits_extend_one_run_and_runs_that_touch_fuse():
    ranked = [("d", 3), ("d", 5), ("d", 4), ("e", 4), ("d", 9), ("d", 0)]
    # 3 opens a run, 5 another, 4 joins both into 3..5; e:4 is another document; 9 opens a
    # third run; with limit 3 the isolated 0 is skipped. With limit 1, 5 is skipped too.
    assert merge_adjacent(ranked, 3) == [[0, 1, 2], [3], [4]]
    assert merge_adjacent(ranked, 1) == [[0, 2]]
    assert merge_adjacent([], 5) == []


def test_rank_merged_returns_neighbours_in_document_order():
    # BM25 ranks the three kiln sentences first (the others share no word with the question).
    runs = rank_merged("kiln burner thermocouple engineer", CHUNKS, "bm25", limit=2)
    assert runs[0][0] == [0, 1, 2]
    assert runs[0][1] > 0 and len(runs) == 1


def test_the_evaluation_scores_a_run_as_one_range(monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "chunks_for",
                        lambda document, candidate, store=None, embedder=None: CHUNKS)
    monkeypatch.setattr(runner, "cache_dir", lambda: tmp_path / "evaluation")
    document = Document(doc_id="bakery", source_name="bakery.txt", format="txt", route="text",
                        text=TEXT)
    start, end = CHUNKS[0].start, CHUNKS[2].end
    questions = QuestionSet("q", (Question(
        2, "kiln burner thermocouple engineer", "bakery",
        (Reference(TEXT[start:end], start, end),)),))
    plain, merged = evaluate(questions, {"bakery": document}, [
        Candidate("plain", "stub", ranking="bm25"),
        Candidate("merged", "stub", ranking="bm25", merge_adjacent=True)], retrieval=Retrieval(k=2))
    assert merged.ranking == plain.ranking == "bm25"
    assert len(plain.questions[0].retrieved) == 2 and plain.metrics.overall.recall < 0.7
    (hit,) = merged.questions[0].retrieved
    assert (hit.start, hit.end) == (start, end)
    assert merged.metrics.overall.recall == merged.metrics.overall.iou == 1.0
    assert Candidate("a", "s").key() != Candidate("a", "s", merge_adjacent=True).key()
    at_budget = evaluate(questions, {"bakery": document}, [
        Candidate("plain", "stub", ranking="bm25"),
        Candidate("merged", "stub", ranking="bm25", merge_adjacent=True)],
        retrieval=Retrieval(budget=100))
    assert [r.candidate.label for r in at_budget] == ["plain"]  # the other is still measured
    (failure,) = at_budget.failures
    assert failure.candidate.label == "merged" and "top k" in failure.reason


def test_merged_packs_from_a_chunk_set_hold_the_whole_passage():
    store = FakeStore({"bakery": CHUNKS}, active="bakery")
    packs = retrieve("kiln burner thermocouple engineer", limit=2, ranking="bm25",
                     store=store, merge_adjacent=True)  # type: ignore[arg-type]
    assert len(packs) == 1
    (pack,) = packs
    assert pack.spans == [(c.start, c.end) for c in CHUNKS[:3]]
    assert pack.text == "\n\n".join(c.text for c in CHUNKS[:3])
    assert pack.chunk_ids == [c.id for c in CHUNKS[:3]] and pack.id == pack.hit_ids[0]


def test_merged_packs_need_every_hit_in_the_document_order():
    hits = [(CHUNKS[4], 0.9), (CHUNKS[0], 0.5), (CHUNKS[3], 0.4)]
    packs = merged_packs(hits, 5, {"bakery": CHUNKS})
    assert [p.chunk_ids for p in packs] == [[CHUNKS[3].id, CHUNKS[4].id], [CHUNKS[0].id]]
    assert packs[0].score == 0.9 and packs[0].hit_ids == [CHUNKS[4].id, CHUNKS[3].id]
    assert merge_depth(5) >= 5 and merge_depth(1) >= 1


def test_the_small_to_big_preset_carries_its_retrieval():
    candidate = BUILTIN_PRESETS[SMALL_TO_BIG].candidate()
    assert candidate.merge_adjacent and candidate.ranking == "hybrid"
    assert candidate.strategy == "recursive" and candidate.settings["size"] == 150
    plain = BUILTIN_PRESETS["semantic"].candidate()
    assert not plain.merge_adjacent and plain.ranking is None


def test_a_set_is_known_by_the_preset_it_is_named_after_or_whose_chunking_it_holds():
    preset = BUILTIN_PRESETS[SMALL_TO_BIG]
    resolved = validated_config(preset.strategy, preset.settings).model_dump(mode="json")
    assert built_with(ChunkSetInfo(name=SMALL_TO_BIG, strategy="fixed")) is preset
    assert built_with(ChunkSetInfo(name="mine", strategy="recursive",
                                   settings=resolved)) is preset
    other = {**resolved, "size": 120}
    assert built_with(ChunkSetInfo(name="mine", strategy="recursive", settings=other)) is None


def test_a_set_built_with_small_to_big_is_evaluated_with_its_retrieval():
    preset = BUILTIN_PRESETS[SMALL_TO_BIG]
    resolved = validated_config(preset.strategy, preset.settings).model_dump(mode="json")
    built = set_candidate("chunk set: mine", ChunkSetInfo(name="mine", strategy="recursive",
                                                          settings=resolved))
    assert (built.chunk_set, built.ranking, built.merge_adjacent) == ("mine", "hybrid", True)
    assert built.ranks_with("vector") == "hybrid, neighbours merged"
    other = set_candidate("chunk set: other", ChunkSetInfo(name="other", strategy="fixed"))
    assert (other.ranking, other.merge_adjacent) == (None, False)
    assert other.ranks_with("bm25") == "bm25"


def test_a_set_named_after_a_preset_saved_from_a_tune_retrieves_as_it_does(tmp_path,
                                                                        monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    settings = {"size": 200, "overlap": 20, "unit": "tokens", "tables": True}
    save_user_preset("tuned: recursive 200/20", "recursive", settings, ranking="bm25",
                     retrieval=Retrieval(k=8))
    resolved = validated_config("recursive", settings).model_dump(mode="json")
    built = set_candidate("chunk set: tuned", ChunkSetInfo(
        name="tuned: recursive 200/20", strategy="recursive", settings=resolved))
    assert (built.ranking, built.retrieval) == ("bm25", Retrieval(k=8))
    assert built.retrieves_with(Retrieval(k=5)) == Retrieval(k=8)
    edited = {**resolved, "size": 250}  # the preset's name, another chunking: not the preset's
    assert built_with(ChunkSetInfo(name="tuned: recursive 200/20", strategy="recursive",
                                   settings=edited)) is None


@pytest.mark.parametrize("limit", [1, 2])
def test_merging_never_returns_more_runs_than_asked(limit):
    ranked = [("d", n * 3) for n in range(10)]
    assert len(merge_adjacent(ranked, limit)) == limit

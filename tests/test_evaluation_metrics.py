"""Metric arithmetic on hand-made ranges (every expected value worked out by hand)."""

import pytest

from core.evaluation.metrics import (
    aggregate,
    covered_chars,
    relative_improvement,
    score_question,
    summarize,
    union_ranges,
)


def test_union_merges_overlaps_and_drops_empty_ranges():
    assert union_ranges([(5, 10), (0, 3), (8, 12), (3, 4), (7, 7)]) == [(0, 4), (5, 12)]
    assert covered_chars([(0, 10), (5, 15)]) == 15


def test_one_chunk_exactly_the_reference_is_perfect():
    s = score_question([(10, 20)], [(10, 20)], [(0, 10), (10, 20), (20, 30)])
    assert (s.recall, s.precision, s.iou, s.precision_omega) == (1.0, 1.0, 1.0, 1.0)
    assert s.hit and s.reciprocal_rank == 1.0 and s.first_hit_rank == 1


def test_reference_split_across_two_retrieved_chunks():
    # chunks [0,100) [100,200); reference [80,120) lies half in each
    chunks = [(0, 100), (100, 200)]
    s = score_question(chunks, [(80, 120)], chunks)
    assert s.covered_chars == 40
    assert s.recall == 1.0
    assert s.precision == pytest.approx(40 / 200)
    assert s.iou == pytest.approx(40 / 200)
    assert s.precision_omega == pytest.approx(40 / 200)


def test_reference_split_but_only_half_retrieved():
    chunks = [(0, 100), (100, 200)]
    s = score_question([(100, 200)], [(80, 120)], chunks)
    assert s.covered_chars == 20
    assert s.recall == pytest.approx(0.5)
    assert s.precision == pytest.approx(20 / 100)
    # IoU denominator: 100 retrieved + 20 reference characters never retrieved
    assert s.iou == pytest.approx(20 / 120)


def test_overlapping_retrieved_chunks_count_reference_once_but_retrieved_chars_per_chunk():
    # chunks overlap on [50,100); the reference [60,90) sits inside the overlap
    retrieved = [(0, 100), (50, 150)]
    s = score_question(retrieved, [(60, 90)], retrieved)
    assert s.covered_chars == 30  # counted once, not 60
    assert s.recall == 1.0
    assert s.retrieved_chars == 200  # per chunk, as Chroma's sum_of_ranges
    assert s.precision == pytest.approx(30 / 200)
    assert s.iou == pytest.approx(30 / 200)
    # precisionΩ unions the touching chunks: [0,150) = 150 characters
    assert s.precision_omega == pytest.approx(30 / 150)


def test_reference_never_retrieved():
    chunks = [(0, 50), (50, 100), (100, 150)]
    s = score_question([(0, 50), (100, 150)], [(60, 80)], chunks)
    assert s.covered_chars == 0
    assert (s.recall, s.precision, s.iou) == (0.0, 0.0, 0.0)
    assert not s.hit and s.reciprocal_rank == 0.0 and s.first_hit_rank is None
    # the chunking could still have served it: the one touching chunk [50,100)
    assert s.precision_omega == pytest.approx(20 / 50)


def test_reference_outside_every_chunk_lowers_precision_omega():
    # the chunking does not cover [90,100) at all (e.g. whitespace gap); Ω pays for it
    chunks = [(0, 40), (40, 90)]
    s = score_question([(40, 90)], [(80, 100)], chunks)
    assert s.covered_chars == 10
    assert s.recall == pytest.approx(10 / 20)
    assert s.iou == pytest.approx(10 / (50 + 10))
    assert s.precision_omega == pytest.approx(10 / (50 + 10))


def test_two_references_rank_of_first_touching_chunk():
    chunks = [(0, 10), (10, 20), (20, 30), (30, 40)]
    retrieved = [(0, 10), (20, 30), (30, 40)]
    refs = [(22, 26), (32, 40)]
    s = score_question(retrieved, refs, chunks)
    assert s.first_hit_rank == 2 and s.reciprocal_rank == pytest.approx(0.5)
    assert s.covered_chars == 12 and s.reference_chars == 12
    assert s.precision == pytest.approx(12 / 30)
    assert s.precision_omega == pytest.approx(12 / 20)


def test_chunk_ending_where_reference_starts_does_not_touch_it():
    s = score_question([(0, 10)], [(10, 20)], [(0, 10), (10, 20)])
    assert not s.hit
    assert s.precision_omega == 1.0  # only [10,20) touches


def test_overlapping_references_are_counted_once():
    s = score_question([(0, 100)], [(10, 30), (20, 40)], [(0, 100)])
    assert s.reference_chars == 30 and s.covered_chars == 30 and s.recall == 1.0


def test_no_retrieved_chunks_scores_zero_without_dividing_by_zero():
    s = score_question([], [(0, 5)], [(0, 5)])
    assert (s.recall, s.precision, s.iou, s.reciprocal_rank) == (0.0, 0.0, 0.0, 0.0)


def test_aggregate_per_corpus_and_kind_and_table_accuracy():
    hit = score_question([(0, 10)], [(0, 10)], [(0, 10)])
    miss = score_question([(10, 20)], [(0, 10)], [(0, 10), (10, 20)])
    result = aggregate([("a", "table", hit), ("a", "table", miss), ("b", "text", hit)])
    assert result.overall.questions == 3
    assert result.overall.hit_rate == pytest.approx(2 / 3)
    assert result.per_corpus["a"].recall == pytest.approx(0.5)
    assert result.per_corpus["b"].iou == 1.0
    assert result.per_kind["table"].mrr == pytest.approx(0.5)
    assert result.table_query_accuracy == pytest.approx(0.5)
    assert aggregate([("b", "text", hit)]).table_query_accuracy is None
    assert summarize([]).questions == 0
    assert type(result).from_json(result.to_json()) == result


def test_relative_improvement():
    assert relative_improvement(0.8, 0.5) == pytest.approx(0.6)
    assert relative_improvement(0.5, 0.0) is None
    assert relative_improvement(None, 0.5) is None

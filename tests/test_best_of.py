"""The probability of being best over paired resamples of the questions: ties split, the
winner only at 0.90, ruled out under 2.5 %, the questions that would settle the top two, and
the rule's calibration on simulated question sets."""

import json
import time
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from core.evaluation.best import (
    BestOf,
    best_of,
    probabilities_best,
    resampled_means,
)
from core.evaluation.stats import (
    compare_paired,
    questions_to_separate,
    resample_indices,
    sign_test,
)
from corpora.outcomes import calibration, correlated_outcomes


def test_ties_are_split_evenly():
    means = np.array([[0.5, 0.5, 0.2], [0.1, 0.7, 0.7], [0.3, 0.3, 0.3]])
    # Resample 1: A and B tie; 2: B and C tie; 3: all three tie.
    assert probabilities_best(means).tolist() == pytest.approx([(1 / 2 + 1 / 3) / 3,
                                                               (1 / 2 + 1 / 2 + 1 / 3) / 3,
                                                               (1 / 2 + 1 / 3) / 3])


def test_identical_configurations_share_every_resample():
    same = [1.0, 0.0, 0.5, 1.0, 0.25]
    best = best_of("recall", {"a": same, "b": same, "c": same})
    assert best is not None
    assert list(best.probabilities.values()) == pytest.approx([1 / 3] * 3)
    assert best.winner is None and best.ruled_out == ()
    assert best.sentence() == ("No single winner on recall: a is best in 33 % of resamples of "
                               "the 5 questions; the top two score alike on every question.")


def test_resamples_are_paired_and_seeded():
    values = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]])
    means = resampled_means(values, 50, 3)
    assert means.shape == (50, 2)
    rows = resample_indices(4, 50, 3)
    assert means[:, 0] == pytest.approx(values[0][rows].mean(axis=1))
    assert means[:, 1] == pytest.approx(values[1][rows].mean(axis=1))


def _found(hits: int, questions: int) -> list[float]:
    return [1.0] * hits + [0.0] * (questions - hits)


def test_a_clear_winner_is_named_and_the_weak_ruled_out():
    n = 100
    best = best_of("recall", {"fixed 1000 chars": _found(30, n), "recursive 500/50": _found(80, n),
                              "semantic": _found(50, n), "llm": _found(45, n)},
                   metric_name="recall")
    assert best is not None
    assert best.winner == "recursive 500/50" and best.probabilities["recursive 500/50"] >= 0.9
    assert best.ruled_out == ("fixed 1000 chars", "semantic", "llm")
    assert best.leading[0] == "recursive 500/50"
    assert best.sentence() == ("recursive 500/50 is best on recall in 100 % of resamples of the "
                               "100 questions; fixed 1000 chars, semantic and llm are ruled "
                               "out.")
    assert sum(best.probabilities.values()) == pytest.approx(1.0)


def test_no_winner_below_the_threshold_and_the_questions_to_settle_the_top_two():
    n = 120
    rng = np.random.default_rng(5)
    base = (rng.random(n) < 0.6).astype(float)
    close = base.copy()
    flip = rng.choice(n, 14, replace=False)
    close[flip[:8]] = 1.0
    close[flip[8:]] = 0.0
    best = best_of("recall", {"A": base, "B": close, "C": _found(20, n)})
    assert best is not None and best.winner is None
    assert max(best.probabilities.values()) < 0.9
    assert best.ruled_out == ("C",)
    leader, runner = best.leading
    values = {"A": base, "B": close}
    expected = questions_to_separate(compare_paired("recall", runner, list(values[runner]),
                                                    leader, list(values[leader])))
    assert expected and best.questions_to_settle == expected
    assert best.sentence().startswith(f"No single winner on recall: {leader} is best in ")
    assert best.sentence().endswith(f"C is ruled out; about {expected:,} more questions would "
                                    "separate the top two.")


def test_a_winner_exactly_from_ninety_percent():
    rng = np.random.default_rng(11)
    base = (rng.random(60) < 0.5).astype(float)
    seen = set()
    for gained in range(12):
        lead = base.copy()
        lead[np.flatnonzero(base == 0)[:gained]] = 1.0
        best = best_of("recall", {"A": lead, "B": base, "C": _found(5, 60)})
        assert best is not None
        named = best.probabilities["A"] >= 0.90
        assert best.winner == ("A" if named else None)
        assert best.sentence().startswith("A is best" if named else "No single winner")
        seen.add(named)
    assert seen == {True, False}


def test_fewer_than_three_configurations_or_no_question_give_none():
    assert best_of("recall", {"A": [1.0], "B": [0.0]}) is None
    assert best_of("recall", {"A": [], "B": [], "C": []}) is None


def test_json_round_trip():
    best = best_of("iou", {"A": _found(5, 20), "B": _found(6, 20), "C": _found(12, 20)},
                   metric_name="IoU")
    assert best is not None
    data = json.loads(json.dumps(best.to_json()))
    assert data["sentence"] == best.sentence() and data["winner"] == best.winner
    again = BestOf.from_json(data)
    assert again.sentence() == best.sentence()
    assert again.probabilities == pytest.approx(best.probabilities, abs=1e-4)


def test_sign_test_stays_exact_and_fast_on_many_questions():
    exact = float(Fraction(2 * sum(comb(2000, i) for i in range(901)), 2**2000))
    assert sign_test(900, 1100) == pytest.approx(exact, rel=1e-9)
    started = time.perf_counter()
    assert sign_test(49_000, 51_000) < 1e-9
    assert time.perf_counter() - started < 1.0


def test_best_of_is_the_vectorised_rule():
    outcomes = correlated_outcomes([0.7, 0.6, 0.6], 40, 5, seed=1)
    for run in outcomes:
        best = best_of("hit", {str(i): run[i] for i in range(3)}, resamples=1000)
        chances = probabilities_best(resampled_means(run, 1000))
        assert best is not None
        assert list(best.probabilities.values()) == pytest.approx(chances.tolist())


# Scenarios over 100 questions: a real difference (clear or small) among equal others, and a
# null where any winner named is wrong.
MIX = [(0.70, 0.60, 0.60, 0.50), (0.66, 0.62, 0.62, 0.55), (0.65, 0.60, 0.60),
       (0.60, 0.60, 0.60, 0.60)]


def test_winners_named_at_ninety_percent_are_right_ninety_percent_of_the_time():
    started = time.perf_counter()
    found = [calibration(means, 100, 400, seed=seed) for seed, means in enumerate(MIX)]
    named = sum(c.named for c in found)
    right = sum(c.right for c in found)
    assert named > 200  # the rule does name winners
    assert right / named >= 0.90
    clear, _, _, null = found
    assert clear.right_share >= 0.95
    assert null.right == 0 and null.named <= 0.06 * null.runs  # rarely a winner by chance
    assert time.perf_counter() - started < 10

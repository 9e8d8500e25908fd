"""Bootstrap intervals and paired comparisons against values computed by hand."""

from math import comb

import pytest

from core.evaluation.stats import (
    bootstrap_ci,
    compare_paired,
    format_p,
    outcomes,
    resample_indices,
    sign_test,
)


def test_resampling_is_seeded_and_pinned():
    # PCG64 with seed 7: the rows the hand computation below uses.
    assert resample_indices(3, 4, 7).tolist() == [[2, 1, 2], [2, 1, 2], [2, 0, 0], [0, 0, 2]]
    assert (resample_indices(10, 50, 3) == resample_indices(10, 50, 3)).all()


def test_bootstrap_interval_computed_by_hand():
    values = [0.0, 1.0, 0.5]
    # Resampled means: (.5+1+.5)/3 = 2/3 twice, (.5+0+0)/3 = 1/6 twice. Sorted: 1/6 1/6 2/3 2/3.
    # 2.5th percentile at position 0.025*3 = 0.075 → 1/6; 97.5th at 2.925 → 2/3.
    low, high = bootstrap_ci(values, resamples=4, seed=7)
    assert low == pytest.approx(1 / 6) and high == pytest.approx(2 / 3)


def test_bootstrap_interpolates_between_resampled_means():
    # Means of the 4 resamples of [0, 3]: rows of resample_indices(2, 4, 1).
    rows = resample_indices(2, 4, 1).tolist()
    means = sorted(sum([0.0, 3.0][i] for i in row) / 2 for row in rows)
    low, high = bootstrap_ci([0.0, 3.0], resamples=4, seed=1)
    assert low == pytest.approx(means[0] + 0.075 * (means[1] - means[0]))
    assert high == pytest.approx(means[2] + 0.925 * (means[3] - means[2]))


def test_bootstrap_of_equal_values_is_a_point_and_is_deterministic():
    assert bootstrap_ci([0.4] * 9) == pytest.approx((0.4, 0.4))
    assert bootstrap_ci([]) == (0.0, 0.0)
    data = [i / 10 for i in range(10)]
    assert bootstrap_ci(data) == bootstrap_ci(data)
    low, high = bootstrap_ci(data)
    assert low < sum(data) / 10 < high


def test_sign_test_is_the_two_sided_binomial():
    assert sign_test(9, 1) == pytest.approx(2 * (comb(10, 0) + comb(10, 1)) / 2**10)  # 0.0215
    assert sign_test(0, 6) == pytest.approx(2 / 64)
    assert sign_test(5, 5) == 1.0 and sign_test(0, 0) == 1.0
    assert sign_test(3, 7) == sign_test(7, 3)


def test_paired_comparison_counts_and_verdicts():
    a = [0.0] * 9 + [0.5] * 4
    b = [1.0] * 9 + [0.0] + [0.5] * 3  # 9 wins, 1 loss, 3 ties
    assert outcomes(a, b) == [1] * 9 + [-1] + [0] * 3
    result = compare_paired("recall", "A", a, "B", b)
    assert (result.wins, result.losses, result.ties, result.questions) == (9, 1, 3, 13)
    assert result.p_value == pytest.approx(0.021484375)
    assert result.verdict("recall") == "B is better than A on recall (p = 0.021)."
    assert result.diff_ci95[0] > 0
    flipped = compare_paired("recall", "B", b, "A", a)
    assert flipped.verdict("recall") == "B is better than A on recall (p = 0.021)."
    even = compare_paired("iou", "A", [0.1, 0.2, 0.3], "B", [0.2, 0.1, 0.3])
    assert even.verdict("IoU").startswith("No difference on IoU detectable with 3 questions")


def test_p_values_read_as_people_write_them():
    assert format_p(0.0104) == "p = 0.01"
    assert format_p(0.2) == "p = 0.2"
    assert format_p(0.0004) == "p < 0.001"


def test_share_interval_is_wilson_and_honest_on_few_questions():
    from core.evaluation.stats import share_ci

    low, high = share_ci([1.0] * 8)  # all found on 8 questions: not a certainty
    assert low == pytest.approx(0.6756, abs=1e-4) and high == pytest.approx(1.0)
    low, high = share_ci([1.0] * 6 + [0.0] * 4)  # 6 of 10: Wilson by hand
    assert (low, high) == (pytest.approx(0.3127, abs=1e-4), pytest.approx(0.8318, abs=1e-4))
    assert share_ci([]) == (0.0, 0.0) and share_ci([0.0] * 5)[0] == pytest.approx(0.0)

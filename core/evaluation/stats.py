"""How sure a result is: intervals over questions and paired comparisons.

- :func:`bootstrap_ci`: the 95 % percentile bootstrap interval of a mean over questions,
  resampling questions with replacement (seeded, so the same scores always give the same
  interval).
- :func:`share_ci`: the 95 % Wilson score interval of a mean of shares (values in 0..1, such as
  recall per question). Honest on few questions where the bootstrap is not: 8 questions all
  found give [0.68, 1], not [1, 1].
- :func:`compare_paired`: two configurations on the same questions. Per question B wins, loses
  or ties against A; the two-sided **sign test** (exact binomial over the questions that are not
  ties) says whether B's wins could be chance, and a paired bootstrap gives the interval of the
  mean difference B − A.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import exp, log, sqrt

import numpy as np

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
LEVEL = 0.95
ALPHA = 1 - LEVEL
TIE_TOLERANCE = 1e-9

Interval = tuple[float, float]


def resample_indices(n: int, resamples: int = DEFAULT_RESAMPLES,
                     seed: int = DEFAULT_SEED) -> np.ndarray:
    """``resamples`` × ``n`` question indices drawn with replacement (NumPy PCG64, ``seed``)."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def bootstrap_ci(values: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED) -> Interval:
    """The 2.5th and 97.5th percentiles (linear interpolation) of the resampled means."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (0.0, 0.0)
    means = data[resample_indices(data.size, resamples, seed)].mean(axis=1)
    low, high = np.quantile(means, [ALPHA / 2, 1 - ALPHA / 2])
    return (float(low), float(high))


def share_ci(values: Sequence[float], z: float = 1.959964) -> Interval:
    """The Wilson score interval of the mean of ``values`` (each in 0..1) over ``n`` questions.
    For questions scored 0 or 1 it is the usual interval of a proportion; a value in between
    varies less than a 0-or-1 one of the same mean (at most p(1 − p)), so the interval is, if
    anything, wide."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0)
    p = min(1.0, max(0.0, sum(values) / n))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test: the probability, with a fair coin per non-tied question, of a
    split at least as uneven as ``wins`` : ``losses``."""
    n = wins + losses
    if n == 0:
        return 1.0
    # log C(n, i) for i = 0..min, summed in log space: exact integers grow with n, and
    # :func:`questions_to_separate` asks about many thousands of questions.
    steps = np.arange(min(wins, losses))
    logs = np.concatenate(([0.0], np.cumsum(np.log((n - steps) / (steps + 1)))))
    top = float(logs.max())
    tail = exp(top + log(float(np.exp(logs - top).sum())) - n * log(2))
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class PairedComparison:
    """B against A on one metric, question by question."""

    metric: str
    label_a: str
    label_b: str
    wins: int  # questions where B scores higher than A
    losses: int  # … lower
    ties: int
    mean_a: float
    mean_b: float
    diff_ci95: Interval  # paired bootstrap interval of mean(B − A)
    p_value: float  # sign test

    @property
    def questions(self) -> int:
        return self.wins + self.losses + self.ties

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA

    def verdict(self, metric_label: str | None = None) -> str:
        """One sentence: which is better and how sure, or that no difference is detectable."""
        name = metric_label or self.metric
        if not self.significant:
            return (f"No difference on {name} detectable with {self.questions} questions "
                    f"({self.label_b} higher on {self.wins}, {self.label_a} on {self.losses}, "
                    f"{self.ties} ties; {format_p(self.p_value)}).")
        better, worse = ((self.label_b, self.label_a) if self.wins > self.losses
                         else (self.label_a, self.label_b))
        return f"{better} is better than {worse} on {name} ({format_p(self.p_value)})."


def format_p(p: float) -> str:
    """``p = 0.01`` (two significant digits), ``p < 0.001`` below that."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def outcomes(a: Sequence[float], b: Sequence[float]) -> list[int]:
    """Per question: +1 when B beats A, −1 when A beats B, 0 for a tie."""
    return [0 if abs(y - x) <= TIE_TOLERANCE else (1 if y > x else -1)
            for x, y in zip(a, b, strict=True)]


def compare_paired(metric: str, label_a: str, a: Sequence[float], label_b: str,
                   b: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED) -> PairedComparison:
    """Compare per-question values of B with A's (the same questions, the same order)."""
    results = outcomes(a, b)
    wins, losses = results.count(1), results.count(-1)
    differences = [y - x for x, y in zip(a, b, strict=True)]
    return PairedComparison(
        metric=metric, label_a=label_a, label_b=label_b, wins=wins, losses=losses,
        ties=len(results) - wins - losses,
        mean_a=float(np.mean(a)) if len(a) else 0.0, mean_b=float(np.mean(b)) if len(b) else 0.0,
        diff_ci95=bootstrap_ci(differences, resamples=resamples, seed=seed),
        p_value=sign_test(wins, losses),
    )


MIN_DIFFERING = 6  # questions that differ the sign test needs at the least: 2 / 2**6 < 0.05
MAX_SEPARATING = 100_000  # questions beyond which :func:`questions_to_separate` gives up


def questions_to_separate(comparison: PairedComparison) -> int | None:
    """How many more questions the sign test would need to call the difference (p < 0.05),
    were wins, losses and ties to keep their shares: 0 when it already does; None when no
    number would (as many wins as losses) or more than :data:`MAX_SEPARATING` would."""
    return more_questions(comparison.wins, comparison.losses, comparison.ties)


def more_questions(wins: int, losses: int, ties: int) -> int | None:
    """:func:`questions_to_separate` from the counts alone."""
    n = wins + losses + ties
    if sign_test(wins, losses) < ALPHA:
        return 0
    if wins == losses or n == 0:
        return None
    needed = questions_needed(wins / n, losses / n, known_short=n)
    return None if needed is None else needed - n


def questions_needed(win_share: float, loss_share: float, known_short: int = 0) -> int | None:
    """The fewest questions on which the sign test calls the difference (p < 0.05) when B does
    better on ``win_share`` of them and worse on ``loss_share``; None when no number would (as
    many wins as losses) or more than :data:`MAX_SEPARATING` would. ``known_short``: a number
    already known to be too few."""
    if win_share == loss_share:
        return None

    def separates(total: int) -> bool:
        return sign_test(round(win_share * total), round(loss_share * total)) < ALPHA

    low, high = known_short, max(2 * known_short, MIN_DIFFERING)  # the answer is in (low, high]
    while not separates(high):
        if high > MAX_SEPARATING:
            return None
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if separates(middle) else (middle, high)
    return high

"""Per-question outcomes simulated with known true means, and how often the "best in ≥ 90 % of
resamples" rule (:mod:`core.evaluation.best`) names the truly best configuration on them.

Questions differ in difficulty and every configuration feels it: a question's outcome under a
configuration is found (1) or missed (0) as a latent score — a difficulty shared by all
configurations plus noise of its own, correlated ``rho`` — falls under the threshold that gives
the configuration its true mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from core.evaluation.best import WINNER_AT, probabilities_best, resampled_means


def correlated_outcomes(means: Sequence[float], questions: int, runs: int, *, rho: float = 0.5,
                        seed: int = 0) -> np.ndarray:
    """``runs`` × configurations × ``questions`` outcomes (0 or 1), each configuration found
    with probability its ``means`` on a question of average difficulty."""
    rng = np.random.default_rng(seed)
    thresholds = np.array([NormalDist().inv_cdf(m) for m in means])
    shared = rng.standard_normal((runs, 1, questions))
    own = rng.standard_normal((runs, len(means), questions))
    latent = np.sqrt(rho) * shared + np.sqrt(1 - rho) * own
    return (latent < thresholds[None, :, None]).astype(float)


@dataclass(frozen=True)
class Calibration:
    """Of ``runs`` simulated question sets: how many named a winner, how many named the truly
    best (the one configuration with the highest true mean; with several, no winner is
    right)."""

    means: tuple[float, ...]
    questions: int
    runs: int
    named: int
    right: int

    @property
    def right_share(self) -> float:
        return self.right / self.named if self.named else 1.0


def calibration(means: Sequence[float], questions: int, runs: int, *, rho: float = 0.5,
                seed: int = 0, resamples: int = 1000) -> Calibration:
    """Run the rule on ``runs`` simulated question sets at once."""
    k = len(means)
    outcomes = correlated_outcomes(means, questions, runs, rho=rho, seed=seed)
    resampled = resampled_means(outcomes.reshape(runs * k, questions), resamples, seed)
    chances = probabilities_best(resampled.reshape(resamples, runs, k))
    named = chances.max(axis=1) >= WINNER_AT
    truth = np.asarray(means)
    unique = int((truth == truth.max()).sum()) == 1
    right = named & (chances.argmax(axis=1) == truth.argmax()) & unique
    return Calibration(tuple(means), questions, runs, int(named.sum()), int(right.sum()))

"""Which of three or more configurations is best, and whether the questions can tell.

Comparing each configuration with a baseline and naming the best-looking one prices none of the
selection: with four configurations one looks best by chance. Instead, the questions are
resampled with replacement (the same resampled questions for every configuration, seeded as
:func:`core.evaluation.stats.resample_indices`), and each configuration's **probability of
being best** is the share of resamples in which its mean is the highest (a tie split evenly
among the tied). A winner is named only when its probability reaches :data:`WINNER_AT`; a
configuration whose probability is below :data:`RULED_OUT_BELOW` is ruled out; and the leading
two are compared question by question to say how many more questions would separate them
(:func:`core.evaluation.stats.questions_to_separate`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from core.evaluation.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    TIE_TOLERANCE,
    more_questions,
    outcomes,
    resample_indices,
)

WINNER_AT = 0.90  # probability of being best from which a winner is named
RULED_OUT_BELOW = 0.025  # probability of being best under which a configuration is ruled out
MIN_CONFIGURATIONS = 3  # two are compared head to head (the sign test) instead


@dataclass(frozen=True)
class BestOf:
    """Each configuration's probability of being best on one metric, and what follows."""

    metric: str  # the metric's key ("recall")
    metric_name: str  # as a sentence names it ("recall", "IoU")
    questions: int
    resamples: int
    probabilities: dict[str, float]  # name → probability of being best, in the order given
    leading: tuple[str, str]  # the two most probable, the first first
    winner: str | None  # named only at WINNER_AT or above
    ruled_out: tuple[str, ...]  # below RULED_OUT_BELOW
    questions_to_settle: int | None  # more questions to separate the leading two (0: already;
    # None: no number would, or more than one could write)
    leading_record: tuple[int, int]  # questions the first of the two does better on, the second
    questions_label: str = "questions"  # what the sentence calls them ("held-back questions")

    def sentence(self) -> str:
        """"recursive 500/50 is best on recall in 94 % of resamples of the 120 questions." or
        "No single winner on recall: …; … is ruled out; about 1,900 more questions would
        separate the top two."."""
        first = self.leading[0]
        share = _percent(self.probabilities[first])
        over = f"{self.questions:,} {self.questions_label}"
        out = _ruled_out(self.ruled_out)
        if self.winner is not None:
            return (f"{self.winner} is best on {self.metric_name} in {share} of resamples of "
                    f"the {over}{out}.")
        return (f"No single winner on {self.metric_name}: {first} is best in {share} of "
                f"resamples of the {over}{out}; {self._settle()}.")

    def explanation(self) -> str:
        """How the probabilities were found and what the thresholds are, for the details."""
        return (f"The {self.questions:,} {self.questions_label} drawn again with replacement "
                f"{self.resamples:,} times, the same draw for every configuration; each one's "
                f"probability is the share of draws in which it has the highest "
                f"{self.metric_name} (a tie is shared). A winner is named from "
                f"{_percent(WINNER_AT)}; under {RULED_OUT_BELOW * 100:.1f} % a configuration "
                "is ruled out.")

    def _settle(self) -> str:
        more = self.questions_to_settle
        ahead, behind = self.leading_record
        if ahead == behind == 0:
            return "the top two score alike on every question"
        if more == 0:
            return "the sign test already separates the top two; the others keep it open"
        if more is None and ahead == behind:
            return ("the top two each do better on as many questions: no number of questions "
                    "would separate them")
        if more is None:
            return "more questions than one could write would separate the top two"
        return f"about {more:,} more question{'s' * (more != 1)} would separate the top two"

    def to_json(self) -> dict[str, Any]:
        """The verdict as the CLIs print it and the pages and reports read it back."""
        out = asdict(self)
        out["probabilities"] = {k: round(v, 4) for k, v in self.probabilities.items()}
        out["leading"] = list(self.leading)
        out["ruled_out"] = list(self.ruled_out)
        out["leading_record"] = list(self.leading_record)
        out["sentence"] = self.sentence()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BestOf:
        return cls(data["metric"], data["metric_name"], data["questions"], data["resamples"],
                   dict(data["probabilities"]), (data["leading"][0], data["leading"][1]),
                   data["winner"], tuple(data["ruled_out"]), data["questions_to_settle"],
                   (data["leading_record"][0], data["leading_record"][1]),
                   data.get("questions_label", "questions"))


def _percent(p: float) -> str:
    if 0 < p < 0.005:
        return "under 1 %"
    if 0.995 <= p < 1:
        return "over 99 %"
    return f"{p:.0%}".replace("%", " %")


def _ruled_out(names: Sequence[str]) -> str:
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"; {listed} {'is' if len(names) == 1 else 'are'} ruled out"


def resampled_means(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED) -> np.ndarray:
    """``resamples`` × configurations: each configuration's mean over the same resampled
    questions (``values``: configurations × questions). Summed by ``einsum``, not BLAS: a
    product this small pays more for BLAS's threads than it gains on a busy machine."""
    return np.einsum("rn,kn->rk", _counts(values.shape[1], resamples, seed),
                     values) / values.shape[1]


@lru_cache(maxsize=2)
def _counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """How often each question is drawn in each resample (``resamples`` × ``n``); kept, as the
    same questions are resampled again for every metric and every rerun of a page."""
    rows = resample_indices(n, resamples, seed)
    offsets = (rows + n * np.arange(resamples)[:, None]).ravel()
    counts = np.bincount(offsets, minlength=resamples * n).reshape(resamples, n).astype(float)
    counts.flags.writeable = False
    return counts


def probabilities_best(means: np.ndarray) -> np.ndarray:
    """Per configuration (the last axis of ``means``), the share of resamples (its first axis)
    in which it is best; a tie within :data:`TIE_TOLERANCE` shares the resample evenly. Axes
    between the two (several comparisons at once) are kept."""
    best = means >= means.max(axis=-1, keepdims=True) - TIE_TOLERANCE
    return (best / best.sum(axis=-1, keepdims=True)).mean(axis=0)


def best_of(metric: str, values: Mapping[str, Sequence[float]], *, metric_name: str = "",
            questions_label: str = "questions", resamples: int = DEFAULT_RESAMPLES,
            seed: int = DEFAULT_SEED) -> BestOf | None:
    """The probability of being best of each configuration (name → its per-question values,
    the same questions in the same order); None with fewer than :data:`MIN_CONFIGURATIONS`
    configurations or no question."""
    names = list(values)
    matrix = np.asarray([values[name] for name in names], dtype=float)
    if len(names) < MIN_CONFIGURATIONS or matrix.shape[1] == 0:
        return None
    chances = probabilities_best(resampled_means(matrix, resamples, seed))
    means = matrix.mean(axis=1)
    order = sorted(range(len(names)), key=lambda i: (-chances[i], -means[i], i))
    first, second = order[0], order[1]
    record = outcomes(matrix[second].tolist(), matrix[first].tolist())
    ahead, behind = record.count(1), record.count(-1)
    probabilities = {name: float(p) for name, p in zip(names, chances, strict=True)}
    return BestOf(
        metric=metric, metric_name=metric_name or metric, questions=matrix.shape[1],
        resamples=resamples, probabilities=probabilities,
        leading=(names[first], names[second]),
        winner=names[first] if chances[first] >= WINNER_AT else None,
        ruled_out=tuple(n for n in names if probabilities[n] < RULED_OUT_BELOW),
        questions_to_settle=more_questions(ahead, behind, len(record) - ahead - behind),
        leading_record=(ahead, behind), questions_label=questions_label,
    )

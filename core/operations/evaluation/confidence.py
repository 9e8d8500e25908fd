"""How sure an evaluation is: intervals of each configuration's metrics, which of two
configurations is better question by question (:mod:`core.evaluation.stats`), which of three or
more is best and whether the questions can tell (:mod:`core.evaluation.best`), and what the
LLM's contextual prefixes add (a configuration against itself embedded without them)."""

from __future__ import annotations

from dataclasses import dataclass

from core.evaluation.best import MIN_CONFIGURATIONS, best_of
from core.evaluation.best import (  # the verdict's type and threshold, for pages and reports
    WINNER_AT as WINNER_AT,
)
from core.evaluation.best import BestOf as BestOf
from core.evaluation.metrics import METRIC_LABELS, METRICS, question_value
from core.evaluation.stats import (
    Interval,
    PairedComparison,
    bootstrap_ci,
    compare_paired,
    outcomes,
)
from core.evaluation.stats import (
    format_p as format_p,  # offered to the pages with the rest of the statistics
)
from core.operations.evaluation.candidates import Candidate, EvaluationError
from core.operations.evaluation.results import CandidateResult
from core.operations.strategies import uses_llm

OUTCOME_LABELS = {1: "B wins", -1: "A wins", 0: "tie"}


def values(result: CandidateResult, metric: str) -> list[float]:
    """The per-question values whose mean is the overall ``metric``."""
    return [question_value(q.scores, metric) for q in result.questions]


def intervals(result: CandidateResult) -> dict[str, Interval]:
    """The 95 % bootstrap interval of every overall metric (seeded: always the same)."""
    return {metric: bootstrap_ci(values(result, metric)) for metric in METRICS}


def _same_questions(a: CandidateResult, b: CandidateResult) -> None:
    if [(q.row, q.corpus_id) for q in a.questions] != [(q.row, q.corpus_id) for q in b.questions]:
        raise EvaluationError(
            f"{a.candidate.label} and {b.candidate.label} were not run on the same questions; "
            "run them together to compare them.")


def compare(a: CandidateResult, b: CandidateResult, metric: str) -> PairedComparison:
    """B against A on ``metric``: wins, losses, ties, sign-test p-value, paired interval."""
    _same_questions(a, b)
    return compare_paired(metric, a.candidate.label, values(a, metric), b.candidate.label,
                          values(b, metric))


def metric_name(metric: str) -> str:
    """The metric as a sentence names it: "recall", "hit rate", "IoU", "MRR"."""
    label = METRIC_LABELS[metric]
    return label if label in ("IoU", "MRR") else label[0].lower() + label[1:]


def verdict(comparison: PairedComparison) -> str:
    """"B is better than A on recall (p = 0.01)." or "No difference on recall detectable …"."""
    return comparison.verdict(metric_name(comparison.metric))


BEST_METRIC = "recall"  # what "best" means when a sentence names one configuration best


def best_configuration(results: list[CandidateResult],
                       metric: str = BEST_METRIC) -> BestOf | None:
    """With three or more configurations, each one's probability of being best on ``metric``
    over paired resamples of the questions, and the winner if the questions can tell."""
    if len(results) < MIN_CONFIGURATIONS:
        return None
    for other in results[1:]:
        _same_questions(results[0], other)
    return best_of(metric, {r.candidate.label: values(r, metric) for r in results},
                   metric_name=metric_name(metric))


@dataclass(frozen=True)
class Outcome:
    index: int  # position of the question in the results (the drill-down's index)
    row: int
    corpus_id: str
    question: str
    a: float
    b: float
    outcome: str  # "B wins", "A wins" or "tie"


def outcome_rows(a: CandidateResult, b: CandidateResult, metric: str) -> list[Outcome]:
    """Per question: A's and B's value of ``metric`` and who wins."""
    _same_questions(a, b)
    va, vb = values(a, metric), values(b, metric)
    return [Outcome(i, q.row, q.corpus_id, q.question, x, y, OUTCOME_LABELS[o])
            for i, (q, x, y, o) in enumerate(zip(a.questions, va, vb, outcomes(va, vb),
                                                 strict=True))]


def with_prefix_twins(candidates: list[Candidate]) -> list[Candidate]:
    """Each configuration whose chunks may carry contextual prefixes (LLM chunking, hand edits
    of one, a stored chunk set) followed by itself embedded without them."""
    out = []
    for candidate in candidates:
        out.append(candidate)
        if candidate.contextual and (candidate.chunk_set
                                     or uses_llm(candidate.strategy, candidate.settings)):
            out.append(candidate.without_prefixes())
    return out


@dataclass(frozen=True)
class ContextualDelta:
    """The same chunking evaluated with and without its contextual prefixes embedded."""

    with_prefixes: CandidateResult
    without: CandidateResult

    def values(self, metric: str) -> tuple[float, float, float]:
        """With, without, and with minus without."""
        on = self.with_prefixes.metrics.overall.value(metric)
        off = self.without.metrics.overall.value(metric)
        return on, off, on - off

    def verdict(self, metric: str = "recall") -> str:
        """Whether the prefixes make a difference question by question."""
        return verdict(compare(self.without, self.with_prefixes, metric))


def contextual_deltas(results: list[CandidateResult]) -> list[ContextualDelta]:
    """Each result embedded without prefixes beside the same chunking embedded with them."""
    with_prefixes = {r.candidate.chunking_key(): r for r in results if r.candidate.contextual}
    return [ContextualDelta(with_prefixes[r.candidate.chunking_key()], r) for r in results
            if not r.candidate.contextual and r.candidate.chunking_key() in with_prefixes]

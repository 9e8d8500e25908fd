"""What a tune found: each trial's figures, the Pareto front of quality against cost, and the
recommendation with its evidence.

Quality is the tune's objective — recall, IoU, or both balanced (per question the harmonic mean
of recall and IoU: high only when the references are found *and* little else is retrieved) —
and cost the mean tokens a question retrieves
(``overall.mean_tokens`` of a result). Trials are scored on the search
part of the question set; the front and the recommendation are then scored again on the
held-back part, and the recommendation's figures and comparisons are those; so is which of
them is best on the objective and whether the held-back questions can tell
(:mod:`core.evaluation.best`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from core.evaluation.best import MIN_CONFIGURATIONS, BestOf, best_of
from core.evaluation.metrics import QuestionScore
from core.evaluation.split import Split
from core.evaluation.stats import (
    MIN_DIFFERING,
    Interval,
    PairedComparison,
    compare_paired,
    format_p,
    questions_to_separate,
    share_ci,
)
from core.operations.assemble.budget import TokenBudget
from core.operations.evaluation import CandidateResult, Retrieval
from core.operations.presets import BUILTIN_PRESETS
from core.operations.tune.space import TrialPlan

Objective = Literal["recall", "iou", "balanced"]
OBJECTIVES: tuple[str, ...] = ("recall", "iou", "balanced")
OBJECTIVE_NAMES = {"recall": "recall", "iou": "IoU", "balanced": "balanced recall and IoU"}


def question_objective(score: QuestionScore, objective: str) -> float:
    """One question's value of the objective; its mean over questions is the tune's score."""
    if objective == "recall":
        return score.recall
    if objective == "iou":
        return score.iou
    total = score.recall + score.iou
    return 2 * score.recall * score.iou / total if total else 0.0


@dataclass(frozen=True)
class Figures:
    """One configuration's scores on one part of the question set (intervals: Wilson's, honest
    on few questions)."""

    questions: int
    objective: float
    objective_ci: Interval
    recall: float
    recall_ci: Interval
    iou: float
    tokens: float  # mean retrieved per question
    values: tuple[float, ...]  # the objective per question, for paired comparisons

    @classmethod
    def of(cls, result: CandidateResult, objective: str) -> Figures:
        values = [question_objective(q.scores, objective) for q in result.questions]
        recalls = [q.scores.recall for q in result.questions]
        ious = [q.scores.iou for q in result.questions]
        return cls(len(values), _mean(values), share_ci(values), _mean(recalls),
                   share_ci(recalls), _mean(ious), result.metrics.overall.mean_tokens,
                   tuple(round(v, 6) for v in values))

    def to_json(self, values: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "questions": self.questions, "objective": round(self.objective, 6),
            "objective_ci95": [round(v, 6) for v in self.objective_ci],
            "recall": round(self.recall, 6),
            "recall_ci95": [round(v, 6) for v in self.recall_ci], "iou": round(self.iou, 6),
            "tokens": round(self.tokens, 1)}
        return out | ({"values": list(self.values)} if values else {})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Figures:
        return cls(data["questions"], data["objective"], tuple(data["objective_ci95"]),
                   data["recall"], tuple(data["recall_ci95"]), data["iou"], data["tokens"],
                   tuple(data["values"]))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


@dataclass(frozen=True)
class TrialOutcome:
    """A finished trial: its configuration, its figures on the search part, and what it cost."""

    number: int
    plan: TrialPlan
    search: Figures
    seconds: float
    chunked_new: bool  # some document was chunked for it (not served by an earlier trial)
    embedded_new: int  # texts the model embedded for it
    run: str = ""  # its record in the run history

    @property
    def label(self) -> str:
        return self.plan.candidate.label

    @property
    def from_cache(self) -> bool:
        """Chunks and embeddings all served by earlier work."""
        return not self.chunked_new and self.embedded_new == 0

    @property
    def builtin_preset(self) -> str | None:
        """The built-in preset this trial ran as Evaluate runs it by default (its own ranking,
        else vector; top 5), if it ran one so."""
        preset = BUILTIN_PRESETS.get(self.plan.preset or "")
        if preset is None:
            return None
        candidate = self.plan.candidate
        default = (candidate.ranking or "vector") == (preset.ranking or "vector") \
            and candidate.merge_adjacent == preset.merge_adjacent \
            and self.plan.retrieval == Retrieval() and candidate.embedder.builtin
        return preset.name if default else None


def front(outcomes: Sequence[TrialOutcome]) -> list[TrialOutcome]:
    """The configurations no other beats on both quality and cost, cheapest first (one trial
    per configuration: the first that ran it)."""
    distinct = list({o.plan.key(): o for o in reversed(outcomes)}.values())

    def dominated(o: TrialOutcome) -> bool:
        return any(p.search.objective >= o.search.objective and p.search.tokens <= o.search.tokens
                   and (p.search.objective > o.search.objective
                        or p.search.tokens < o.search.tokens) for p in distinct)

    kept = [o for o in distinct if not dominated(o)]
    return sorted(kept, key=lambda o: (o.search.tokens, -o.search.objective, o.number))


def ranked(outcomes: Sequence[TrialOutcome], cap: int | None,
           min_recall: float | None = None) -> list[TrialOutcome]:
    """Distinct configurations within ``cap`` tokens per question and with recall at least
    ``min_recall`` on the search questions, best objective first (a tie goes to the cheaper,
    then the earlier)."""
    distinct = {o.plan.key(): o for o in reversed(outcomes)}.values()
    feasible = [o for o in distinct if (cap is None or o.search.tokens <= cap)
                and (min_recall is None or o.search.recall >= min_recall)]
    return sorted(feasible, key=lambda o: (-o.search.objective, o.search.tokens, o.number))


def _beats(objective: str, better: TrialOutcome, worse: TrialOutcome) -> bool:
    """``better`` scores significantly higher than ``worse`` on the search questions."""
    c = compare_paired(objective, worse.label, list(worse.search.values), better.label,
                       list(better.search.values))
    return c.significant and c.wins > c.losses


@dataclass(frozen=True)
class Choice:
    """What the search questions decide: the recommendation, the configuration it is held
    against, how many tie with the top scorer, and a costlier one that does significantly
    better (over the budget, or when the knee is cheaper than the top)."""

    pick: TrialOutcome | None
    against: TrialOutcome | None = None
    tied: int = 0
    costlier: TrialOutcome | None = None


def choose(outcomes: Sequence[TrialOutcome], cap: int | None, objective: str,
           min_recall: float | None = None) -> Choice:
    """The knee: within ``cap`` (and the recall floor), the cheapest configuration the sign
    test cannot tell from the top scorer — a tie is a tie — held against the top scorer (or,
    when it is the top scorer, the runner-up); and the best costlier configuration, within the
    budget or not, when it does significantly better than that: what more text buys."""
    order = ranked(outcomes, cap, min_recall)
    if not order:
        return Choice(None)
    top = order[0]
    tied = [o for o in order if o is top or not _beats(objective, top, o)]
    pick = min(tied, key=lambda o: (o.search.tokens, -o.search.objective, o.number))
    other = top if pick is not top else order[1] if len(order) > 1 else None
    costlier = next((o for o in ranked(outcomes, None, min_recall)
                     if o.search.tokens > pick.search.tokens and _beats(objective, o, pick)),
                    None)
    return Choice(pick, other, len(tied), costlier)


@dataclass(frozen=True)
class Versus:
    """The recommendation against another configuration on the held-back questions."""

    other: TrialOutcome
    held_back: Figures
    comparison: PairedComparison  # B = the recommendation, A = the other
    more_questions: int | None  # to separate them (0: already separated)

    @property
    def outcome(self) -> str:
        """"better", "worse" or "tie"."""
        c = self.comparison
        if not c.significant:
            return "tie"
        return "better" if c.wins > c.losses else "worse"

    def to_json(self) -> dict[str, Any]:
        c = self.comparison
        return {"label": self.other.label, "configuration": self.other.plan.to_json(),
                "held_back": self.held_back.to_json(), "outcome": self.outcome,
                "wins": c.wins, "losses": c.losses, "ties": c.ties,
                "p_value": round(c.p_value, 6),
                "difference_ci95": [round(v, 6) for v in c.diff_ci95],
                "more_questions_to_separate": self.more_questions}


def versus(best: TrialOutcome, best_held: Figures, other: TrialOutcome, other_held: Figures,
           objective: str) -> Versus:
    comparison = compare_paired(objective, other.label, list(other_held.values), best.label,
                                list(best_held.values))
    return Versus(other, other_held, comparison, questions_to_separate(comparison))


@dataclass(frozen=True)
class Recommendation:
    outcome: TrialOutcome
    held_back: Figures
    runner_up: Versus | None
    best_preset: Versus | None  # None when it is a built-in preset, or none was tried
    objective: str
    cap: int | None = None
    tied: int = 1  # configurations that tie with the top scorer on the search questions
    evidence: list[str] = field(default_factory=list)
    costlier: Versus | None = None  # significantly better on the search questions, costlier
    min_recall: float | None = None  # the recall floor on the search questions

    def sentence(self) -> str:
        """The recommendation in one sentence, with its held-back figures and how it compares
        in plain words (the statistics are in :meth:`details`)."""
        name = OBJECTIVE_NAMES[self.objective]
        held = self.held_back
        head = (f"{self.outcome.label}: {name} {held.objective:.2f} at {held.tokens:,.0f} "
                f"tokens per question on the {held.questions} held-back questions")
        within = "" if self.cap is None else f" within {self.cap:,} tokens"
        if self.runner_up is None:
            return f"{head}; the only configuration{within} tried."
        return f"{head}; {_against(self.runner_up, self._rival(), name, within)}."

    def _rival(self) -> str:
        """What the sentence calls the configuration it is compared with."""
        assert self.runner_up is not None
        return ("the top scorer" if self.runner_up.other.search.objective
                > self.outcome.search.objective else "the runner-up")

    def details(self) -> list[str]:
        """The statistics behind the sentence and the evidence, for a "details" panel."""
        low, high = self.held_back.objective_ci
        lines = [f"95 % interval of the held-back {OBJECTIVE_NAMES[self.objective]}: "
                 f"[{low:.2f}, {high:.2f}]."]
        if self.runner_up is not None:
            lines.append(tally(self.runner_up, self._rival()) + ".")
        if self.best_preset is not None:
            lines.append(tally(self.best_preset, "the best built-in preset") + ".")
        return lines

    def buys(self) -> str:
        """What the costlier configuration buys, on the held-back questions: "+2.1 recall
        points for 3.5× the tokens" ('' when there is none)."""
        if self.costlier is None:
            return ""
        name = OBJECTIVE_NAMES[self.objective]
        theirs, mine = self.costlier.held_back, self.held_back
        points = 100 * (theirs.objective - mine.objective)
        times = theirs.tokens / mine.tokens if mine.tokens else float("inf")
        return f"{points:+.1f} {name} points for {times:.1f}× the tokens"

    def floor(self) -> dict[str, Any] | None:
        """Whether the recall floor held on the held-back questions."""
        if self.min_recall is None:
            return None
        return {"min_recall": self.min_recall, "held_back_recall": round(self.held_back.recall, 6),
                "held": self.held_back.recall >= self.min_recall}

    def to_json(self) -> dict[str, Any]:
        return {"label": self.outcome.label, "configuration": self.outcome.plan.to_json(),
                "search": self.outcome.search.to_json(), "held_back": self.held_back.to_json(),
                "sentence": self.sentence(), "evidence": self.evidence,
                "runner_up": None if self.runner_up is None else self.runner_up.to_json(),
                "costlier": None if self.costlier is None
                else self.costlier.to_json() | {"buys": self.buys(), "over_budget":
                                                self.cap is not None
                                                and self.costlier.other.search.tokens > self.cap},
                "recall_floor": self.floor(),
                "best_builtin_preset": None if self.best_preset is None
                else self.best_preset.to_json()}


def _against(v: Versus, who: str, name: str, within: str) -> str:
    c = v.comparison
    other = f"{who} ({v.other.label}, {v.held_back.objective:.2f} at {v.held_back.tokens:,.0f} " \
            "tokens)"
    if v.outcome == "better":
        return (f"better on {name} than {other}{within}: it does better on "
                f"{_count(c.wins, 'question')}, worse on {c.losses}")
    if v.outcome == "worse":
        return (f"{other} did better on {name} on these questions: the search part favoured "
                "this one by chance")
    more = v.more_questions
    if c.wins + c.losses < MIN_DIFFERING:
        gap = (f"too few questions to tell them apart: they differ on "
               f"{_count(c.wins + c.losses, 'question')}, and it takes at least {MIN_DIFFERING}")
    elif more is None and c.wins == c.losses:
        gap = "each does better on as many questions as the other: no sign that either is better"
    elif more is None:
        gap = "more questions than one could write would separate them"
    else:
        gap = f"about {more:,} more questions would separate them"
    return f"a tie on {name} with {other}: {gap}"


def tally(v: Versus, who: str) -> str:
    """The statistics behind a comparison, for the details: "Against the runner-up (…): 3 wins,
    1 loss, 42 ties; p = 0.62 (sign test)"."""
    c = v.comparison
    return (f"Against {who} ({v.other.label}): {_count(c.wins, 'win')}, "
            f"{_count(c.losses, 'loss', 'losses')}, {_count(c.ties, 'tie')}; "
            f"{format_p(c.p_value)} (sign test over the questions)")


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def evidence(recommendation: Recommendation) -> list[str]:
    """The lines under the sentence: how it was chosen, what more text buys, whether the recall
    floor held, the comparison with the best built-in preset."""
    lines = []
    name = OBJECTIVE_NAMES[recommendation.objective]
    search = recommendation.outcome.search
    floor = recommendation.min_recall
    line = (f"Chosen on the {search.questions} search questions: {name} "
            f"{search.objective:.2f} at {search.tokens:,.0f} tokens per question")
    other = recommendation.runner_up.other if recommendation.runner_up else None
    if other is not None and other.search.objective > search.objective:
        line += (f", the cheapest of the {recommendation.tied} configurations that cannot be "
                 f"told apart from the top scorer ({other.label}: {other.search.objective:.2f} "
                 f"at {other.search.tokens:,.0f} tokens)")
    if floor is not None:
        line += f", among those with recall at least {floor:.2f}"
    lines.append(line + ".")
    costlier = recommendation.costlier
    if costlier is not None:
        over = recommendation.cap is not None and costlier.other.search.tokens > recommendation.cap
        lines.append(f"More text buys more: {costlier.other.label} "
                     f"({'over the budget, ' if over else ''}{costlier.held_back.tokens:,.0f} "
                     f"tokens) gives {recommendation.buys()} on the held-back questions; on the "
                     "search questions it did significantly better.")
    if floor is not None:
        held = recommendation.held_back.recall
        lines.append(f"The recall floor {'held' if held >= floor else 'did not hold'} on the "
                     f"held-back questions: recall {held:.2f} against {floor:.2f}.")
    preset = recommendation.best_preset
    if preset is not None:
        lines.append("Against the best built-in preset: "
                     + _against(preset, "the preset", name, "") + ".")
    elif recommendation.outcome.builtin_preset:
        lines.append("It is a built-in preset as Evaluate runs it: no other configuration "
                     "tried did better.")
    return lines


@dataclass(frozen=True)
class StrategyBest:
    """A chunking strategy's best trial: the best on the objective among its trials that reach
    the recall floor or, when none does, its highest-recall trial (``meets_floor`` False)."""

    strategy: str
    outcome: TrialOutcome
    meets_floor: bool

    def to_json(self) -> dict[str, Any]:
        s = self.outcome.search
        return {"strategy": self.strategy, "label": self.outcome.label,
                "meets_floor": self.meets_floor, "recall": round(s.recall, 6),
                "iou": round(s.iou, 6), "tokens": round(s.tokens, 1),
                "objective": round(s.objective, 6), "trial": self.outcome.number,
                "configuration": self.outcome.plan.to_json()}


def best_per_strategy(outcomes: Sequence[TrialOutcome], min_recall: float | None
                      ) -> list[StrategyBest]:
    """Each chunking strategy tried, at its best trial on the search questions (whatever its
    tokens): those that reach the floor first, best objective first."""
    by_strategy: dict[str, list[TrialOutcome]] = {}
    for o in outcomes:
        by_strategy.setdefault(o.plan.candidate.strategy, []).append(o)
    bests = []
    for strategy, tried in by_strategy.items():
        feasible = ranked(tried, None, min_recall)
        if feasible:
            bests.append(StrategyBest(strategy, feasible[0], True))
        else:
            top = min(tried, key=lambda o: (-o.search.recall, o.search.tokens, o.number))
            bests.append(StrategyBest(strategy, top, False))
    return sorted(bests, key=lambda b: (not b.meets_floor, -b.outcome.search.objective,
                                        b.outcome.search.tokens))


@dataclass(frozen=True)
class CacheShare:
    """How much of the trials' work earlier work served."""

    trials: int
    served: int  # chunked nothing and embedded nothing new
    chunked_nothing_new: int
    embedded_nothing_new: int

    @property
    def share(self) -> float:
        return self.served / self.trials if self.trials else 0.0

    def sentence(self) -> str:
        return (f"{self.served} of {self.trials} trials ({self.share:.0%}) were served from "
                f"cache: {self.chunked_nothing_new} chunked nothing new, "
                f"{self.embedded_nothing_new} embedded nothing new.")

    def to_json(self) -> dict[str, Any]:
        return {"trials": self.trials, "served": self.served, "share": round(self.share, 4),
                "chunked_nothing_new": self.chunked_nothing_new,
                "embedded_nothing_new": self.embedded_nothing_new}


@dataclass(frozen=True)
class TuneResult:
    study: str
    question_set: str
    objective: str
    budget: TokenBudget
    split: Split
    trials: list[TrialOutcome]  # every finished trial of the study, all workers'
    failed: list[str]  # trials that could not be scored, with why
    front: list[TrialOutcome]
    held_back: dict[str, Figures]  # plan key -> figures on the held-back part
    recommendation: Recommendation | None
    cache: CacheShare
    seconds: float
    notes: list[str] = field(default_factory=list)
    min_recall: float | None = None

    @property
    def cap(self) -> int | None:
        return self.budget.tokens

    def held(self, outcome: TrialOutcome) -> Figures | None:
        return self.held_back.get(outcome.plan.key())

    def best_per_strategy(self) -> list[StrategyBest]:
        """Each strategy tried at its best trial that reaches the recall floor (or its
        highest-recall one), the best found first."""
        return best_per_strategy(self.trials, self.min_recall)

    def best_found(self) -> StrategyBest | None:
        """The best trial on the objective that reaches the recall floor, on the search
        questions and whatever its tokens; None when no trial reaches it."""
        bests = self.best_per_strategy()
        return bests[0] if bests and bests[0].meets_floor else None

    def best_found_sentence(self) -> str:
        """"Best found: cluster 200, hybrid, autocut of top-10, at least 2 (cluster chunking):
        recall 0.87, IoU 0.081 at 212 tokens per question on the 189 search questions"."""
        best = self.best_found()
        floor = "" if self.min_recall is None else f" with recall at least {self.min_recall:.2f}"
        if best is None:
            return ("No trial finished." if self.min_recall is None else
                    f"No configuration tried reached recall {self.min_recall:.2f}.")
        s = best.outcome.search
        return (f"Best found{floor}: {best.outcome.label} ({best.strategy} chunking): recall "
                f"{s.recall:.3f}, IoU {s.iou:.3f} at {s.tokens:,.0f} tokens per question on "
                f"the {s.questions} search questions.")

    def held_back_best(self) -> BestOf | None:
        """With three or more configurations scored on the held-back questions, each one's
        probability of being best there on the objective."""
        if len(self.held_back) < MIN_CONFIGURATIONS:
            return None
        labels = {o.plan.key(): o.label for o in self.trials}
        return best_of(self.objective, {labels[key]: list(figures.values)
                                        for key, figures in self.held_back.items()},
                       metric_name=OBJECTIVE_NAMES[self.objective],
                       questions_label="held-back questions")

    def to_json(self) -> dict[str, Any]:
        def point(o: TrialOutcome) -> dict[str, Any]:
            held = self.held(o)
            s = o.search
            return {"label": o.label, "recall": round(s.recall, 6), "iou": round(s.iou, 6),
                    "tokens": round(s.tokens, 1), "objective": round(s.objective, 6),
                    "recall_ci95": [round(v, 6) for v in s.recall_ci],
                    "configuration": o.plan.to_json(),
                    "held_back": None if held is None else held.to_json()}

        return {
            "values": "fractions (0..1); tokens: mean retrieved per question",
            "study": {"name": self.study, "trials": len(self.trials)},
            "question_set": self.question_set, "objective": self.objective,
            "min_recall": self.min_recall, "budget": self.budget.to_json(),
            "split": self.split.to_json(), "trials": len(self.trials), "failed": self.failed,
            "seconds": round(self.seconds, 1), "cache": self.cache.to_json(),
            "pareto": [point(o) for o in self.front],
            "recommended": None if self.recommendation is None
            else self.recommendation.to_json(),
            "held_back_best": None if (best := self.held_back_best()) is None
            else best.to_json(),
            "best_found": None if (found := self.best_found()) is None
            else found.to_json() | {"sentence": self.best_found_sentence()},
            "best_per_strategy": [b.to_json() for b in self.best_per_strategy()],
            "all_trials": [point(o) | {"trial": o.number, "seconds": round(o.seconds, 2),
                                       "from_cache": o.from_cache, "run": o.run}
                           for o in self.trials],
            "notes": self.notes,
        }

"""What a tune found: each trial's figures, the Pareto front of quality against cost, and the
recommendation with its evidence.

Quality is the tune's objective — recall, IoU, or both balanced (per question the harmonic mean
of recall and IoU: high only when the references are found *and* little else is retrieved) —
and cost the mean tokens a question retrieves
(``overall.mean_tokens`` of a result). Trials are scored on the search
part of the question set; the front and the recommendation are then scored again on the
held-back part, and the recommendation's figures and comparisons are those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from core.evaluation.metrics import QuestionScore
from core.evaluation.stats import (
    Interval,
    PairedComparison,
    bootstrap_ci,
    compare_paired,
    format_p,
    questions_to_separate,
)
from core.operations.evaluation import CandidateResult, Retrieval
from core.operations.presets import BUILTIN_PRESETS
from core.operations.tune_space import TrialPlan

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
    """One configuration's scores on one part of the question set."""

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
        return cls(len(values), _mean(values), bootstrap_ci(values), _mean(recalls),
                   bootstrap_ci(recalls), _mean(ious), result.metrics.overall.mean_tokens,
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


def ranked(outcomes: Sequence[TrialOutcome], cap: int | None) -> list[TrialOutcome]:
    """Distinct configurations within ``cap`` tokens per question, best objective first (a tie
    goes to the cheaper, then the earlier)."""
    distinct = {o.plan.key(): o for o in reversed(outcomes)}.values()
    feasible = [o for o in distinct if cap is None or o.search.tokens <= cap]
    return sorted(feasible, key=lambda o: (-o.search.objective, o.search.tokens, o.number))


def choose(outcomes: Sequence[TrialOutcome], cap: int | None, objective: str
           ) -> tuple[TrialOutcome | None, TrialOutcome | None, int]:
    """The recommendation, the configuration it is held against, and how many configurations
    tie with the top scorer. Within ``cap``: the top scorer on the search questions, unless
    cheaper ones score the same as far as the sign test can tell — a tie is a tie — then the
    cheapest of those, held against the top scorer; else held against the runner-up."""
    order = ranked(outcomes, cap)
    if not order:
        return None, None, 0
    top = order[0]

    def ties(o: TrialOutcome) -> bool:
        c = compare_paired(objective, top.label, list(top.search.values), o.label,
                           list(o.search.values))
        return not (c.significant and c.wins < c.losses)

    tied = [o for o in order if o is top or ties(o)]
    pick = min(tied, key=lambda o: (o.search.tokens, -o.search.objective, o.number))
    other = top if pick is not top else order[1] if len(order) > 1 else None
    return pick, other, len(tied)


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

    def sentence(self) -> str:
        """The recommendation in one sentence, with its held-back figures and how sure."""
        name = OBJECTIVE_NAMES[self.objective]
        held = self.held_back
        low, high = held.objective_ci
        head = (f"{self.outcome.label}: {name} {held.objective:.2f} [{low:.2f}, {high:.2f}] at "
                f"{held.tokens:,.0f} tokens per question on the {held.questions} held-back "
                "questions")
        within = "" if self.cap is None else f" within {self.cap:,} tokens"
        if self.runner_up is None:
            return f"{head}; the only configuration{within} tried."
        who = ("the top scorer" if self.runner_up.other.search.objective
               > self.outcome.search.objective else "the runner-up")
        return f"{head}; {_against(self.runner_up, who, name, within)}."

    def to_json(self) -> dict[str, Any]:
        return {"label": self.outcome.label, "configuration": self.outcome.plan.to_json(),
                "search": self.outcome.search.to_json(), "held_back": self.held_back.to_json(),
                "sentence": self.sentence(), "evidence": self.evidence,
                "runner_up": None if self.runner_up is None else self.runner_up.to_json(),
                "best_builtin_preset": None if self.best_preset is None
                else self.best_preset.to_json()}


def _against(v: Versus, who: str, name: str, within: str) -> str:
    c = v.comparison
    other = f"{who} ({v.other.label}, {v.held_back.objective:.2f} at {v.held_back.tokens:,.0f} " \
            "tokens)"
    tally = (f"{_count(c.wins, 'win')}, {_count(c.losses, 'loss', 'losses')}, "
             f"{_count(c.ties, 'tie')}; {format_p(c.p_value)}")
    if v.outcome == "better":
        return f"better on {name} than {other}{within} ({tally})"
    if v.outcome == "worse":
        return (f"{other} did better on {name} on these questions ({tally}): the search part "
                "favoured this one by chance")
    more = v.more_questions
    gap = ("as many wins as losses, so more questions would not separate them" if more is None
           and c.wins == c.losses else "more questions than one could write would separate them"
           if more is None else f"about {more:,} more questions would separate them")
    return f"a tie on {name} with {other} ({tally}): {gap}"


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def evidence(recommendation: Recommendation) -> list[str]:
    """The lines under the sentence: the split, the comparison with the best built-in preset."""
    lines = []
    name = OBJECTIVE_NAMES[recommendation.objective]
    search = recommendation.outcome.search
    line = (f"Chosen on the {search.questions} search questions: {name} "
            f"{search.objective:.2f} at {search.tokens:,.0f} tokens per question")
    other = recommendation.runner_up.other if recommendation.runner_up else None
    if other is not None and other.search.objective > search.objective:
        line += (f", the cheapest of the {recommendation.tied} configurations the sign test "
                 f"cannot tell from the top scorer ({other.label}: {other.search.objective:.2f} "
                 f"at {other.search.tokens:,.0f} tokens)")
    lines.append(line + ".")
    preset = recommendation.best_preset
    if preset is not None:
        lines.append("Against the best built-in preset: "
                     + _against(preset, "the preset", name, "") + ".")
    elif recommendation.outcome.builtin_preset:
        lines.append("It is a built-in preset as Evaluate runs it: no other configuration "
                     "tried did better.")
    return lines

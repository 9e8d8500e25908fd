"""What an answer run shows: each arm's figures with their 95 % intervals, the first arm against
each other question by question (wins, losses, ties, sign test, paired bootstrap interval, how
many more questions would separate them: :mod:`core.evaluation.stats`), and the verdict in one
sentence; with three or more arms, which is best on reference coverage and whether the questions
can tell (:mod:`core.evaluation.best`); the run as the JSON ``python -m core answers`` prints,
and that JSON's answers grouped per question with whether the arms disagree on one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from core.evaluation.best import MIN_CONFIGURATIONS, BestOf, best_of
from core.evaluation.stats import (
    PairedComparison,
    bootstrap_ci,
    compare_paired,
    format_p,
    questions_to_separate,
)
from core.operations.answers.run import AnswerEvaluation, AnswerRow, ArmResult

GRADES = ("cited", "citations_valid", "citations_supported", "statements_supported",
          "reference_coverage", "abstention_right")
GRADE_LABELS = {"cited": "citing a source", "citations_valid": "valid citations",
                "citations_supported": "supported citations",
                "statements_supported": "statements their passages support",
                "reference_coverage": "reference coverage",
                "abstention_right": "abstaining when right",
                "faithfulness": "faithfulness (LLM judge)"}
JUDGED = "faithfulness"  # the LLM judge's score, 1-5, reported apart from the grades
BEST_GRADE = "reference_coverage"  # what "best" means: the answer says what the reference says


def grade_values(rows: list[AnswerRow], metric: str) -> dict[int, float]:
    """Question index → the grade, for the answered questions that have one."""
    out = {}
    for row in rows:
        value = row.grades.value(metric) if row.grades is not None else None
        if row.status == "ok" and value is not None:
            out[row.index] = value
    return out


def judge_values(rows: list[AnswerRow]) -> dict[int, float]:
    """Question index → the judge's faithfulness score, for the answers it scored."""
    return {row.index: float(row.judge[JUDGED]) for row in rows
            if row.status == "ok" and row.judge and row.judge.get(JUDGED) is not None}


def _mean(values: list[float]) -> float | None:
    return round(float(np.mean(values)), 6) if values else None


def overall(result: ArmResult) -> dict[str, Any]:
    """Shares and means over the answered questions; ``ci95`` per grade."""
    ok = [r for r in result.rows if r.status == "ok" and r.grades is not None]
    grades = [r.grades for r in ok if r.grades is not None]
    figures: dict[str, Any] = {
        metric: _mean(list(grade_values(result.rows, metric).values())) for metric in GRADES}
    figures.update({
        "abstained": _mean([float(g.abstained) for g in grades]),
        "answered": round(len(ok) / len(result.rows), 6) if result.rows else 0.0,
        "failed": len(result.rows) - len(ok),
        "repeating": _mean([float(g.repeats > 0) for g in grades]),
        "mean_tokens": _mean([float(g.tokens) for g in grades]),
        "seconds": _mean([g.seconds for g in grades]),
    })
    figures["ci95"] = {metric: [round(v, 6) for v in bootstrap_ci(values)]
                       for metric in GRADES
                       for values in [list(grade_values(result.rows, metric).values())]}
    if any(r.judge is not None for r in result.rows):
        scores = list(judge_values(result.rows).values())
        figures["judge"] = {JUDGED: _mean(scores), "judged": len(scores),
                            "not_judged": sum(r.judge is not None and r.judge.get(JUDGED) is None
                                              for r in result.rows),
                            "ci95": [round(v, 6) for v in bootstrap_ci(scores)]}
    return figures


@dataclass(frozen=True)
class GradeComparison:
    comparison: PairedComparison
    more_questions: int | None  # to separate them at p < 0.05; 0: already; None: no number would

    def to_json(self) -> dict[str, Any]:
        c = self.comparison
        return {"wins": c.wins, "losses": c.losses, "ties": c.ties, "mean_a": round(c.mean_a, 6),
                "mean_b": round(c.mean_b, 6), "p_value": round(c.p_value, 6),
                "diff_ci95": [round(v, 6) for v in c.diff_ci95],
                "more_questions": self.more_questions,
                "verdict": c.verdict(GRADE_LABELS[c.metric])}


def compare_arms(a: ArmResult, b: ArmResult, metrics: tuple[str, ...] = GRADES
                 ) -> dict[str, GradeComparison]:
    """B against A per grade (or the judge's score, ``(JUDGED,)``), on the questions both
    answered and both have the grade of."""
    out = {}
    for metric in metrics:
        if metric == JUDGED:
            va, vb = judge_values(a.rows), judge_values(b.rows)
        else:
            va, vb = grade_values(a.rows, metric), grade_values(b.rows, metric)
        shared = sorted(va.keys() & vb.keys())
        if not shared:
            continue
        comparison = compare_paired(metric, a.arm.label, [va[i] for i in shared],
                                    b.arm.label, [vb[i] for i in shared])
        out[metric] = GradeComparison(comparison, questions_to_separate(comparison))
    return out


def verdict(a: ArmResult, b: ArmResult, comparisons: dict[str, GradeComparison]) -> str:
    """One sentence: where B is better or worse than A, or that no difference shows yet."""
    better = [m for m, g in comparisons.items()
              if g.comparison.significant and g.comparison.wins > g.comparison.losses]
    worse = [m for m, g in comparisons.items()
             if g.comparison.significant and g.comparison.wins < g.comparison.losses]
    questions = len(a.rows)

    def named(metrics: list[str]) -> str:
        return ", ".join(f"{GRADE_LABELS[m]} ({format_p(comparisons[m].comparison.p_value)})"
                         for m in metrics)

    if better or worse:
        parts = ([f"better than {a.arm.label} on {named(better)}"] if better else []) + (
            [f"worse {'' if better else f'than {a.arm.label} '}on {named(worse)}"]
            if worse else [])
        return (f"{b.arm.label} is {' and '.join(parts)}, over {questions} "
                f"question{'s' * (questions != 1)}.")
    more = [g.more_questions for g in comparisons.values() if g.more_questions]
    hint = (f"; about {min(more)} more questions would separate them on the closest grade"
            if more
            else "; they answer alike")
    return (f"No difference between {a.arm.label} and {b.arm.label} is detectable with "
            f"{questions} question{'s' * (questions != 1)}{hint}.")


def best_arm(run: AnswerEvaluation, metric: str = BEST_GRADE) -> BestOf | None:
    """With three or more arms, each one's probability of being best on ``metric`` over paired
    resamples of the questions every arm has the grade of."""
    if len(run.arms) < MIN_CONFIGURATIONS:
        return None
    graded = [grade_values(arm.rows, metric) for arm in run.arms]
    shared = sorted(set.intersection(*(set(g) for g in graded)))
    return best_of(metric, {arm.arm.label: [g[i] for i in shared]
                            for arm, g in zip(run.arms, graded, strict=True)},
                   metric_name=GRADE_LABELS[metric])


def comparisons_json(run: AnswerEvaluation) -> list[dict[str, Any]]:
    """The first arm against each other: per grade, and the verdict."""
    first, out = run.arms[0], []
    for other in run.arms[1:]:
        found = compare_arms(first, other)
        judged = compare_arms(first, other, (JUDGED,)).get(JUDGED)
        out.append({"a": first.arm.label, "b": other.arm.label,
                    "grades": {m: g.to_json() for m, g in found.items()},
                    "verdict": verdict(first, other, found),
                    **({"judge": judged.to_json()} if judged else {})})
    return out


def run_json(run: AnswerEvaluation) -> dict[str, Any]:
    """The run as ``python -m core answers`` prints it."""
    best = best_arm(run)
    return {
        "question_set": run.question_set, "question_set_version": run.question_set_version,
        "model": run.model, "temperature": run.temperature, "seed": run.seed, "asked": run.asked,
        **({"judge_model": run.judge_model} if run.judge_model else {}),
        "values": "fractions (0..1) except mean_tokens and seconds (per answer)",
        "variants": [{"variant": r.arm.variant, "label": r.arm.label,
                      "template_version": r.template_version,
                      "configuration": {**r.arm.candidate.as_dict(), "retrieval": r.retrieval},
                      "overall": overall(r),
                      **({"probability_best": round(best.probabilities[r.arm.label], 4)}
                         if best else {})} for r in run.arms],
        "comparison": comparisons_json(run),
        "best": None if best is None else best.to_json(),
        "answers": [{"variant": r.arm.label, **row.to_json()} for r in run.arms
                    for row in r.rows],
    }


def by_question(run: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Per question, its answer under each arm (arm order)."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for answer in run["answers"]:
        grouped.setdefault(answer["index"], []).append(answer)
    return [grouped[i] for i in sorted(grouped)]


def excerpt_spans(answer: dict[str, Any], doc_id: str) -> list[tuple[int, int]]:
    """The spans of every excerpt that answers an answer's question and lies in the document
    ``doc_id``, from the answer's JSON: its references and each alternative's (a run kept
    before alternatives were has none). An excerpt is ``[start, end]`` in the question's own
    document (the row's ``doc_id``; a row kept before rows named it counts any), or
    ``[start, end, doc_id]`` in another."""
    own = answer.get("doc_id") or doc_id
    options = [answer.get("references", []), *answer.get("alternatives", [])]
    return [(place[0], place[1]) for option in options for place in option
            if (place[2] if len(place) > 2 else own) == doc_id]


def disagree(answers: list[dict[str, Any]]) -> bool:
    """The arms differ on a grade (or one failed where another answered)."""
    seen = {(a["status"], *(None if a["grades"] is None else a["grades"][m] for m in GRADES),
             None if a["grades"] is None else a["grades"]["abstained"]) for a in answers}
    return len(seen) > 1

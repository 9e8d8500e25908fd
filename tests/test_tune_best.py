"""What Tune reports beside its recommendation: the best configuration found that reaches the
recall floor and which chunking strategy gave it, and each strategy's best recall-with-IoU pair
— in the result's JSON (the CLI's output), the HTML report and the page."""

from __future__ import annotations

from core.evaluation.questions import Question, QuestionSet, Reference
from core.operations.assemble.budget import TokenBudget
from core.operations.evaluation import Candidate
from core.operations.report.tune import tune_report
from core.operations.tune.report import CacheShare, Figures, TrialOutcome, TuneResult
from core.operations.tune.run import split_questions
from core.operations.tune.space import TrialPlan


def _trial(number: int, strategy: str, recall: float, iou: float, tokens: float = 500.0
           ) -> TrialOutcome:
    figures = Figures(40, iou, (iou, iou), recall, (recall, recall), iou, tokens, (iou,) * 40)
    label = f"{strategy} {100 + number}, <hybrid>"
    return TrialOutcome(number, TrialPlan(Candidate(label, strategy, {"size": 100 + number})),
                        figures, 1.0, False, 0)


def _result(trials: list[TrialOutcome], min_recall: float | None = 0.85) -> TuneResult:
    questions = QuestionSet("set", tuple(Question(n, f"q{n}", "a", (Reference("x", 0, 1),))
                                         for n in range(10)))
    return TuneResult("s", "set", "iou", TokenBudget(None, "none"),
                      split_questions(questions, 0.3), trials, [], [], {}, None,
                      CacheShare(len(trials), 0, 0, 0), 0.0, min_recall=min_recall)


TRIALS = [
    _trial(0, "recursive", 0.90, 0.05),
    _trial(1, "recursive", 0.86, 0.07, 300),  # its best over the floor
    _trial(2, "recursive", 0.80, 0.12),  # sharper, but under the floor
    _trial(3, "cluster", 0.87, 0.08, 200),  # the best found
    _trial(4, "semantic", 0.82, 0.09),  # no semantic trial reaches the floor...
    _trial(5, "semantic", 0.84, 0.04),  # ...so its highest recall stands for it
]


def test_each_strategy_at_its_best_trial_over_the_floor_else_its_highest_recall():
    result = _result(TRIALS)
    bests = result.best_per_strategy()
    assert [(b.strategy, b.outcome.number, b.meets_floor) for b in bests] == [
        ("cluster", 3, True), ("recursive", 1, True), ("semantic", 5, False)]
    found = result.best_found()
    assert found is not None and (found.strategy, found.outcome.number) == ("cluster", 3)
    assert result.best_found_sentence() == (
        "Best found with recall at least 0.85: cluster 103, <hybrid> (cluster chunking): recall "
        "0.870, IoU 0.080 at 200 tokens per question on the 40 search questions.")
    data = result.to_json()
    assert data["best_found"]["strategy"] == "cluster"
    assert (data["best_found"]["recall"], data["best_found"]["iou"]) == (0.87, 0.08)
    assert [(b["strategy"], b["meets_floor"]) for b in data["best_per_strategy"]] == [
        ("cluster", True), ("recursive", True), ("semantic", False)]


def test_no_floor_reached_names_none_found_and_no_floor_takes_the_best_objective():
    under = _result(TRIALS[4:])
    assert under.best_found() is None and under.to_json()["best_found"] is None
    assert under.best_found_sentence() == "No configuration tried reached recall 0.85."
    free = _result(TRIALS, min_recall=None)
    assert free.best_found().outcome.number == 2  # the sharpest of all
    assert all(b.meets_floor for b in free.best_per_strategy())


def test_the_report_has_the_table_escaped():
    page = tune_report(_result(TRIALS)).decode()
    assert "Best recall-with-IoU pair per strategy" in page
    assert "cluster 103, &lt;hybrid&gt;" in page and "<hybrid>" not in page
    assert page.count("below the floor") == 1

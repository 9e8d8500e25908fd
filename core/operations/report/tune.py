"""The report of a tune: what the Tune page shows, in one file — the recommendation in words
with its evidence, the inputs (question set, objective, budget, split, embedders tried), the
Pareto front of quality against cost with the knee marked, the front's figures on the search
and held-back questions, each strategy's best recall-with-IoU pair, and every trial."""

from __future__ import annotations

from core.operations.report.charts import figure_html, pareto_figure, plotly_js
from core.operations.report.markup import Section, definitions, esc, render, table
from core.operations.tune.report import OBJECTIVE_NAMES, Figures, TuneResult


def _figures(figures: Figures | None) -> list[str]:
    if figures is None:
        return ["–", "–", "–"]
    low, high = figures.recall_ci
    return [f'{figures.recall:.1%} <span class="ci">({low:.0%}–{high:.0%})</span>',
            f"{figures.iou:.1%}", f"{figures.tokens:,.0f}"]


def tune_report(result: TuneResult, version: str = "") -> bytes:
    """The whole report of ``result`` (``version``: of the question set, when known)."""
    recommendation = result.recommendation
    if recommendation is None:
        verdict = ('<p class="verdict">No recommendation: '
                   f'{esc(" ".join(result.notes) or "no trial finished.")}</p>')
    else:
        verdict = (f'<p class="verdict">{esc(recommendation.sentence())}</p>'
                   + "".join(f'<p class="note">{esc(line)}</p>'
                             for line in [*recommendation.evidence, *recommendation.details()]))
    split = result.split
    inputs = definitions([
        ("Question set", result.question_set), *((("Version", version),) if version else ()),
        ("Questions", f"{len(split.search.questions):,} to search, "
                      f"{len(split.held_back.questions):,} held back ({split.share:.0%} of each "
                      f"document's, seed {split.seed})"),
        ("Objective", OBJECTIVE_NAMES[result.objective]
         + (f", recall at least {result.min_recall:.2f}" if result.min_recall else "")),
        ("Budget", result.budget.source), ("Trials", f"{len(result.trials):,}"),
        ("Study", result.study), ("Cache", result.cache.sentence())])
    best = recommendation.outcome.plan.key() if recommendation else None
    front = table(["", "Configuration", "Search recall", "Search IoU", "Search tokens",
                   "Held-back recall", "Held-back IoU", "Held-back tokens"], [
        ["★" if o.plan.key() == best else "", esc(o.label), *_figures(o.search),
         *_figures(result.held(o))] for o in result.front], numeric=(2, 3, 4, 5, 6, 7))
    floor = f" with recall at least {result.min_recall:.2f}" if result.min_recall else ""
    strategies = (f'<p class="verdict">{esc(result.best_found_sentence())}</p>' + table(
        ["", "Strategy", "Best configuration", "Recall", "IoU", "Tokens"], [
            ["" if b.meets_floor else "below the floor", esc(b.strategy), esc(b.outcome.label),
             f"{b.outcome.search.recall:.3f}", f"{b.outcome.search.iou:.3f}",
             f"{b.outcome.search.tokens:,.0f}"] for b in result.best_per_strategy()],
        numeric=(3, 4, 5)) + f'<p class="note">Each chunking strategy tried at its best trial '
        f"on {OBJECTIVE_NAMES[result.objective]}{floor}, on the search questions; a strategy "
        "none of whose trials reached the floor at its highest-recall trial, marked.</p>")
    trials = table(["Trial", "Configuration", "Recall", "IoU", "Tokens", "Seconds"], [
        [str(n), esc(o.label), f"{o.search.recall:.3f}", f"{o.search.iou:.3f}",
         f"{o.search.tokens:,.0f}", f"{o.seconds:.1f}"]
        for n, o in enumerate(result.trials, 1)], numeric=(0, 2, 3, 4, 5))
    sections = [
        Section("verdict", "Recommendation", verdict),
        Section("inputs", "Inputs", inputs),
        Section("front", "Quality against cost",
                figure_html(pareto_figure(result)) + '<p class="note">Every configuration tried '
                "at its search-part figures, the front joined, the recommendation (the knee) "
                "starred.</p>" + front),
        Section("strategies", "Best recall-with-IoU pair per strategy", strategies),
        Section("trials", "Every trial", trials
                + "".join(f'<p class="note">Could not run: {esc(line)}</p>'
                          for line in result.failed)),
    ]
    return render(f"Tune on {result.question_set}",
                  f"{len(result.trials):,} trials · objective {OBJECTIVE_NAMES[result.objective]}",
                  sections, charts=True, plotly_js=plotly_js())

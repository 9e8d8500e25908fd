"""The Tune page's result views: the recommendation with its evidence and one-click preset, the
Pareto plot (quality against mean retrieved tokens per question, IoU as colour, 95 % intervals,
a click opens the configuration in Compare beside the best), the table of the front, each
strategy's best recall-with-IoU pair, the split and every trial."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from core.documents.model import Document
from core.errors import ChunkLabError
from core.operations.presets import all_presets
from core.operations.report.charts import pareto_figure
from core.operations.tune.report import Figures, TrialOutcome
from core.operations.tune.run import TuneResult, default_preset_name, save_recommended
from ui.best_view import show_best
from ui.persist import kept, remember
from ui.render import md_escape
from ui.settings_form import put_configuration
from ui.state import select_document, show_error
from ui.wording import count

SAVED = "_tune_saved"  # the name of the preset just saved, shown once
PICKED = "_tune_picked"  # the point of the plot last opened in Compare
COMPARE_PAGE = "pages/compare.py"


def _figures_row(prefix: str, figures: Figures | None) -> dict[str, Any]:
    if figures is None:
        return {f"{prefix} recall": None, f"{prefix} IoU": None, f"{prefix} tokens": None}
    low, high = figures.recall_ci
    return {f"{prefix} recall": f"{figures.recall:.1%} ({low:.0%}–{high:.0%})",
            f"{prefix} IoU": f"{figures.iou:.1%}", f"{prefix} tokens": round(figures.tokens)}


def front_table(result: TuneResult) -> pd.DataFrame:
    """The front, cheapest first: search-part and held-back figures side by side."""
    best = result.recommendation.outcome.plan.key() if result.recommendation else None
    return pd.DataFrame([
        {"": "★" if o.plan.key() == best else "", "Configuration": o.label,
         **_figures_row("search", o.search), **_figures_row("held-back", result.held(o))}
        for o in result.front])


def trials_table(result: TuneResult) -> pd.DataFrame:
    return pd.DataFrame([
        {"Trial": n, "Configuration": o.label, "Recall": round(o.search.recall, 3),
         "IoU": round(o.search.iou, 3), "Tokens": round(o.search.tokens),
         "Seconds": round(o.seconds, 1), "From cache": "yes" if o.from_cache else "no"}
        for n, o in enumerate(result.trials, 1)])


def strategies_table(result: TuneResult) -> pd.DataFrame:
    """Each strategy tried at its best trial that reaches the recall floor (or, marked, its
    highest-recall one), on the search questions."""
    return pd.DataFrame([
        {"": "" if b.meets_floor else "below the floor", "Strategy": b.strategy,
         "Best configuration": b.outcome.label, "Recall": round(b.outcome.search.recall, 3),
         "IoU": round(b.outcome.search.iou, 3), "Tokens": round(b.outcome.search.tokens)}
        for b in result.best_per_strategy()])


def show_strategies(result: TuneResult) -> None:
    """The best configuration found that reaches the recall floor, and each strategy's best."""
    if not result.trials:
        return
    st.subheader("Best recall-with-IoU pair per strategy")
    st.info(md_escape(result.best_found_sentence()), icon=":material/trophy:")
    st.dataframe(strategies_table(result), hide_index=True, key="tune_strategies")
    st.caption("On the search questions, whatever the tokens: a strategy none of whose trials "
               "reached the recall floor is shown at its highest-recall trial.")


def open_in_compare(outcome: TrialOutcome, best: TrialOutcome | None,
                    documents: Mapping[str, Document]) -> None:
    """Compare the best configuration (slot 1) with ``outcome`` (slot 2) on a document of the
    question set (the one with most questions that the library holds, when there is one)."""
    presets = all_presets()
    slots = [o for o in (best, outcome) if o is not None]
    if len(slots) == 1 or slots[0].plan.key() == slots[1].plan.key():
        slots = slots[:1]
    for slot, chosen in enumerate(slots):
        candidate = chosen.plan.candidate
        put_configuration(f"cmp{slot}", presets, chosen.label, candidate.strategy,
                          candidate.settings, chosen.plan.preset)
    remember("cmp_count", max(2, len(slots)))
    if documents:
        select_document(next(iter(documents.values())).doc_id)
    st.switch_page(COMPARE_PAGE)


def show_recommendation(result: TuneResult) -> None:
    recommendation = result.recommendation
    if recommendation is None:
        st.warning("No recommendation: " + md_escape(" ".join(result.notes) or
                                                        "no trial finished."))
        return
    st.subheader("Recommendation")
    st.caption(md_escape(f"Budget: {result.budget.source}." + (
        f" Recall at least {result.min_recall:.2f} on the search questions."
        if result.min_recall else "")))
    st.success(md_escape(recommendation.sentence()), icon=":material/recommend:")
    for line in recommendation.evidence:
        st.caption(md_escape(line))
    with st.expander("Details: the statistics"):
        for line in recommendation.details():
            st.caption(md_escape(line))
    show_best(result.held_back_best(), "tune_best")
    if saved := st.session_state.pop(SAVED, None):
        st.info(f"Saved “{md_escape(saved)}”: it is now in every configuration's list.")
    name_key = kept("tune_preset_name", default_preset_name(recommendation.outcome))
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    name = left.text_input("Preset name", key=name_key)
    if right.button("Save as preset", key="tune_save", icon=":material/bookmark_add:"):
        try:
            save_recommended(name, recommendation.outcome)
        except ChunkLabError as err:
            show_error(err)
        else:
            st.session_state[SAVED] = name.strip()
            st.rerun()


def show_front(result: TuneResult, documents: Mapping[str, Document]) -> None:
    split = result.split
    st.subheader("Quality against cost")
    st.caption(md_escape(
        f"{count(len(result.trials), 'trial')} on the search part "
        f"({len(split.search.questions)} "
        f"questions); the front and the recommendation scored again on the "
        f"{len(split.held_back.questions)} held-back questions ({split.share:.0%} of each "
        f"document's, seed {split.seed}). {result.cache.sentence()} Took "
        f"{result.seconds:,.0f} s.") + " Click a point to open it in Compare beside the best.")
    event = st.plotly_chart(pareto_figure(result), key="tune_pareto", on_select="rerun",
                            selection_mode="points")
    points = (event.get("selection") or {}).get("points") or [] if event else []
    picked = next((p.get("customdata") for p in points if p.get("customdata")), None)
    by_key = {o.plan.key(): o for o in result.trials}
    best = result.recommendation.outcome if result.recommendation else None
    if not picked:
        st.session_state.pop(PICKED, None)
    elif picked[0] in by_key and picked != st.session_state.get(PICKED):
        st.session_state[PICKED] = picked  # a selection kept on return opens nothing again
        open_in_compare(by_key[picked[0]], best, documents)
    st.dataframe(front_table(result), hide_index=True, key="tune_front")
    labels = {o.label: o for o in result.front}
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    chosen = left.selectbox("Configuration of the front", list(labels), key="tune_pick",
                            index=min(1, len(labels) - 1))
    if right.button("Open in Compare", key="tune_compare", icon=":material/compare:") \
            and chosen:
        open_in_compare(labels[chosen], best, documents)
    with st.expander("Every trial and the split"):
        st.dataframe(trials_table(result), hide_index=True, key="tune_trials")
        st.dataframe(pd.DataFrame(
            [{"Document": cid, "Search": a, "Held back": b}
             for cid, (a, b) in split.by_document.items()]), hide_index=True, key="tune_split")
        for line in result.failed:
            st.caption("Could not run: " + md_escape(line))

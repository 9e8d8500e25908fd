"""The Tune page's result views: the recommendation with its evidence and one-click preset, the
Pareto plot (quality against mean retrieved tokens per question, IoU as colour, 95 % intervals,
a click opens the configuration in Compare beside the best), the table of the front, the split
and every trial."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.documents.model import Document
from core.errors import ChunkLabError
from core.operations.presets import all_presets
from core.operations.tune.report import OBJECTIVE_NAMES, Figures, TrialOutcome
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
FRONT_COLOR = "#1f3a93"


def _quality_axis(result: TuneResult) -> tuple[str, str]:
    """What the plot's y axis and colour show: the objective (recall unless IoU is tuned for)
    and IoU (recall when IoU is on the axis)."""
    if result.objective == "iou":
        return "IoU", "recall"
    return OBJECTIVE_NAMES[result.objective].capitalize(), "IoU"


def pareto_figure(result: TuneResult) -> go.Figure:
    """Every configuration tried, at its search-part figures: quality (with its 95 % interval)
    against mean tokens retrieved per question, coloured by the other metric; the front joined
    by a line, the recommendation starred and labelled as the knee, the top scorer labelled
    with what it costs, the budget as a vertical line."""
    axis, colour = _quality_axis(result)
    distinct = list({o.plan.key(): o for o in reversed(result.trials)}.values())
    distinct.sort(key=lambda o: o.number)
    on_front = {o.plan.key() for o in result.front}
    best = result.recommendation.outcome.plan.key() if result.recommendation else None

    def shade(o: TrialOutcome) -> float:
        return o.search.recall if colour == "recall" else o.search.iou

    figure = go.Figure()
    figure.add_trace(go.Scatter(
        x=[o.search.tokens for o in result.front], y=[o.search.objective for o in result.front],
        mode="lines", line={"color": FRONT_COLOR, "width": 1, "dash": "dot", "shape": "hv"},
        name="Pareto front", hoverinfo="skip"))
    figure.add_trace(go.Scatter(
        x=[o.search.tokens for o in distinct], y=[o.search.objective for o in distinct],
        mode="markers", name="configurations",
        customdata=[[o.plan.key(), o.label] for o in distinct],
        error_y={"type": "data", "symmetric": False,
                 "array": [o.search.objective_ci[1] - o.search.objective for o in distinct],
                 "arrayminus": [o.search.objective - o.search.objective_ci[0] for o in distinct],
                 "thickness": 1, "width": 3, "color": "#9aa0a6"},
        marker={"color": [shade(o) for o in distinct], "colorscale": "Viridis",
                "colorbar": {"title": colour}, "showscale": True,
                "size": [16 if o.plan.key() == best else 11 if o.plan.key() in on_front else 8
                         for o in distinct],
                "symbol": ["star" if o.plan.key() == best else "circle" for o in distinct],
                "line": {"width": [2 if o.plan.key() in on_front else 0 for o in distinct],
                         "color": FRONT_COLOR}},
        hovertemplate=("%{customdata[1]}<br>" + axis + " %{y:.3f}<br>%{x:,.0f} tokens per "
                       "question<br>" + colour + " %{marker.color:.3f}<extra></extra>")))
    if result.cap is not None:
        figure.add_vline(x=result.cap, line_dash="dash", line_color="#c0392b",
                         annotation_text=f"budget {result.cap:,} tokens",
                         annotation_position="bottom right")
    _mark(figure, result)
    figure.update_layout(
        height=440, margin={"t": 30, "b": 40}, showlegend=False, clickmode="event+select",
        xaxis_title="mean tokens retrieved per question (search part)",
        yaxis_title=f"{axis} (search part, 95 % interval)")
    return figure


def _mark(figure: go.Figure, result: TuneResult) -> None:
    """Label the recommendation (the knee: the cheapest the statistics cannot tell from the
    best) and the top scorer with what it costs against it."""
    recommendation = result.recommendation
    if recommendation is None:
        return
    knee = recommendation.outcome.search
    figure.add_annotation(x=knee.tokens, y=knee.objective, text="recommended (the knee)",
                          showarrow=True, arrowhead=2, ax=-60, ay=-40,
                          font={"color": FRONT_COLOR})
    top = max(result.trials, key=lambda o: (o.search.objective, -o.search.tokens))
    if top.plan.key() != recommendation.outcome.plan.key() and knee.tokens:
        figure.add_annotation(
            x=top.search.tokens, y=top.search.objective, showarrow=True, arrowhead=2, ax=-40,
            ay=-30, xanchor="right",
            text=(f"top scorer: {top.search.objective:.2f} at {top.search.tokens:,.0f} tokens "
                  f"({top.search.tokens / knee.tokens:.1f}× the tokens)"))


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

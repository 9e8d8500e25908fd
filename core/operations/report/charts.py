"""The charts the pages draw and the reports carry, one builder each, so a report shows the
figure its page shows: every configuration's metrics with their intervals, the probability
each is best, and a tune's Pareto front with its knee. Plotly loads only when one is drawn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING

from core.evaluation.metrics import METRIC_LABELS, METRICS
from core.evaluation.stats import Interval
from core.operations.evaluation.confidence import intervals
from core.operations.evaluation.results import CandidateResult
from core.operations.tune.report import OBJECTIVE_NAMES, TrialOutcome, TuneResult

if TYPE_CHECKING:
    import plotly.graph_objects as go

FRONT_COLOR = "#1f3a93"
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'


def label(text: str) -> str:
    """An untrusted name as chart text: Plotly reads tags (links among them) in its text and
    turns entities back into characters, so escaped it shows as typed and links nowhere."""
    return escape(text, quote=False)


def plotly_js() -> str:
    """Plotly's JavaScript, to inline once in a report."""
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def figure_html(figure: go.Figure) -> str:
    """``figure`` as a fragment that draws with the inlined library (no script fetched)."""
    figure.update_layout(font={"family": FONT}, paper_bgcolor="#fff", plot_bgcolor="#fff")
    figure.update_xaxes(gridcolor="#eceff3")
    figure.update_yaxes(gridcolor="#eceff3")
    fragment = figure.to_html(full_html=False, include_plotlyjs=False,
                              config={"displaylogo": False, "responsive": True})
    return f'<div class="chart">{fragment}</div>'


def interval_bar(name: str, labels: Sequence[str], values: Sequence[float],
                 bounds: Sequence[Interval], scale: float = 100.0) -> go.Bar:
    """A bar per label, the 95 % interval of each as its error bar (values times ``scale``)."""
    import plotly.graph_objects as go

    return go.Bar(name=label(name), x=list(labels), y=[v * scale for v in values],
                  error_y={"type": "data", "symmetric": False,
                           "array": [(high - v) * scale for v, (_, high) in
                                     zip(values, bounds, strict=True)],
                           "arrayminus": [(v - low) * scale for v, (low, _) in
                                          zip(values, bounds, strict=True)]})


def grouped_bars(bars: Sequence[go.Bar], y_title: str = "%") -> go.Figure:
    """Bars side by side per label, the legend below."""
    import plotly.graph_objects as go

    figure = go.Figure(list(bars))
    figure.update_layout(barmode="group", yaxis_title=y_title, height=360,
                         margin={"t": 20, "b": 20}, legend={"orientation": "h"})
    return figure


def metric_bars(results: Sequence[CandidateResult]) -> go.Figure:
    """Each configuration's metrics in percent, their 95 % intervals as error bars."""
    bars = []
    for result in results:
        bounds = intervals(result)
        bars.append(interval_bar(result.candidate.label, [METRIC_LABELS[m] for m in METRICS],
                                 [result.metrics.overall.value(m) for m in METRICS],
                                 [bounds[m] for m in METRICS]))
    return grouped_bars(bars)


def probability_bars(chances: Mapping[str, float]) -> go.Figure:
    """The probability each configuration is the best, in percent, highest first."""
    import plotly.graph_objects as go

    ordered = sorted(chances.items(), key=lambda item: -item[1])
    figure = go.Figure(go.Bar(x=[p * 100 for _, p in ordered],
                              y=[label(name) for name, _ in ordered], orientation="h",
                              marker={"color": FRONT_COLOR},
                              text=[f"{p:.0%}" for _, p in ordered], textposition="auto"))
    figure.update_layout(height=80 + 40 * len(ordered), margin={"t": 10, "b": 30, "l": 10},
                         xaxis={"title": "best in this share of resamples (%)",
                                "range": [0, 100]},
                         yaxis={"autorange": "reversed", "automargin": True})
    return figure


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
    import plotly.graph_objects as go

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
        customdata=[[o.plan.key(), label(o.label)] for o in distinct],
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

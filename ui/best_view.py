"""Which of three or more configurations is best, as the pages show it: the verdict in one
sentence, and each one's probability of being best as a small bar chart in an expander."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from core.operations.evaluation.confidence import WINNER_AT, BestOf
from ui.render import md_escape

WINNER_COLOR, OPEN_COLOR, OUT_COLOR = "#2e7d32", "#1f77b4", "#b0b0b0"


def show_best(best: BestOf | None, key: str) -> None:
    """The sentence (nothing with fewer than three configurations) and its details."""
    if best is None:
        return
    (st.success if best.winner else st.info)(md_escape(best.sentence()),
                                             icon=":material/trophy:")
    with st.expander("Probability of being best"):
        names = list(best.probabilities)
        colors = [WINNER_COLOR if n == best.winner else OUT_COLOR if n in best.ruled_out
                  else OPEN_COLOR for n in names]
        figure = go.Figure(go.Bar(
            x=[100 * best.probabilities[n] for n in names], y=names, orientation="h",
            marker_color=colors, text=[f"{best.probabilities[n]:.0%}" for n in names],
            textposition="auto", hovertemplate="%{y}: %{x:.1f} %<extra></extra>"))
        figure.add_vline(x=100 * WINNER_AT, line_dash="dot")
        figure.update_layout(height=60 + 36 * len(names), margin={"t": 10, "b": 10},
                             xaxis={"title": "% of resamples", "range": [0, 100]},
                             yaxis={"autorange": "reversed"})
        st.plotly_chart(figure, key=key)
        st.caption(md_escape(best.explanation() + " The dotted line: the winner's threshold."))

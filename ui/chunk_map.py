"""The map of chunks drawn with Plotly: points coloured by document or section, a question with
the chunks it retrieved (numbered by rank) and its reference excerpts, and a click on a point
that opens its chunk in its document below the map.

The figure is built from arrays: every chunk in one trace, WebGL past :data:`SVG_MAX` chunks
(coloured point by point; a WebGL trace costs the browser a fixed setup, whatever its points,
so one instead of one per colour), the legend as empty SVG entries, and the few marks of a
question as SVG on top (``bench/bench_chunk_map.py`` times it with 5,000 chunks). Names and
headings come from users' files: they are escaped before Plotly reads its HTML-like hover
text.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from plotly.colors import qualitative

from core.errors import ChunkLabError
from core.operations.chunk_map import ChunkMap, MapPoint, MapQuestion, chunk_set_question
from ui.persist import kept
from ui.render import HighlightSpan, highlight_html, md_escape
from ui.resources import chunk_store, embedding_settings, html_by_content, library, set_map
from ui.state import show_error

ColourBy = Literal["document", "section"]
COLOURS = qualitative.Dark24
MAX_LEGEND = len(COLOURS)  # more groups than colours: one trace, no legend
REFERENCE_COLOUR = "#f0b400"
RETRIEVED_OUTLINE = "#111111"  # a retrieved point: its group's colour, a dark-edged diamond
CHUNK_COLOUR = "#cfe3ff"
HIGHLIGHT_REFERENCE = "#ffe066"
MARGIN = 300  # characters of the document shown around an opened chunk
# Up to this many chunks the map is SVG: a WebGL plot costs a browser without a GPU a fixed
# second or so (software rendering), more than SVG needs for a thousand points.
SVG_MAX = 1_000
# A click selects its point: the others keep their look (Plotly would fade them) and the picked
# one grows.
PICKED = {"marker": {"size": 14, "opacity": 1.0}}


def _hovers(points: Sequence[MapPoint]) -> np.ndarray:
    """Each point's hover text: its document and the last two levels of its heading path (the
    text is most of what the browser receives; the opened chunk shows the rest). A name or a
    heading is escaped once, however many chunks share it."""
    escaped: dict[tuple[str, str, str], str] = {}

    def label(p: MapPoint) -> str:
        key = (p.document, p.section, p.chunk_type)
        if key not in escaped:
            tail = " › ".join(p.section.split(" › ")[-2:])
            kind = " · table" if p.chunk_type == "table" else ""
            escaped[key] = f"{html.escape(p.document)}<br>{html.escape(tail)}{kind}"
        return escaped[key]

    return np.array([label(p) for p in points], dtype=object)


def _groups(points: Sequence[MapPoint], colour_by: ColourBy) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(points):
        groups.setdefault(p.document if colour_by == "document" else
                          f"{p.document} › {p.section}", []).append(i)
    return groups


def map_figure(chunk_map: ChunkMap, colour_by: ColourBy = "document",
               question: MapQuestion | None = None) -> go.Figure:
    """The map as a figure: every chunk in one WebGL trace (each point carries its index as
    ``customdata``), a legend of the colours while there are few enough, and the question's
    marks on top as SVG (a handful of points)."""
    points = chunk_map.points
    xy = np.array([(p.x, p.y) for p in points], dtype=np.float32)
    hover = _hovers(points)
    groups = _groups(points, colour_by)
    colour_of = {name: COLOURS[n % len(COLOURS)] for n, name in enumerate(groups)}
    # Colours as numbers on a stepped scale: Plotly checks an array of numbers at once, an
    # array of colour names one by one (seconds for 5,000 points).
    group_of = np.empty(len(points), dtype=np.int32)
    for n, members in enumerate(groups.values()):
        group_of[members] = n
    steps = [[edge, colour] for n, colour in enumerate(colour_of.values())
             for edge in (n / len(groups), (n + 1) / len(groups))]
    opacity = 0.45 if question is not None else 0.8
    kind = go.Scatter if len(points) <= SVG_MAX else go.Scattergl
    traces: list[go.Scattergl | go.Scatter] = [kind(
        x=xy[:, 0], y=xy[:, 1], mode="markers", name="chunks", showlegend=False,
        marker={"size": 6, "opacity": opacity, "color": group_of, "colorscale": steps,
                "cmin": -0.5, "cmax": len(groups) - 0.5, "showscale": False},
        customdata=np.arange(len(points), dtype=np.int32), hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>",
        selected=PICKED, unselected={"marker": {"opacity": opacity}})]
    if len(groups) <= MAX_LEGEND:  # legend entries only: no points of their own
        traces += [go.Scatter(x=[None], y=[None], mode="markers", name=html.escape(name),
                              marker={"size": 8, "color": colour}, hoverinfo="skip")
                   for name, colour in colour_of.items()]
    if question is not None:
        traces += _question_traces(xy, hover, question,
                                   np.array(list(colour_of.values()), dtype=object)[group_of])
    explained = chunk_map.explained
    figure = go.Figure(traces)
    figure.update_layout(
        height=560, margin={"t": 10, "b": 10, "l": 10, "r": 10},
        xaxis={"title": f"PC 1 ({explained[0]:.0%} of the variance)", "zeroline": False},
        yaxis={"title": f"PC 2 ({explained[1]:.0%})", "zeroline": False},
        legend={"orientation": "h", "y": -0.12, "font": {"size": 11}, "itemclick": False,
                "itemdoubleclick": False},
        hoverlabel={"align": "left"}, clickmode="event+select", dragmode="pan",
        template="plotly_white", font={"family": "Source Sans Pro, sans-serif", "size": 13},
        paper_bgcolor="rgba(0,0,0,0)")
    return figure


def _question_traces(xy: np.ndarray, hover: np.ndarray, question: MapQuestion,
                     colours: np.ndarray) -> list[go.Scatter]:
    """The question's marks; ``colours``: each point's colour (its document's or section's)."""
    keep = {"selected": PICKED, "unselected": {"marker": {"opacity": 1.0},
                                               "textfont": {"color": RETRIEVED_OUTLINE}}}
    traces = []
    touching = np.array(sorted(question.touching), dtype=int)
    if len(touching):
        traces.append(go.Scatter(
            x=xy[touching, 0], y=xy[touching, 1], mode="markers",
            name="chunk with reference text", customdata=touching, hovertext=hover[touching],
            hovertemplate="%{hovertext}<extra>holds reference text</extra>",
            marker={"size": 15, "color": "rgba(0,0,0,0)",
                    "line": {"width": 3, "color": REFERENCE_COLOUR}}, **keep))
    if question.retrieved:
        order = sorted(question.retrieved.items(), key=lambda item: item[1])
        idx = np.array([i for i, _ in order])
        traces.append(go.Scatter(
            x=xy[idx, 0], y=xy[idx, 1], mode="markers+text", name="retrieved (rank)",
            text=[f"#{rank}" for _, rank in order], textposition="top center",
            customdata=idx, hovertext=hover[idx],
            hovertemplate="%{hovertext}<extra>retrieved %{text}</extra>",
            marker={"size": 13, "symbol": "diamond", "color": list(colours[idx]),
                    "line": {"width": 2, "color": RETRIEVED_OUTLINE}}, **keep))
    if question.references:
        traces.append(go.Scatter(
            x=[r.x for r in question.references], y=[r.y for r in question.references],
            mode="markers", name="reference excerpt",
            hovertext=[f"reference · chars {r.start:,}–{r.end:,}" for r in question.references],
            hovertemplate="%{hovertext}<extra></extra>",
            marker={"size": 16, "symbol": "star", "color": REFERENCE_COLOUR,
                    "line": {"width": 1, "color": "#7a5a00"}}, **keep))
    traces.append(go.Scatter(
        x=[question.x], y=[question.y], mode="markers", name="question",
        hovertext=[html.escape(question.text)], hovertemplate="%{hovertext}<extra></extra>",
        marker={"size": 16, "symbol": "x", "color": "#d1242f"}, **keep))
    return traces


def picked_point(event: object) -> int | None:
    """The chunk index of the point a click selected, or None (a click on the question or a
    reference star, or no click)."""
    selection = getattr(event, "selection", None)
    points = getattr(selection, "points", None) or []
    for point in points:
        value = point.get("customdata")
        if isinstance(value, list):
            value = value[0] if value else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return int(value)
    return None


def show_map(chunk_map: ChunkMap, key: str, text_of: Callable[[str], str | None],
             question: MapQuestion | None = None) -> None:
    """The map with its colour switch; a click on a chunk opens it in its document below."""
    picked_colour = st.segmented_control("Colour by", ["document", "section"],
                                         key=f"{key}_colour", default="document")
    colour_by: ColourBy = "section" if picked_colour == "section" else "document"
    options: dict[str, Any] = {"scrollZoom": True, "displaylogo": False}
    # Plotly's own light theme instead of Streamlit's: restyling 5,000 points in the browser
    # cost about a second (bench_chunk_map).
    event = st.plotly_chart(map_figure(chunk_map, colour_by, question), key=key, theme=None,
                            on_select="rerun", selection_mode="points", config=options)
    count = len(chunk_map.points)
    st.caption(" · ".join([f"{count:,} chunks, PCA of the vectors retrieval ranks with",
                           *_legend(question), "click a point to open its chunk"]))
    picked = picked_point(event)
    if picked is not None and 0 <= picked < count:
        show_chunk(chunk_map.points[picked], text_of, question, picked)


def _legend(question: MapQuestion | None) -> list[str]:
    if question is None:
        return []
    parts = ["✕ the question"]
    if question.retrieved:
        parts.append("◆ what it retrieved (#rank), coloured as its chunk")
    if question.references:
        parts.append("★ its reference excerpts, gold rings the chunks that hold their text")
    return parts


def show_chunk(point: MapPoint, text_of: Callable[[str], str | None],
               question: MapQuestion | None, index: int) -> None:
    """The clicked chunk in its document: the text around it, the chunk highlighted and the
    question's reference excerpts marked."""
    rank = question.retrieved.get(index) if question else None
    st.markdown(f"**Chunk in {md_escape(point.document)}** · {md_escape(point.section)}")
    st.caption(f"{point.chunk_type} · characters {point.start:,}–{point.end:,}"
               + (f" · retrieved at rank {rank}" if rank else ""))
    text = text_of(point.doc_id)
    if text is None:
        st.info("This chunk's document is no longer in the library.")
        return
    references = tuple((r.start, r.end) for r in question.references
                       if r.doc_id == point.doc_id) if question else ()
    st.html(html_by_content("map chunk", (point.doc_id, point.start, point.end, references),
                            lambda: _chunk_html(text, point, references)))


def _chunk_html(text: str, point: MapPoint, references: Sequence[tuple[int, int]]) -> str:
    lo, hi = max(0, point.start - MARGIN), min(len(text), point.end + MARGIN)
    spans = [HighlightSpan(point.start - lo, point.end - lo, CHUNK_COLOUR, label="chunk",
                           tooltip=f"characters {point.start:,}–{point.end:,}",
                           css_class="cl-map-chunk")]
    spans += [HighlightSpan(max(s, lo) - lo, min(e, hi) - lo, HIGHLIGHT_REFERENCE,
                            label="ref", tooltip="reference excerpt", css_class="cl-reference")
              for s, e in references if s < hi and lo < e]
    return highlight_html(text[lo:hi], spans, height_px=360)


def _library_text(doc_id: str) -> str | None:
    try:
        return library().get(doc_id).text
    except (KeyError, ChunkLabError):
        return None


def show_set_map(names: list[str]) -> None:
    """The Chunk sets page's map: one set's chunks, and where a question typed here lands with
    the chunks it retrieves (top 5 by vector, as Assemble starts)."""
    st.subheader("Map of a chunk set")
    if not st.toggle("Draw a map", key=kept("store_map_on", False),
                     help="PCA of the set's stored vectors, coloured by document or section."):
        st.caption("Where each chunk sits for retrieval; type a question to see what it "
                   "retrieves, and click a point to read its chunk.")
        return
    left, right = st.columns([1, 2])
    name = left.selectbox("Chunk set", names, key=kept("store_map_set", names[0], valid=names))
    question = right.text_input("Question (optional)", key=kept("store_map_question", ""),
                                placeholder="e.g. What does the policy pay for water damage?")
    try:  # the question is embedded by the set's embedder: an endpoint may be down
        chunk_map = set_map(name)
        placed = (chunk_set_question(chunk_map, chunk_store(), name, question.strip(),
                                     embedding=embedding_settings())
                  if question.strip() else None)
    except ChunkLabError as err:
        show_error(err)
        return
    show_map(chunk_map, "store_map", _library_text, placed)

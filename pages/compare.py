"""Compare: one document, two to four chunk configurations side by side, with numbers."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.chunking.base import Chunk
from core.chunking.registry import (
    PRESETS,
    available,
    build_chunker,
    config_class,
    save_user_preset,
    user_presets,
)
from core.chunking.stats import chunk_stats
from core.documents.model import Document
from core.errors import ChunkLabError
from core.render import HighlightSpan, highlight_html, palette
from ui.state import llm_settings, md_escape, pick_document, show_error

DEFAULT_SLOTS = ["fixed 1000 chars", "recursive 500/50", "semantic", "recursive 500/50 by section"]
HIDDEN_FIELDS = {"encoding", "window", "cache", "snap_tolerance"}
TABLE_COLOR = "#ffb65c"
MAX_CHARS = 60_000


@st.cache_data(show_spinner="Chunking…", max_entries=64)
def _chunk(
    _document: Document, doc_id: str, strategy: str, settings_key: str, llm_key: str
) -> list[Chunk]:
    """Cached per document and settings; ``llm_key`` is the endpoint and model, never the key."""
    chunker = build_chunker(strategy, **json.loads(settings_key))
    if strategy == "llm":
        chunker.llm_settings = llm_settings()  # the session's settings, API key included
    return chunker.chunk(_document)


def _llm_key(strategy: str) -> str:
    if strategy != "llm":
        return ""
    return llm_settings().model_dump_json(exclude={"api_key"})


def _field_widget(name: str, field: Any, value: Any, key: str) -> Any:
    label = name.replace("_", " ")
    if name == "separators":
        raw = st.text_input(label + " (JSON list)", json.dumps(value), key=key)
        try:
            return json.loads(raw)
        except ValueError:
            return raw  # the chunker's validation names the problem
    if isinstance(value, bool):
        return st.checkbox(label, value=value, key=key)
    if isinstance(value, int):
        return int(st.number_input(label, value=value, step=10 if value >= 50 else 1, key=key))
    if isinstance(value, float):
        return float(st.number_input(label, value=value, step=0.05, key=key))
    choices = getattr(field.annotation, "__args__", None)
    if choices and all(isinstance(c, str) for c in choices):
        return st.selectbox(label, choices, index=list(choices).index(value), key=key)
    return st.text_input(label, str(value), key=key)


def _editor(slot: int, presets: dict[str, tuple[str, dict[str, Any]]]) -> tuple[str, str, dict]:
    names = list(presets)
    default = DEFAULT_SLOTS[slot] if DEFAULT_SLOTS[slot] in names else names[0]
    preset = st.selectbox(f"Configuration {slot + 1}", names, index=names.index(default),
                          key=f"cmp_preset_{slot}")
    strategy, preset_settings = presets[preset]
    with st.expander("Settings", expanded=False):
        strategies = [s for s in ("fixed", "recursive", "semantic", "llm") if available(s)]
        strategy = st.selectbox("strategy", strategies, index=strategies.index(strategy),
                                key=f"cmp_strategy_{slot}_{preset}")
        if strategy != presets[preset][0]:
            preset_settings = {}
        fields = config_class(strategy).model_fields
        defaults = {**{n: f.default for n, f in fields.items()}, **preset_settings}
        prefix = f"cmp_{slot}_{preset}_{strategy}"
        settings = {
            name: _field_widget(name, field, defaults[name], f"{prefix}_{name}")
            for name, field in fields.items()
            if name not in HIDDEN_FIELDS
        }
    label = preset if strategy == presets[preset][0] and all(
        settings.get(k) == v for k, v in preset_settings.items()) else f"{preset} (edited)"
    return label, strategy, settings


def _llm_note(strategy: str) -> str:
    return llm_settings().missing_message() if strategy == "llm" else ""


def _strip(results: list[tuple[str, list[Chunk]]], document: Document) -> go.Figure:
    fig = go.Figure()
    rows = [f"{i + 1}. {label}" for i, (label, _) in enumerate(results)]
    for row, (slot, (_, chunks)) in zip(rows, enumerate(results), strict=True):
        fig.add_bar(
            y=[row] * len(chunks), x=[c.end - c.start for c in chunks],
            base=[c.start for c in chunks], orientation="h", opacity=0.75, showlegend=False,
            marker_color=[TABLE_COLOR if c.chunk_type == "table" else palette(k % 2 * 2)
                          for k, c in enumerate(chunks)],
            marker_line={"color": "#394150", "width": 1},
            customdata=[[slot, k] for k in range(len(chunks))],
            hovertemplate=[f"chunk {k + 1} · {c.tokens} tokens · {c.chunk_type}<extra></extra>"
                           for k, c in enumerate(chunks)],
        )
    starts = [s.start for s in document.sections]
    if starts:
        fig.add_scatter(
            x=starts, y=["sections"] * len(starts), mode="markers", showlegend=False,
            marker={"symbol": "triangle-up", "size": 10, "color": "#394150"},
            hovertext=[s.title for s in document.sections], hoverinfo="text",
        )
        for x in starts:
            fig.add_vline(x=x, line_width=1, line_dash="dot", line_color="#9aa1ab")
    fig.update_layout(
        barmode="overlay", height=90 + 48 * (len(rows) + 1), margin={"l": 10, "r": 10, "t": 10,
                                                                   "b": 30},
        xaxis={"title": "character offset", "range": [0, max(1, len(document.text))]},
        yaxis={"categoryorder": "array", "categoryarray": ["sections", *rows[::-1]]},
        clickmode="event+select",
    )
    return fig


def _highlight(document: Document, chunks: list[Chunk]) -> str:
    spans = [
        HighlightSpan(
            c.start, c.end,
            TABLE_COLOR if c.chunk_type == "table" else palette(k % 2 * 2),
            label=f"{k + 1}" + (" table" if c.chunk_type == "table" else ""),
            tooltip=f"chunk {k + 1} · {c.tokens} tokens · {c.chunk_type}",
            css_class="cl-table" if c.chunk_type == "table" else "",
        )
        for k, c in enumerate(chunks)
    ]
    return highlight_html(document.text, spans, max_chars=MAX_CHARS)


def _histogram(chunks: list[Chunk], slot: int) -> go.Figure:
    fig = go.Figure(go.Histogram(x=[c.tokens for c in chunks], nbinsx=20,
                                 marker_color=palette(slot * 2 + 1)))
    fig.update_layout(height=200, margin={"l": 10, "r": 10, "t": 10, "b": 30},
                      xaxis_title="tokens per chunk", yaxis_title="chunks", bargap=0.05)
    return fig


def _inspect(chunks: list[Chunk], slot: int) -> None:
    key = f"cmp_inspect_{slot}"
    if st.session_state.get(key, 1) > len(chunks):
        st.session_state[key] = 1
    k = st.number_input("Inspect chunk", min_value=1, max_value=len(chunks), step=1, key=key)
    c = chunks[int(k) - 1]
    path = " › ".join(c.heading_path) or "—"
    st.caption(f"{c.chunk_type} · {c.tokens} tokens · chars {c.start}–{c.end} · {path}")
    st.code(c.text, language=None, wrap_lines=True, height=200)


def main() -> None:
    st.title("Compare chunkings")
    document = pick_document()
    if document is None:
        return
    presets = {**PRESETS, **user_presets()}
    count = st.radio("Configurations", [2, 3, 4], horizontal=True, key="cmp_count")
    configs = []
    for slot, column in enumerate(st.columns(count)):
        with column:
            configs.append(_editor(slot, presets))

    results: list[tuple[str, list[Chunk]]] = []
    problems: dict[int, str] = {}
    for slot, (label, strategy, settings) in enumerate(configs):
        note = _llm_note(strategy)
        if note:
            problems[slot] = note
            results.append((label, []))
            continue
        try:
            key = json.dumps(settings, sort_keys=True)
            results.append(
                (label, _chunk(document, document.doc_id, strategy, key, _llm_key(strategy)))
            )
        except ChunkLabError as err:
            problems[slot] = str(err)
            results.append((label, []))

    event = st.plotly_chart(_strip(results, document), on_select="rerun", key="cmp_strip",
                            selection_mode="points")
    for point in (event.selection.points if event else []) or []:
        data = point.get("customdata")
        if data and len(data) == 2:
            st.session_state[f"cmp_inspect_{int(data[0])}"] = int(data[1]) + 1

    table = {}
    for slot, ((label, chunks), (_, _, settings)) in enumerate(
        zip(results, configs, strict=True)
    ):
        if chunks:
            target = settings.get("size") if settings.get("unit", "tokens") == "tokens" else None
            table[f"{slot + 1}. {label}"] = chunk_stats(document, chunks, target)
    if table:
        st.dataframe(pd.DataFrame(table).astype(str))

    for slot, column in enumerate(st.columns(count)):
        label, chunks = results[slot]
        with column:
            st.markdown(f"**{slot + 1}. {md_escape(label)}**")
            if slot in problems:
                show_error(problems[slot])
                continue
            if not chunks:
                st.info("No chunks: the document has no text.")
                continue
            st.html(_highlight(document, chunks))
            st.plotly_chart(_histogram(chunks, slot),
                            key=f"cmp_hist_{slot}")
            _inspect(chunks, slot)

    with st.expander("Save a configuration as a named preset"):
        if saved := st.session_state.pop("cmp_saved", None):
            st.success(f"Saved {saved!r}: it is now in every configuration's list.")
        slot = st.selectbox("Configuration", range(count), format_func=lambda i: str(i + 1))
        name = st.text_input("Preset name", key="cmp_preset_name")
        if st.button("Save preset"):
            _, strategy, settings = configs[slot]
            try:
                save_user_preset(name, strategy, settings)
            except ChunkLabError as err:
                show_error(err)
            else:
                st.session_state["cmp_saved"] = name.strip()
                st.rerun()


main()

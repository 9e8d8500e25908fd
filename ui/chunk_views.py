"""What Compare draws for one chunking: the highlighted text, integrity badges that jump to the
places they found, an inspector that shows table chunks as tables (and a chunk on its page),
and export buttons.

The highlight HTML is held by content (document, spans, flagged chunks), so a rerun that
changed another column does not draw this one's text again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from core.chunking.checks import CheckKind, IntegrityReport
from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.operations.export import SHAPES, export_chunks, python_snippet
from ui.page_view import show_on_page
from ui.render import HighlightSpan, highlight_html, md_escape, palette
from ui.resources import html_by_content

TABLE_COLOR = "#ffb65c"
MAX_CHARS = 60_000
SpanKey = tuple[int, int, bool, int, bool]  # start, end, table, tokens, flagged


def focus_key(slot: int) -> str:
    return f"cmp_focus_{slot}"


def inspect_key(slot: int) -> str:
    return f"cmp_inspect_{slot}"


def chunk_color(chunk: Chunk, k: int) -> str:
    return TABLE_COLOR if chunk.chunk_type == "table" else palette(k % 2 * 2)


def _highlight(text: str, spans: tuple[SpanKey, ...]) -> str:
    return highlight_html(text, [
        HighlightSpan(
            start, end, TABLE_COLOR if table else palette(k % 2 * 2),
            label=f"{k + 1}" + (" table" if table else ""),
            tooltip=f"chunk {k + 1} · {tokens} tokens · {'table' if table else 'text'}",
            css_class=" ".join(c for c, on in (("cl-table", table), ("cl-flag", flagged)) if on),
        )
        for k, (start, end, table, tokens, flagged) in enumerate(spans)
    ], max_chars=MAX_CHARS)


def highlight(document: Document, chunks: list[Chunk], flagged: set[int]) -> str:
    """The document with its chunks coloured; chunks in ``flagged`` are outlined in red."""
    spans = tuple((c.start, c.end, c.chunk_type == "table", c.tokens, k in flagged)
                  for k, c in enumerate(chunks))
    return html_by_content("chunks", (document.doc_id, spans),
                           lambda: _highlight(document.text, spans))


def _focus(slot: int, kind: CheckKind, chunk: int | None) -> None:
    st.session_state[focus_key(slot)] = kind
    if chunk is not None:
        st.session_state[inspect_key(slot)] = chunk + 1


def badges(slot: int, report: IntegrityReport) -> set[int]:
    """A badge per check that found something (red: a broken invariant); clicking one lists its
    places and selects the first in the inspector. Returns the chunks of the focused check."""
    found = [c for c in report.checks if c.count]
    if not found:
        st.caption(":material/check_circle: Every check passes.")
        st.session_state.pop(focus_key(slot), None)
        return set()
    row = st.container(horizontal=True)
    for item in found:
        row.button(item.summary(), key=f"cmpb_badge_{slot}_{item.kind}",
                   icon=":material/error:" if item.invariant else ":material/warning:",
                   type="primary" if item.invariant else "secondary",
                   help=("A broken promise" if item.invariant else "A warning")
                   + ": click to see where.",
                   on_click=_focus, args=(slot, item.kind, item.places[0].chunk))
    focused = st.session_state.get(focus_key(slot))
    check = next((c for c in found if c.kind == focused), None)
    if check is None:
        return set()
    places = list(check.places)
    choice = st.selectbox(f"Where: {check.label}", range(len(places)),
                          key=f"cmp_place_{slot}_{check.kind}",
                          format_func=lambda i: places[i].describe())
    chunk = places[choice].chunk
    if chunk is not None and st.session_state.get(f"_cmp_place_seen_{slot}") != (focused, choice):
        st.session_state[f"_cmp_place_seen_{slot}"] = (focused, choice)
        st.session_state[inspect_key(slot)] = chunk + 1
    return {p.chunk for p in places if p.chunk is not None}


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def inspector(document: Document, chunks: list[Chunk], slot: int) -> None:
    """One chunk at a time: where it is, its text, and each table inside it as a table."""
    key = inspect_key(slot)
    if not 1 <= st.session_state.get(key, 1) <= len(chunks):
        st.session_state[key] = 1
    k = st.number_input("Inspect chunk", min_value=1, max_value=len(chunks), step=1, key=key)
    c = chunks[int(k) - 1]
    path = md_escape(" › ".join(c.heading_path)) or "—"
    st.caption(f"{c.chunk_type} · {c.tokens:,} tokens · chars {c.start:,}–{c.end:,} · {path}")
    show_on_page(document, [(c.start, c.end)], key=f"cmp_page_{slot}")
    for table in document.tables:
        if c.start <= table.start and table.end <= c.end and len(table.rows) > 1:
            header = _unique([cell or " " for cell in table.rows[0]])
            body = [row + [""] * (len(header) - len(row)) for row in table.rows[1:]]
            st.dataframe(pd.DataFrame([r[: len(header)] for r in body], columns=header),
                         hide_index=True, height=min(400, 38 + 35 * len(body)),
                         key=f"cmp_table_{slot}_{table.start}")
    st.code(c.text, language=None, wrap_lines=True, height=200)


def exports(document: Document, chunks: list[Chunk], strategy: str,
            settings: Mapping[str, Any], slot: int) -> None:
    """Download buttons for the chunks in every export shape, and the Python that makes them."""
    stem = document.source_name.rsplit(".", 1)[0]
    row = st.container(horizontal=True)
    for shape, info in SHAPES.items():
        row.download_button(info.label, export_chunks(document, chunks, shape),
                            file_name=f"{stem}.{info.extension}", mime=info.mime,
                            key=f"cmpb_dl_{slot}_{shape}", icon=":material/download:",
                            on_click="ignore")
    st.code(python_snippet(document.source_name, strategy, settings), language="python")

"""Structure: docling's sections next to the LLM's, and the LLM's chunk boundaries on the text.

Each chunk is coloured by why it starts where it does, with the model's justification on hover.
How far a position had to move is shown only in character-offset mode (an anchor lands on its
block exactly). Tolerant parsing's repairs and the annotations the model failed to give are
listed as warnings; a result kept after a failed or cancelled run says it is from the earlier run.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from core.chunking.chunk import BOUNDARY_NAMES, boundary_name
from core.documents.model import Document
from core.llm.log import ResponseLog
from core.llm.run import LLMRun
from core.llm.settings import LLMSettings
from core.operations.strategies import RunOptions, run_llm
from ui.llm_warnings import show_llm_warnings, show_table
from ui.long_run import run_live
from ui.persist import kept
from ui.render import HighlightSpan, highlight_html, md_escape
from ui.resources import llm_settings, prompt_library
from ui.state import pick_document, warn_missing_key
from ui.wording import count

TYPE_COLORS = {
    "DOCUMENT_START": "#cfe3ff",
    "SECTION_BREAK": "#ffe1b3",
    "SEMANTIC_SHIFT": "#d4f5d0",
    "SIZE_CONSTRAINT": "#f9d0e4",
}
RUNS = "structure_runs"  # doc_id -> (config dict, LLMRun)
STALE = "structure_stale"  # doc_id -> why the shown result is from an earlier run
DEFAULT_INPUTS: dict[str, Any] = {  # the inputs, kept across page switches
    "size": 500, "mode": "anchors", "summaries": True, "parsing": "strict"}
POSITIONS = {"anchors": "numbered anchors", "offsets": "character offsets"}
PARSING = {"strict": "strict", "tolerant": "tolerant (repair and warn)"}

st.title("Structure")
st.caption("How docling and the LLM see the same document, and where the LLM cuts it.")

settings: LLMSettings = llm_settings()
document = pick_document()
if document is None:
    st.stop()
runs: dict[str, tuple[dict, LLMRun]] = st.session_state.setdefault(RUNS, {})
stale: dict[str, str] = st.session_state.setdefault(STALE, {})

if not settings.configured:
    st.warning(f"{md_escape(settings.missing_message())} "
               "(Settings is under **Setup** in the sidebar.)")
warn_missing_key(settings)

left, middle, right = st.columns(3)
size = left.number_input("Max chunk size (tokens)", 50, 8192, step=50,
                         key=kept("structure_size", DEFAULT_INPUTS["size"]))
mode = middle.radio(
    "Positions", list(POSITIONS), horizontal=True, format_func=POSITIONS.get,
    key=kept("structure_mode", DEFAULT_INPUTS["mode"], valid=list(POSITIONS)),
    help="Anchors: the model names numbered blocks. Offsets: the "
    "model names character positions, moved to the nearest block or sentence start.")
parsing = right.radio(
    "Parsing of the model's answers", list(PARSING), horizontal=True, format_func=PARSING.get,
    key=kept("structure_parsing", DEFAULT_INPUTS["parsing"], valid=list(PARSING)),
    help="Strict: any slip in an answer stops the run with the line at fault. Tolerant: common "
    "slips of small models (a code fence, a preamble, an anchor past the end, a title in "
    "another case, lines out of order) are repaired and listed as warnings; if the sections "
    "cannot be read, the document's own sections are used.")
summaries = st.checkbox("Metadata, prefixes and table summaries",
                        key=kept("structure_summaries", DEFAULT_INPUTS["summaries"]),
                        help="A summary and a contextual prefix per chunk, and a "
                        "summary per table chunk.")
config = {"size": int(size), "mode": mode, "summaries": summaries, "parsing": parsing}
start = st.button("Run LLM chunking", type="primary", disabled=not settings.configured)
if st.session_state.get("structure_cancel"):
    if document.doc_id in runs:
        stale[document.doc_id] = "the last run was cancelled"
    st.info("Cancelled; the earlier result (if any) is still shown.")

if start:
    templates = prompt_library()
    result = run_live(lambda live: run_llm([document], config, RunOptions(
        llm=settings, library=templates, progress=live.progress, cancel=live.cancel,
        listener=live.listener()))[0].checked(), key="structure_cancel").result
    if result is None:
        if document.doc_id in runs:
            stale[document.doc_id] = "the last run failed"
    else:
        runs[document.doc_id] = (config, result)
        stale.pop(document.doc_id, None)


def _sections_frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["title", "level", "start", "end"]
                         if not rows else list(rows[0]))
    frame["title"] = ["  " * (int(level) - 1) + str(title)
                      for title, level in zip(frame["title"], frame["level"], strict=True)]
    return frame.drop(columns=[c for c in ("parent",) if c in frame.columns])


def _boundaries_html(document: Document, run: LLMRun, offsets: bool) -> str:
    moved = {b.position: (b.said, b.snap_distance) for b in run.boundary_list()}
    spans = []
    for k, chunk in enumerate(run.chunks):
        kind = chunk.llm.boundary_type if chunk.llm else "SEMANTIC_SHIFT"
        why = chunk.llm.justification if chunk.llm else ""
        said = moved.get(chunk.start) if offsets else None
        snap = f" · the model said {said[0]}, moved {said[1]} chars" if said else ""
        spans.append(HighlightSpan(
            chunk.start, chunk.end, TYPE_COLORS.get(kind, "#dde3ea"),
            label=f"{k + 1} {boundary_name(kind)}",
            tooltip=f"{boundary_name(kind)}: {why}{snap} · {chunk.tokens:,} tokens",
            css_class="cl-table" if chunk.chunk_type == "table" else "",
        ))
    return highlight_html(document.text, spans, max_chars=300_000, height_px=640)


stored = runs.get(document.doc_id)
docling_rows = [{"title": s.title, "level": s.level, "start": s.start, "end": s.end}
                for s in document.sections]
if stored is None:
    st.subheader("docling's sections")
    show_table(_sections_frame(docling_rows))
    st.info("Run LLM chunking to see the LLM's sections and boundaries for this document.")
    st.stop()

used, run = stored
usage = run.usage
offsets = used["mode"] == "offsets"
described = (f"max {used['size']:,} tokens, {POSITIONS[used['mode']]}, {used['parsing']} "
             f"parsing, {'with' if used['summaries'] else 'without'} metadata and summaries")
if document.doc_id in stale:
    st.warning(f"Shown below: the result of an earlier run ({md_escape(described)}); "
               f"{md_escape(stale[document.doc_id])}.", icon=":material/history:")
else:
    st.caption(f"Last run: {described}.")
cols = st.columns(6)
cols[0].metric("Chunks", f"{len(run.chunks):,}")
cols[1].metric("LLM sections", f"{len(run.structure.sections) if run.structure else 0:,}")
cols[2].metric("Requests", f"{usage.requests:,}")
cols[3].metric("Cache hits", f"{usage.cache_hits:,}")
cols[4].metric("Tokens", f"{usage.tokens:,}")
cols[5].metric("Warnings", f"{run.warnings:,}")
show_llm_warnings(run)

docling_col, llm_col = st.columns(2)
with docling_col:
    st.subheader("docling's sections")
    show_table(_sections_frame(docling_rows))
with llm_col:
    st.subheader("The LLM's sections")
    show_table(_sections_frame(run.section_rows()))
    if run.structure and run.structure.fallback:
        st.caption("The model's sections could not be read, so these are the document's own.")

st.subheader("The LLM's boundaries")
st.html(" ".join(
    f'<span style="background:{color};padding:0.1rem 0.4rem;border-radius:3px;'
    f'font-size:0.8rem;margin-right:0.3rem">{BOUNDARY_NAMES[kind]}</span>'
    for kind, color in TYPE_COLORS.items()
) + '<span style="font-size:0.8rem;color:#6b7280"> · hover a chunk for the justification'
    + (" and how far its start moved" if offsets else "") + "; tables have an orange edge</span>")
splits = run.size_splits()
if splits:
    st.caption(f"{count(len(splits), 'chunk')} ({', '.join(f'#{k + 1}' for k in splits[:12])}"
               f"{', …' if len(splits) > 12 else ''}) {'was' if len(splits) == 1 else 'were'} "
               "cut by the size limit of "
               f"{used['size']:,} tokens without asking the model.")
st.html(_boundaries_html(document, run, offsets))
show_table(pd.DataFrame(run.boundary_rows(used["mode"])),
            "justification")

with st.expander(f"Chunks ({len(run.chunks):,}) with metadata"):
    show_table(pd.DataFrame(
        [{"#": k + 1, "type": c.chunk_type, "tokens": c.tokens,
          "starts at": boundary_name(c.llm.boundary_type) if c.llm else "",
          "summary": c.summary or "", "context prefix": c.context_prefix or "",
          "text": c.text[:200]} for k, c in enumerate(run.chunks)]
    ), "text")

with st.expander("Raw LLM responses (newest first)"):
    log = ResponseLog()
    entries = log.tail(50)
    st.caption(f"Logged in {log.path}")
    if entries:
        st.dataframe(pd.DataFrame(
            [{"phase": e.get("phase"), "template": e.get("template_version"),
              "model": e.get("model"), "latency s": e.get("latency_s"),
              "tokens": (e.get("prompt_tokens") or 0) + (e.get("completion_tokens") or 0),
              "error": e.get("error", ""), "response": (e.get("response") or "")[:160]}
             for e in entries]
        ), hide_index=True)
        pick = st.number_input("Show entry", 1, len(entries), 1)
        entry = entries[int(pick) - 1]
        st.code(entry.get("response") or entry.get("error") or "", language=None)

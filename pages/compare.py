"""Compare: one document, two to four chunk configurations side by side, with numbers,
integrity badges, hand edits and exports. The configurations, edits and choices stay when the
user visits another page, reloads the browser or starts the app again (ui.persist)."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.errors import ChunkLabError
from core.llm.run import LLMRun
from core.operations.chunk_review import FIGURE_DETAILS, ChunkReview, review, shown_figures
from core.operations.presets import all_presets, save_user_preset
from core.operations.report.compare import ComparedConfiguration, compare_report
from core.operations.strategies import Chunking, RunOptions, chunking, llm_estimate, uses_llm
from ui.chunk_views import badges, chunk_color, exports, highlight, inspect_key, inspector
from ui.clickable import clickable_html
from ui.hand_edits import EDITS, EditedColumn, edit_panel, edited_column, set_aside_inputs
from ui.llm_warnings import show_llm_warnings
from ui.long_run import run_live
from ui.persist import kept_all, set_aside
from ui.render import Bar, histogram_html, md_escape, palette, strip_html
from ui.resources import llm_settings, prompt_library
from ui.settings_form import Configuration, configuration_editor
from ui.state import pick_document, show_error, warn_missing_key

EDIT_OPEN = "cmp_edit_open"  # the hand edit panel is open (kept across page visits)
LLM_RUNS = "cmp_llm_runs"  # the model's chunkings of this session (see _llm_chunk)
LLM_RUNS_KEPT = 16
DEFAULT_SLOTS = ["fixed 1000 chars", "recursive 500/50", "semantic", "recursive 500/50 by section"]
KEPT = ("cmp_count", "cmp0:", "cmp1:", "cmp2:", "cmp3:", "cmp_inspect_", "cmp_edit_",
        "cmp_save_slot", "cmp_preset_name", EDITS)  # inputs kept across page visits and restarts
ROW_DETAILS = " ".join(f"**{row}**: {meaning}" for row, meaning in FIGURE_DETAILS.items())
SECTION_SHADES = ("#e4e7ec", "#c9ced6")  # neighbouring sections on the strip


@st.cache_data(show_spinner="Chunking…", max_entries=64)
def _chunk(_document: Document, doc_id: str, strategy_name: str, settings_key: str) -> Chunking:
    """Cached per document and settings (a strategy that needs no model)."""
    return chunking(_document, strategy_name, json.loads(settings_key))


def _llm_chunk(document: Document, config: Configuration, settings_key: str,
               slot: int) -> Chunking | str:
    """A configuration the model chunks: run live (its progress, its place in the server's
    line, Cancel), then kept in the session per document, settings and endpoint (URL and model,
    never the key); a cancelled or failed run is kept as its sentence until Try again."""
    llm = llm_settings()
    done: dict[tuple[str, ...], Chunking | str] = st.session_state.setdefault(LLM_RUNS, {})
    key = (document.doc_id, config.strategy, settings_key,
           llm.model_dump_json(exclude={"api_key"}))
    cancel_key = f"cmp_llm_cancel_{slot}"
    if st.session_state.get(cancel_key):
        done[key] = "LLM chunking was cancelled."
    if isinstance(done.get(key), str):
        if st.button("Try again", key=f"cmp_llm_again_{slot}"):
            del done[key]
            st.rerun()
        return done[key]
    if key not in done:
        templates = prompt_library()
        planned = llm_estimate([document], config.strategy, json.loads(settings_key),
                               RunOptions(llm=llm, library=templates))
        st.caption(md_escape(f"{slot + 1}. {config.label}: the model chunks the document. "
                             + (planned.sentence() if planned else "")))
        run = run_live(lambda live: chunking(document, config.strategy,
                                             json.loads(settings_key), RunOptions(
            llm=llm, library=templates, progress=live.progress, cancel=live.cancel,
            listener=live.listener())), key=cancel_key)
        done[key] = run.result if run.result is not None else str(run.error)
        while len(done) > LLM_RUNS_KEPT:
            done.pop(next(iter(done)))
    return done[key]


def _llm_note(config: Configuration) -> str:
    return llm_settings().missing_message() if uses_llm(config.strategy, config.settings) else ""


def _strip(results: list[tuple[str, list[Chunk]]], document: Document) -> str:
    """Every configuration's chunks along the document, section starts as dashed lines; a click
    on a chunk reports "slot:chunk"."""
    rows = [f"{i + 1}. {label}" for i, (label, _) in enumerate(results)]
    bars = [Bar(row, c.start, c.end - c.start, chunk_color(c, k),
                f"chunk {k + 1} · {c.tokens:,} tokens · {c.chunk_type}", pick=f"{slot}:{k}")
            for slot, (row, (_, chunks)) in enumerate(zip(rows, results, strict=True))
            for k, c in enumerate(chunks)]
    starts = sorted({s.start: s.title for s in document.sections}.items())
    ends = [start for start, _ in starts[1:]] + [len(document.text)] * bool(starts)
    bars += [Bar("sections", start, end - start, SECTION_SHADES[n % 2], f"section: {title}")
             for n, ((start, title), end) in enumerate(zip(starts, ends, strict=True))]
    return strip_html([*rows, "sections"] if starts else rows, bars, len(document.text),
                      axis="character offset", marks=[(start, "") for start, _ in starts])


def _inspect(picked: str) -> None:
    """Show the clicked chunk in its column's inspector (a value that is not one of the strip's
    "slot:chunk" picks is ignored; the inspector keeps a chunk number in range)."""
    slot, _, k = picked.partition(":")
    if slot.isdigit() and k.isdigit():
        st.session_state[inspect_key(int(slot))] = int(k) + 1


def _histogram(chunks: list[Chunk], slot: int) -> str:
    return histogram_html([c.tokens for c in chunks], palette(slot * 2 + 1),
                          axis="tokens per chunk", counted="chunks")


def _columns(document: Document, configs: list[Configuration]
             ) -> tuple[list[EditedColumn], dict[int, str], dict[int, LLMRun]]:
    """Each configuration's chunks (cached) with its hand edits; problems and the LLM runs
    behind the chunks, by column."""
    columns: list[EditedColumn] = []
    problems: dict[int, str] = {}
    runs: dict[int, LLMRun] = {}
    for slot, config in enumerate(configs):
        base = Chunking([])
        problems[slot] = _llm_note(config)
        if not problems[slot]:
            key = json.dumps(config.settings, sort_keys=True)
            try:
                found = (_llm_chunk(document, config, key, slot)
                         if uses_llm(config.strategy, config.settings)
                         else _chunk(document, document.doc_id, config.strategy, key))
            except ChunkLabError as err:
                found = str(err)
            if isinstance(found, str):
                problems[slot] = found
            else:
                base = found
        if base.llm_run is not None:
            runs[slot] = base.llm_run
        columns.append(edited_column(slot, document, config.label, config.strategy,
                                     config.settings, base.chunks))
    return columns, {slot: text for slot, text in problems.items() if text}, runs


def _stats_table(columns: list[EditedColumn], reviews: dict[int, ChunkReview]) -> None:
    table = {}
    for slot, column in enumerate(columns):
        if slot in reviews:
            table[f"{slot + 1}. {column.label}"] = shown_figures(reviews[slot])
    if table:
        st.table(pd.DataFrame(table))
        with st.expander("Details: what the rows count"):
            st.caption(ROW_DETAILS)


def _save_preset(configs: list[Configuration]) -> None:
    with st.expander("Save a configuration as a named preset", key="cmp_save_open",
                     on_change="rerun") as box:
        if not box.open:
            for key in ("cmp_save_slot", "cmp_preset_name"):
                set_aside(key)
            return
        if saved := st.session_state.pop("cmp_saved", None):
            st.success(f"Saved “{md_escape(saved)}”: it is now in every configuration's list.")
        slot = st.selectbox("Configuration", range(len(configs)),
                            format_func=lambda i: str(i + 1), key="cmp_save_slot")
        name = st.text_input("Preset name", key="cmp_preset_name")
        if st.button("Save preset", key="cmpb_save"):
            try:
                save_user_preset(name, configs[slot].strategy, configs[slot].settings)
            except ChunkLabError as err:
                show_error(err)
            else:
                st.session_state["cmp_saved"] = name.strip()
                st.rerun()


def main() -> None:
    kept_all(KEPT, durable=True)
    st.title("Compare chunkings")
    document = pick_document()
    if document is None:
        return
    presets = all_presets()
    count = st.radio("Configurations", [2, 3, 4], horizontal=True, key="cmp_count")
    configs: list[Configuration] = []
    for slot, column in enumerate(st.columns(count)):
        with column:
            configs.append(configuration_editor(f"cmp{slot}", presets, DEFAULT_SLOTS[slot],
                                                label=f"Configuration {slot + 1}",
                                                own_label=True))
    if any(uses_llm(c.strategy, c.settings) for c in configs):
        warn_missing_key(llm_settings())
    columns, problems, runs = _columns(document, configs)

    clickable_html(_strip([(c.label, c.chunks) for c in columns], document), key="cmp_strip",
                   on_pick=_inspect)
    reviews = {slot: review(document, column.chunks, column.base_settings)
               for slot, column in enumerate(columns) if column.chunks}
    _stats_table(columns, reviews)
    compared = [ComparedConfiguration(c.label, c.base_strategy, c.base_settings,
                                      reviews.get(slot), problems.get(slot, ""))
                for slot, c in enumerate(columns)]
    st.download_button(
        "Download report", lambda: compare_report(document, compared), key="cmp_report",
        file_name=f"compare-{document.source_name}.html", mime="text/html",
        icon=":material/download:",
        help="One HTML file that opens in any browser without a network: the configurations, "
             "their figures and their integrity checks.")

    for slot, place in enumerate(st.columns(count)):
        column = columns[slot]
        with place:
            st.markdown(f"**{slot + 1}. {md_escape(column.label)}**")
            if slot in problems:
                show_error(problems[slot])
                continue
            if slot in runs:
                show_llm_warnings(runs[slot], key=f"cmp{slot}")
            if not column.chunks:
                st.info("No chunks: the document has no text.")
                continue
            flagged = badges(slot, reviews[slot].integrity)
            st.html(highlight(document, column.chunks, flagged))
            st.html(_histogram(column.chunks, slot))
            inspector(document, column.chunks, slot)
            # Closed panels draw nothing (each draws many elements the browser would redo on
            # every click); opening one reruns the page with it.
            with st.expander("Export", key=f"cmp_export_{slot}", on_change="rerun") as box:
                if box.open:
                    exports(document, column.chunks, column.strategy, column.settings, slot)

    with st.expander("Edit chunks by hand", key=EDIT_OPEN, on_change="rerun") as box:
        if box.open:
            edit_panel(document, columns)
        else:
            set_aside_inputs()
    _save_preset(configs)


main()

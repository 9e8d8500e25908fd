"""Hand edits on Compare: split a chunk, move its end, merge it with the next, undo, and save
the result as a named configuration.

A column's edits live in session state under its document and configuration, as the typed
edits of :mod:`core.chunking.edits`: the page replays them on the column's cached base chunks
at every run, so undo drops the last edit and a changed configuration starts clean (its edits
come back when the configuration does). Buttons act through callbacks, so the run they trigger
already draws the chunks, stats and badges after the edit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st
from pydantic import ValidationError

from core.chunking.chunk import Chunk
from core.chunking.edits import (
    EDITED,
    AnyEdit,
    EditedConfig,
    Merge,
    MoveBoundary,
    Split,
    parse_edits,
)
from core.documents.model import Document
from core.errors import ChunkLabError
from core.operations.hand_edits import edit_chunks, edited_config, landed, save_edited
from ui.persist import forget, set_aside
from ui.render import md_escape

EDITS = "cmp_hand_edits"  # {column key: [edit as a dict]}
MESSAGE = "_cmp_edit_message"  # (kind, sentence) shown under the edit buttons
POSITION_FOR = "_cmp_edit_pos_for"  # the column and edit count the position was picked for
CONTEXT = 60


@dataclass(frozen=True)
class EditedColumn:
    """A column's base configuration and chunks, its hand edits, and the chunks after them."""

    key: str
    base_label: str
    base_strategy: str
    base_settings: dict[str, Any]
    base: list[Chunk]
    edits: list[AnyEdit]
    chunks: list[Chunk]
    config: EditedConfig | None  # None: no edits

    @property
    def label(self) -> str:
        return f"{self.base_label} · hand-edited" if self.config else self.base_label

    @property
    def strategy(self) -> str:
        return EDITED if self.config else self.base_strategy

    @property
    def settings(self) -> dict[str, Any]:
        return self.config.model_dump(mode="json") if self.config else self.base_settings


def edited_column(slot: int, document: Document, label: str, strategy: str,
                  settings: dict[str, Any], base: list[Chunk]) -> EditedColumn:
    """The column with its edits replayed (edits that no longer apply are dropped, with a
    message)."""
    key = f"{slot}|{document.doc_id}|{strategy}|{json.dumps(settings, sort_keys=True)}"
    plain = EditedColumn(key, label, strategy, settings, base, [], base, None)
    raw = st.session_state.setdefault(EDITS, {}).get(key)
    if not raw:
        return plain
    try:
        edits = parse_edits(raw)
        config = edited_config(label, strategy, settings, document.doc_id, edits)
        chunks = edit_chunks(document, base, config)
    except (ChunkLabError, ValidationError) as err:
        st.session_state[EDITS].pop(key, None)
        st.session_state[MESSAGE] = ("error", f"The hand edits were dropped: {err}")
        return plain
    return EditedColumn(key, label, strategy, settings, base, edits, chunks, config)


def _add(column: EditedColumn, document: Document, edit: AnyEdit) -> None:
    picked = edit.at if isinstance(edit, Split | MoveBoundary) else None
    edit = landed(document, edit)
    edits = [*column.edits, edit]
    try:
        config = edited_config(column.base_label, column.base_strategy, column.base_settings,
                               document.doc_id, edits)
        chunks = edit_chunks(document, column.base, config)
    except ChunkLabError as err:
        st.session_state[MESSAGE] = ("error", str(err))
        return
    st.session_state[EDITS][column.key] = [e.model_dump() for e in edits]
    st.session_state[MESSAGE] = ("success", _done(edit, picked, chunks))


def _done(edit: AnyEdit, picked: int | None, chunks: Sequence[Chunk]) -> str:
    """What the edit did, with the boundary where it landed: a position inside a word moves to
    the word's edge, and the chunks on either side lose their surrounding whitespace."""
    said = f"Done: {edit.describe()}"
    if picked is not None and isinstance(edit, Split | MoveBoundary) and edit.at != picked:
        said += f" (you picked {picked:,}, inside a word: a boundary moves to its nearer edge)"
    i = edit.index
    if isinstance(edit, Merge) or i + 1 >= len(chunks):
        return f"{said}. Chunk {i + 1} now spans characters {chunks[i].start:,}–{chunks[i].end:,}."
    left, right = chunks[i], chunks[i + 1]
    return (f"{said}. Chunk {i + 1} now ends at character {left.end:,} and chunk {i + 2} starts "
            f"at {right.start:,}.")


def _undo(column: EditedColumn) -> None:
    stored = st.session_state[EDITS].get(column.key, [])
    if stored:
        stored.pop()
        st.session_state[MESSAGE] = ("success", "Undone.")


def _reset(column: EditedColumn) -> None:
    st.session_state[EDITS].pop(column.key, None)
    st.session_state[MESSAGE] = ("success", "Back to the configuration's own chunks.")


def _save(column: EditedColumn) -> None:
    if column.config is None:
        st.session_state[MESSAGE] = ("error", "Make an edit first; there is nothing to save.")
        return
    try:
        saved = save_edited(st.session_state.get("cmp_edit_name", ""), column.config)
    except ChunkLabError as err:
        st.session_state[MESSAGE] = ("error", str(err))
        return
    st.session_state[MESSAGE] = (
        "success", f"Saved “{saved.name}”: it can be compared, stored as a chunk set and "
        "evaluated like any other configuration.")


def _preview(text: str, at: int) -> str:
    left = text[max(0, at - CONTEXT) : at].replace("\n", "⏎")
    right = text[at : at + CONTEXT].replace("\n", "⏎")
    return f"…{left} ▌ {right}…"


INPUTS = ("cmp_edit_slot", "cmp_edit_chunk", "cmp_edit_pos", "cmp_edit_name")


def set_aside_inputs() -> None:
    """The closed panel's inputs wait for it to open again (:func:`ui.persist.set_aside`)."""
    for key in INPUTS:
        set_aside(key)


def edit_panel(document: Document, columns: Sequence[EditedColumn]) -> None:
    """Pick a column and a chunk, a position in it, and edit; the list of edits, undo, save."""
    usable = [i for i, c in enumerate(columns) if c.base]
    if not usable:
        st.info("No chunks to edit yet.")
        return
    slot = st.selectbox("Configuration to edit", usable, key="cmp_edit_slot",
                        format_func=lambda i: f"{i + 1}. {columns[i].label}")
    column = columns[slot]
    if column.base_strategy == EDITED:
        source = column.base_settings.get("source") or "its source configuration"
        st.info(md_escape(f"This configuration already holds hand edits; to change them, edit "
                          f"“{source}” and save it again."))
        return
    chunks = column.chunks
    if not 1 <= st.session_state.get("cmp_edit_chunk", 1) <= len(chunks):
        st.session_state["cmp_edit_chunk"] = 1
    left, right = st.columns(2)
    k = int(left.number_input("Chunk", min_value=1, max_value=len(chunks), step=1,
                              key="cmp_edit_chunk"))
    chunk = chunks[k - 1]
    following = chunks[k] if k < len(chunks) else None
    reach = (following.end if following else chunk.end) - chunk.start - 1
    picked_for = [column.key, len(column.edits)]
    if st.session_state.get(POSITION_FOR, picked_for) != picked_for:  # an edit was made
        forget("cmp_edit_pos")  # a position picked for the chunks before it: start afresh
    st.session_state[POSITION_FOR] = picked_for
    if not 1 <= st.session_state.get("cmp_edit_pos", 0) <= max(1, reach):  # default: middle
        st.session_state["cmp_edit_pos"] = max(1, min(reach, (chunk.end - chunk.start) // 2))
    position = int(right.number_input(
        "Position (characters from the chunk's start)", min_value=1, max_value=max(1, reach),
        step=1, key="cmp_edit_pos",
        help="Inside a word, the position moves to the nearer edge of the word."))
    at = chunk.start + position
    st.code(_preview(document.text, at), language=None, wrap_lines=True)
    row = st.container(horizontal=True)
    past_end = at >= chunk.end
    why_not_split = (f"The position is past chunk {k}'s end (character {chunk.end:,}, "
                     f"position {chunk.end - chunk.start:,}): a split falls inside the chunk. "
                     "Move the chunk's end there instead, or pick a smaller position.")
    last = f"Chunk {k} is the last one: there is no next chunk."
    row.button("Split here", key="cmpb_split", icon=":material/content_cut:",
               disabled=past_end, on_click=_add, help=why_not_split if past_end else None,
               args=(column, document, Split(index=k - 1, at=at)))
    row.button("Move the chunk's end here", key="cmpb_move", icon=":material/swap_horiz:",
               disabled=following is None, on_click=_add,
               help=last if following is None else None,
               args=(column, document, MoveBoundary(index=k - 1, at=at)))
    row.button("Merge with the next chunk", key="cmpb_merge", icon=":material/merge:",
               disabled=following is None, on_click=_add,
               help=last if following is None else None,
               args=(column, document, Merge(index=k - 1)))
    row.button("Undo", key="cmpb_undo", icon=":material/undo:", disabled=not column.edits,
               on_click=_undo, args=(column,))
    row.button("Reset", key="cmpb_reset", icon=":material/restart_alt:",
               disabled=not column.edits, on_click=_reset, args=(column,))
    if past_end or following is None:
        st.caption(md_escape(why_not_split if past_end else last))
    if message := st.session_state.pop(MESSAGE, None):
        (st.error if message[0] == "error" else st.success)(md_escape(message[1]))
    for n, edit in enumerate(column.edits, 1):
        st.caption(md_escape(f"{n}. {edit.describe()}"))
    if column.edits:
        name_col, save_col = st.columns([3, 1], vertical_alignment="bottom")
        name_col.text_input("Save as configuration named", key="cmp_edit_name")
        save_col.button("Save configuration", key="cmpb_edit_save", on_click=_save,
                        args=(column,))

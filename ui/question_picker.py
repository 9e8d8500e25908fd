"""The question set picker of the pages that score configurations (Evaluate, Tune): the shipped
sets (all, or one), the user's saved sets, or an uploaded CSV about the library's documents."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core.operations.questions.sets import (
    LoadedSet,
    load_saved,
    load_shipped,
    load_uploaded,
    saved_sets,
    shipped_sets,
)
from ui.persist import kept
from ui.resources import library

ALL_SAMPLES = "All sample sets"
UPLOAD = "Upload a CSV…"
SAVED_PREFIX = "saved: "


def pick_question_set(key: str, on_change: Callable[[], None] | None = None
                      ) -> LoadedSet | None:
    """The chosen set, validated, with its documents; None until an upload is given. Widget
    keys: ``{key}_set`` (kept across page switches and restarts; at first the user's saved set,
    if any) and ``{key}_upload``; raises ChunkLabError for a set that cannot load."""
    shipped = shipped_sets()
    options = (([ALL_SAMPLES] if shipped else []) + [p.stem for p in shipped]
               + [SAVED_PREFIX + name for name in saved_sets()] + [UPLOAD])
    saved = [o for o in options if o.startswith(SAVED_PREFIX)]  # the user's, else the samples'
    choice = st.selectbox("Question set", options,
                          key=kept(f"{key}_set", (saved or options)[0], durable=True,
                                   valid=options),
                          on_change=on_change, help="Make your own on the Question sets page.")
    if choice == UPLOAD:
        upload = st.file_uploader(
            "Question set CSV (question, references, corpus_id[, kind]); corpus_id names a "
            "document of the library", type=["csv"], key=f"{key}_upload", on_change=on_change)
        return load_uploaded(upload.getvalue(), upload.name, library()) if upload else None
    if choice.startswith(SAVED_PREFIX):
        return load_saved(choice.removeprefix(SAVED_PREFIX), library())
    paths = shipped if choice == ALL_SAMPLES else [p for p in shipped if p.stem == choice]
    return load_shipped(paths, choice, library())

"""A long operation on a page: behind a progress bar (with its time-left estimate) and a Cancel
button. A click on Cancel reruns the page, which stops the run; ``running`` stays set in the
session only while it runs, so the next run of the page can tell it was cancelled."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from core.errors import ChunkLabError
from core.progress import Progress, ProgressFn
from ui.render import md_escape
from ui.state import show_error

T = TypeVar("T")


def run_with_progress(running: str, cancel_key: str, work: Callable[[ProgressFn], T]) -> T | None:
    """``work(progress)``'s result; None (its sentence shown) when it fails."""
    st.session_state[running] = True
    bar = st.progress(0.0, text="Starting…")
    st.button("Cancel", key=cancel_key, icon=":material/stop:")

    def advance(progress: Progress) -> None:
        bar.progress(progress.fraction, text=md_escape(progress.caption()))

    try:
        return work(advance)
    except ChunkLabError as err:
        show_error(err)
        return None
    finally:
        st.session_state.pop(running, None)
        bar.empty()


def say_if_cancelled(running: str, kept: str) -> None:
    """After a Cancel (``running`` still set from the run it stopped): what was kept, and that
    Resume goes on from it."""
    if st.session_state.pop(running, None):
        st.info(f"Cancelled: {md_escape(kept)}; **Resume** goes on from them.",
                icon=":material/stop:")

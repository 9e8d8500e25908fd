"""Tune: search chunking, ranking and retrieval settings for the best configuration on a question
set; see quality against cost, the recommendation with its evidence, and save it as a preset.
The result and the inputs stay for the session; a cancelled or interrupted tune is resumed."""

from __future__ import annotations

import streamlit as st

from core.errors import ChunkLabError
from core.operations.question_sets import LoadedSet
from core.operations.tune import DEFAULT_TRIALS, HELD_BACK_SHARE, tune
from core.operations.tune_report import OBJECTIVE_NAMES, OBJECTIVES
from core.progress import Progress
from ui.persist import kept
from ui.question_picker import pick_question_set
from ui.render import md_escape
from ui.resources import chunk_store, embedding_settings
from ui.state import show_error
from ui.tune_view import show_front, show_recommendation

RESULT = "tune_result"  # {"result": TuneResult, "documents": {...}, "set": name}
RUNNING = "_tune_running"  # set while a run is under way: a rerun without it was cancelled
DEFAULT_CAP = 1000


def _inputs() -> tuple[int, str, int | None, float]:
    left, middle, right = st.columns(3)
    trials = left.number_input("Trials", 1, 200, key=kept("tune_trials", DEFAULT_TRIALS),
                               help="Configurations to try, one after another; the first "
                               "ones are the built-in presets.")
    objective = middle.radio("Maximise", OBJECTIVES, horizontal=True,
                             key=kept("tune_objective", "recall"),
                             format_func=OBJECTIVE_NAMES.__getitem__,
                             help="Balanced: per question the harmonic mean of recall and IoU.")
    held = right.number_input("Held back", 0.1, 0.5, step=0.05,
                              key=kept("tune_held_back", HELD_BACK_SHARE),
                              help="Share of each document's questions kept out of the search "
                              "and used to report the recommendation.")
    capped = st.checkbox("Keep within a token budget", key=kept("tune_capped", False),
                         help="The recommendation retrieves at most this many tokens per "
                         "question on average.")
    cap = st.number_input("Tokens per question", 50, 32_000, step=100,
                          key=kept("tune_cap", DEFAULT_CAP), disabled=not capped)
    return int(trials), str(objective), int(cap) if capped else None, float(held)


def _run(loaded: LoadedSet, trials: int, objective: str, cap: int | None, held: float,
         resume: bool) -> None:
    """Run the tune behind a progress bar and a Cancel button (a click reruns the page, which
    stops the run; the finished trials stay for Resume)."""
    st.session_state[RUNNING] = True
    bar = st.progress(0.0, text="Starting…")
    st.button("Cancel", key="tune_cancel", icon=":material/stop:")

    def advance(progress: Progress) -> None:
        bar.progress(progress.fraction, text=md_escape(progress.caption()))

    try:
        result = tune(loaded.questions, loaded.documents, trials=trials, objective=objective,
                      cap=cap, resume=resume, held_back_share=held, progress=advance,
                      store=chunk_store(), embedding=embedding_settings())
    except ChunkLabError as err:
        show_error(err)
        return
    finally:
        st.session_state.pop(RUNNING, None)
        bar.empty()
    st.session_state[RESULT] = {"result": result, "documents": loaded.documents,
                                "set": loaded.questions.name}
    st.rerun()


st.title("Tune")
st.caption("Search chunking (strategy, size, overlap, unit, tables), ranking, small-to-big "
           "merging, the embedder (MiniLM, and your endpoint when one is set) and how much "
           "each question retrieves (top k, a token budget or autocut) for the best "
           "configuration on a "
           "question set. Every trial is scored on part of the questions and kept in the run "
           "history; the recommendation is reported on the questions held back.")
if st.session_state.pop(RUNNING, None):
    st.info("Cancelled: the finished trials are kept; **Resume** goes on from them.",
            icon=":material/stop:")

try:
    loaded = pick_question_set("tune")
except ChunkLabError as err:
    show_error(err)
    loaded = None
if loaded:
    question_set = loaded.questions
    st.caption(f"{len(question_set.questions)} valid questions over "
               f"{len(question_set.corpus_ids)} document(s) · version {question_set.version}")
    trials, objective, cap, held = _inputs()
    left, right = st.columns(2)
    start = left.button("Run tune", type="primary", key="tune_run",
                        icon=":material/tune:")
    resume = right.button("Resume", key="tune_resume", icon=":material/play_arrow:",
                          help="Go on with the stored tune of this set and these settings, up "
                          "to the number of trials in all.")
    if start or resume:
        _run(loaded, trials, objective, cap, held, resume=bool(resume))

state = st.session_state.get(RESULT)
if state:
    st.divider()
    st.caption(md_escape(f"Result for “{state['set']}”."))
    show_recommendation(state["result"])
    show_front(state["result"], state["documents"])

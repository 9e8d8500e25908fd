"""Tune: search chunking, ranking and retrieval settings for the best configuration on a question
set within a token budget; see quality against cost, the recommendation with its evidence, and
save it as a preset. The inputs stay across reloads, and so does the last result for them (read
back from the stored tune); a cancelled or interrupted tune is resumed; several workers may add
trials to one shared study."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from core.errors import ChunkLabError
from core.operations.assemble.budget import TokenBudget, default_budget, given_budget
from core.operations.questions.sets import LoadedSet
from core.operations.report.tune import tune_report
from core.operations.tune.report import OBJECTIVE_NAMES, OBJECTIVES
from core.operations.tune.run import (
    DEFAULT_TRIALS,
    HELD_BACK_SHARE,
    TuneResult,
    space_lines,
    stored_result,
    too_few,
    tune,
)
from core.progress import Progress
from ui.front_matter import include_front_matter
from ui.persist import kept
from ui.question_picker import pick_question_set
from ui.render import md_escape
from ui.resources import chunk_store, embedding_settings
from ui.state import show_error
from ui.tune_view import show_front, show_recommendation, show_strategies
from ui.wording import count

RESULT = "tune_result"  # {"result": TuneResult, "documents": {...}, "set": name}
RUNNING = "_tune_running"  # set while a run is under way: a rerun without it was cancelled
LOOKED_UP = "_tune_looked_up"  # the inputs whose stored result was last looked for


@dataclass(frozen=True)
class Inputs:
    trials: int
    objective: str
    budget: TokenBudget
    min_recall: float | None
    held: float
    storage: str | None
    study: str | None
    front_matter: bool


def _inputs() -> Inputs:
    left, middle, right = st.columns(3)
    trials = left.number_input("Trials", 1, 200, key=kept("tune_trials", DEFAULT_TRIALS,
                                                          durable=True),
                               help="Configurations to try, one after another; the first "
                               "ones are the built-in presets.")
    objective = middle.radio("Maximise", OBJECTIVES, horizontal=True,
                             key=kept("tune_objective", "recall", durable=True),
                             format_func=OBJECTIVE_NAMES.__getitem__,
                             help="Balanced: per question the harmonic mean of recall and IoU.")
    held = right.number_input("Held back", 0.1, 0.5, step=0.05,
                              key=kept("tune_held_back", HELD_BACK_SHARE, durable=True),
                              help="Share of each document's questions kept out of the search "
                              "and used to report the recommendation.")
    model = default_budget()
    left, middle, right = st.columns(3)
    capped = left.checkbox("Keep within a token budget", key=kept("tune_capped", True,
                                                                  durable=True),
                           help="The recommendation retrieves at most this many tokens per "
                           "question on average: by default what your answer model takes.")
    cap = middle.number_input("Tokens per question", 50, 32_000, step=100,
                              key=kept("tune_cap", model.tokens, durable=True),
                              disabled=not capped)
    floor = right.number_input("Recall at least", 0.0, 1.0, step=0.05,
                               key=kept("tune_min_recall", 0.0, durable=True),
                               help="Recommend among configurations whose recall on the search "
                               "questions reaches this (0: no floor); with IoU maximised, the "
                               "sharpest that still finds the references.")
    front_matter = include_front_matter("tune_front_matter")
    budget = given_budget(None) if not capped else model if cap == model.tokens \
        else given_budget(int(cap))
    st.caption(md_escape(f"Budget: {budget.source}." + (
        f" Your answer model takes {model.tokens:,}." if budget is not model and model.tokens
        else "")))
    with st.expander("Share the search with other workers"):
        storage = st.text_input("Study storage", key=kept("tune_storage", ""),
                                placeholder="sqlite:///tune.db or postgresql://user@host/db",
                                help="An Optuna storage URL every worker can reach.")
        study = st.text_input("Study name", key=kept("tune_study", "", durable=True),
                              help="Every worker (this page, `python -m core tune --storage URL "
                              "--study NAME`) that names the same study adds its trials; the "
                              "recommendation is drawn from all of them.")
    shared = bool(storage.strip() and study.strip())
    return Inputs(int(trials), str(objective), budget, float(floor) or None, float(held),
                  storage.strip() if shared else None, study.strip() if shared else None,
                  bool(front_matter))


def _run(loaded: LoadedSet, inputs: Inputs, resume: bool) -> None:
    """Run the tune behind a progress bar and a Cancel button (a click reruns the page, which
    stops the run; the finished trials stay for Resume)."""
    st.session_state[RUNNING] = True
    bar = st.progress(0.0, text="Starting…")
    cancel = st.empty()
    cancel.button("Cancel", key="tune_cancel", icon=":material/stop:")

    def advance(progress: Progress) -> None:
        bar.progress(progress.fraction, text=md_escape(progress.caption()))

    try:
        result = tune(loaded.questions, loaded.documents, trials=inputs.trials, resume=resume,
                      progress=advance, store=chunk_store(), embedding=embedding_settings(),
                      objective=inputs.objective, budget=inputs.budget,
                      min_recall=inputs.min_recall, held_back_share=inputs.held,
                      storage=inputs.storage, study=inputs.study,
                      include_front_matter=inputs.front_matter)
    except ChunkLabError as err:
        show_error(err)
        return
    finally:
        st.session_state.pop(RUNNING, None)
        bar.empty()
        cancel.empty()
    _keep(result, loaded)
    st.rerun()


def _keep(result: TuneResult, loaded: LoadedSet, note: str = "") -> None:
    st.session_state[RESULT] = {"result": result, "documents": loaded.documents,
                                "set": loaded.questions.name, "note": note}


def _stored(loaded: LoadedSet, inputs: Inputs, note: str) -> bool:
    """Show the stored tune of these inputs (a shared study: every worker's trials so far)."""
    try:
        result = stored_result(loaded.questions, loaded.documents, store=chunk_store(),
                               embedding=embedding_settings(), objective=inputs.objective,
                               budget=inputs.budget, min_recall=inputs.min_recall,
                               held_back_share=inputs.held, storage=inputs.storage,
                               study=inputs.study, include_front_matter=inputs.front_matter)
    except ChunkLabError as err:
        show_error(err)
        return False
    if result is not None:
        _keep(result, loaded, note)
    return result is not None


st.title("Tune")
st.caption("Search chunking (strategy, size, overlap, unit, tables), ranking, small-to-big "
           "merging, the embedder (MiniLM, and your endpoint when one is set) and how much "
           "each question retrieves (top k, a token budget, or autocut with a floor) for the "
           "configuration that serves a question set best within a token budget. Every trial "
           "is scored on part of the questions and kept in the run history; the "
           "recommendation is reported on the questions held back.")
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
    problem = too_few(question_set)
    st.caption(f"{count(len(question_set.questions), 'valid question')} over "
               f"{count(len(question_set.corpus_ids), 'document')} · "
               f"version {md_escape(question_set.version)}")
    inputs = _inputs()
    with st.expander("What Tune tries"):
        st.caption("A line a dimension: its values, and when it is drawn.")
        st.markdown("\n".join(f"- {md_escape(line)}" for line in space_lines(
            inputs.budget, embedding=embedding_settings())))
    if problem:
        st.warning(md_escape(problem) + " Add questions on the Question sets page.",
                   icon=":material/block:")
    left, middle, right = st.columns(3)
    start = left.button("Run tune", type="primary", key="tune_run", icon=":material/tune:",
                        disabled=bool(problem))
    resume = middle.button("Resume", key="tune_resume", icon=":material/play_arrow:",
                           disabled=bool(problem),
                           help="Go on with the stored tune of this set and these settings, up "
                           "to the number of trials in all.")
    refresh = right.button("Show the study's trials", key="tune_refresh",
                           icon=":material/refresh:", disabled=bool(problem) or not inputs.study,
                           help="Every trial the workers of the shared study finished so far.")
    looked_for = (question_set.name, question_set.version, repr(inputs))
    if start or resume:
        _run(loaded, inputs, resume=bool(resume))
    elif refresh:
        if not _stored(loaded, inputs, "The shared study's trials so far."):
            st.info("No trial of this study has finished yet.")
    elif not problem and RESULT not in st.session_state \
            and st.session_state.get(LOOKED_UP) != looked_for:
        st.session_state[LOOKED_UP] = looked_for  # a reload: the last result for these inputs
        _stored(loaded, inputs, "The last tune of these inputs, read back from its study.")

state = st.session_state.get(RESULT)
if state:
    st.divider()
    st.caption(md_escape(f"Result for “{state['set']}”. {state.get('note', '')}"))
    show_recommendation(state["result"])
    show_strategies(state["result"])
    st.download_button(
        "Download report", lambda: tune_report(state["result"]), key="tune_report",
        file_name=f"tune-{state['set']}.html", mime="text/html", icon=":material/download:",
        help="One HTML file that opens in any browser without a network: the recommendation, "
             "the Pareto front with the knee and every trial.")
    show_front(state["result"], state["documents"])

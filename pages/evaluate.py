"""Evaluate: score 2–4 chunkings on a question set at top-k and/or an equal token budget, with
intervals, a significance verdict for B against A, and a drill-down into each question."""

from __future__ import annotations

import json
from dataclasses import replace

import streamlit as st

from core.embeddings.settings import choices
from core.errors import ChunkLabError
from core.operations.evaluation import DEFAULT_K, Candidate, Evaluation, Retrieval
from core.operations.evaluation.confidence import best_configuration, with_prefix_twins
from core.operations.evaluation.history import last_runs
from core.operations.evaluation.report import results_csv
from core.operations.evaluation.stacks import RERANK_MODES, RerankMode, expand
from core.operations.evaluation.sweep import evaluate_each
from core.operations.presets import all_presets, set_candidate
from core.operations.questions.sets import LoadedSet
from core.operations.report import ReportInputs, evaluation_report
from core.retrieval.modes import DEFAULT_JUMPS, RANK_MODES
from ui.best_view import show_best
from ui.evaluation_view import (
    drill_down,
    reset_question_picker,
    show_chunk_map,
    show_comparison,
    show_configurations,
    show_contextual,
    show_history,
    show_integrity,
    show_last_runs,
    show_metrics,
    show_table_rule,
)
from ui.front_matter import include_front_matter
from ui.persist import keep_offered, kept
from ui.question_picker import pick_question_set
from ui.render import md_escape
from ui.resources import chunk_store, embedding_settings, rerank_settings
from ui.settings_form import configuration_editor
from ui.state import show_error
from ui.wording import count

RESULTS = "evaluate_results"
CUSTOM = "evaluate_custom_configs"
SET_PREFIX = "chunk set: "
TOP_K, AUTOCUT, BUDGET, BOTH = "top-k", "autocut", "token budget", "both"
DEFAULT_CONFIGS = ("fixed 1000 chars", "recursive 500/50")
DEFAULT_BUDGET = 1000


def _custom_config_form() -> None:
    with st.expander("Add a custom configuration"):
        config = configuration_editor("eval_custom", all_presets(), "recursive 500/50",
                                      label="Start from")
        name = st.text_input("Label", value=config.label, key="eval_custom_label")
        if st.button("Add", key="eval_custom_add"):
            label = name.strip() or config.label
            st.session_state.setdefault(CUSTOM, {})[label] = replace(config.candidate(),
                                                                      label=label)


def _stored_sets() -> dict[str, tuple[Candidate, str]]:
    """A candidate per chunk set, retrieving the way the preset it was built with does, and how
    it is listed: ``chunk set: name (9 of 14 documents)`` when some of its documents failed."""
    try:
        infos = chunk_store().list_sets()
    except ChunkLabError:
        return {}
    return {SET_PREFIX + info.name: (
        set_candidate(SET_PREFIX + info.name, info),
        SET_PREFIX + info.name + (f" ({info.documents_text()})" if info.failed else ""))
        for info in infos}


def _pick_candidates() -> list[Candidate]:
    presets = {name: p.candidate() for name, p in all_presets().items()}
    custom: dict[str, Candidate] = st.session_state.get(CUSTOM, {})
    sets = _stored_sets()
    by_name = {**presets, **{n: c for n, c in custom.items() if n not in presets},
               **{n: candidate for n, (candidate, _) in sets.items()}}
    options = list(by_name)
    key = kept("evaluate_configs", [n for n in DEFAULT_CONFIGS if n in options], durable=True)
    keep_offered(key, options, most=4)
    chosen = st.multiselect("Configurations (2–4)", options, max_selections=4, key=key,
                            format_func=lambda option: sets[option][1] if option in sets
                            else option)
    _custom_config_form()
    return [by_name[name] for name in chosen]


def _stack(candidates: list[Candidate]) -> list[Candidate]:
    """The chosen chunkings under the chosen embedders, reranked as chosen."""
    refs = {ref.label: ref for ref in choices(embedding_settings())}
    rerank = rerank_settings()
    left, right = st.columns(2)
    key = kept("evaluate_embedders", [next(iter(refs))], durable=True)
    keep_offered(key, refs)
    chosen = left.multiselect(
        "Embedders", list(refs), key=key,
        help="Each configuration is evaluated under each embedder, so the same chunking under "
             "two embedders is compared like two configurations. Set your own on Settings "
             "(Embeddings); a chunk set, or a preset saved with its embedder, keeps its own.")
    mode: RerankMode = right.radio(
        "Rerank the best hits", RERANK_MODES, horizontal=True,
        key=kept("evaluate_rerank", "off", durable=True, valid=RERANK_MODES),
        disabled=not rerank.configured,
        format_func={"off": "off", "on": "on", "both": "with and without"}.get,
        help=(md_escape(f"Reorder the top {rerank.top_n} hits with {rerank.ref().label} before "
                        "the cut.") if rerank.configured
              else "Set a reranking endpoint on Settings first."))
    embedders = [refs[label] for label in chosen if label in refs] or [next(iter(refs.values()))]
    return expand(candidates, embedders, rerank.ref() if rerank.configured else None,
                  mode if rerank.configured else "off")


def _run(loaded: LoadedSet, candidates: list[Candidate], ranking: str,
         retrievals: list[Retrieval], inputs: dict[str, object]) -> None:
    bar = st.progress(0.0, text="Starting…")
    try:
        runs = evaluate_each(
            loaded.questions, loaded.documents, candidates, retrievals, ranking=ranking,
            store=chunk_store(), embedding=embedding_settings(), reranking=rerank_settings(),
            progress=lambda p: bar.progress(p.fraction, text=md_escape(p.caption())))
    finally:
        bar.empty()
    groups: dict[str, Evaluation] = {run.evaluation.retrieval: run.evaluation for run in runs}
    reset_question_picker()
    st.session_state[RESULTS] = {"groups": groups, "documents": loaded.documents,
                                 "set": loaded.questions.name, "inputs": inputs}


def _retrieval_options(candidates: list[Candidate]) -> tuple[str, list[Retrieval]]:
    left, middle, right, last, jumps_column = st.columns([3, 4, 2, 2, 2])
    ranking = left.radio("Ranking", RANK_MODES, horizontal=True,
                         key=kept("evaluate_rank", RANK_MODES[0], durable=True),
                         help="For every configuration without a ranking of its own.")
    mode = middle.radio("Retrieve", (TOP_K, AUTOCUT, BUDGET, BOTH), horizontal=True,
                        key=kept("evaluate_retrieval", TOP_K, durable=True),
                        help="A token budget gives every chunking the same amount of text: "
                        "ranked chunks until the budget is used, the last one cut to fit. "
                        "Autocut keeps the top k only up to the first large drop in their "
                        "scores (k is then the most; it was measured with k = 10). Both: "
                        "top-k and the token budget. A preset saved from a tune keeps how "
                        "much it retrieves.")
    k = right.number_input("k (chunks per question)", 1, 50,
                           key=kept("evaluate_k", DEFAULT_K, durable=True))
    budget = last.number_input("Token budget", 50, 32_000, step=100,
                               key=kept("evaluate_budget", DEFAULT_BUDGET, durable=True))
    jumps = jumps_column.number_input(
        "Autocut jumps", 1, 5, key=kept("evaluate_autocut", DEFAULT_JUMPS, durable=True),
        help="Cut at the first large drop in score (1), or let that many drops pass first.")
    own = [f"{c.label} ranks {c.ranks_with(ranking)}" for c in candidates
           if c.ranks_with(ranking) != ranking]
    own += [f"{c.label} retrieves {c.retrieval.label}" for c in candidates if c.retrieval]
    own += [f"{c.label} embeds with {c.embedder.label}" for c in candidates if c.own_embedder]
    if own:
        st.caption(md_escape("Its own way to retrieve: " + "; ".join(own) + "."))
    top_k, by_budget = Retrieval(int(k)), Retrieval(int(k), budget=int(budget))
    retrievals = {TOP_K: [top_k], AUTOCUT: [Retrieval(int(k), autocut=int(jumps))],
                  BUDGET: [by_budget], BOTH: [top_k, by_budget]}[mode]
    return ranking, retrievals


def _computed_for(inputs: dict[str, object]) -> str:
    """The inputs results were computed for, when they are not those above them."""
    shown = {k: "yes" if v is True else "no" if v is False else v
             for k, v in inputs.items() if k != "version"}
    return ("These results were computed for other inputs than those above"
            + (": " + "; ".join(f"{k}: {v}" for k, v in shown.items()) if shown else "")
            + ". Run the evaluation again for the inputs above.")


st.title("Evaluate")
st.caption("Recall, precision, IoU and precision Ω on character ranges (Chroma's chunking "
           "evaluation), hit rate and MRR, each with a 95 % interval; each question retrieves "
           "from its own document, and from any other that one of its alternatives lies in.")

inputs: dict[str, object] = {}  # what the results below must have been computed for
try:
    loaded = pick_question_set("evaluate", on_change=reset_question_picker)
except ChunkLabError as err:
    show_error(err)
    loaded = None
if loaded:
    question_set = loaded.questions
    n_docs = len(question_set.corpus_ids)
    st.caption(f"{count(len(question_set.questions), 'valid question')} over "
               f"{count(n_docs, 'document')} · version {question_set.version}")
    if question_set.problems:
        with st.expander(f"{len(question_set.problems)} rows skipped", icon=":material/warning:"):
            st.text("\n".join(str(p) for p in question_set.problems))
    try:
        candidates = _pick_candidates()
    except ChunkLabError as err:
        show_error(err)
        candidates = []
    candidates = _stack(candidates)
    if len(candidates) > 4:
        st.info(md_escape(f"{len(candidates)} configurations with these embedders and "
                          "reranking: pick at most 4."))
    ranking, retrievals = _retrieval_options(candidates)
    contextual = st.checkbox(
        "Also evaluate each LLM configuration and chunk set without its contextual prefixes",
        key=kept("evaluate_contextual", False, durable=True),
        help="Contextual retrieval: the same chunks embedded with and without the sentence the "
        "LLM writes to situate each chunk; the delta is shown.")
    front_matter = include_front_matter("evaluate_front_matter")
    retrievals = [replace(r, include_front_matter=front_matter) for r in retrievals]
    inputs = {"Question set": question_set.name, "version": question_set.version,
              "Configurations": ", ".join(c.label for c in candidates), "Ranking": ranking,
              "Retrieve": " and ".join(r.label for r in retrievals),
              "Without prefixes too": contextual, "Front matter included": front_matter}
    if st.button("Run evaluation", type="primary", key="evaluate_run",
                 disabled=not 2 <= len(candidates) <= 4):
        try:
            _run(loaded, with_prefix_twins(candidates) if contextual else candidates, ranking,
                 retrievals, inputs)
        except ChunkLabError as err:
            show_error(err)
    if RESULTS not in st.session_state and (kept_runs := last_runs(
            question_set, [c.label for c in (with_prefix_twins(candidates) if contextual
                                             else candidates)],
            ranking, [r.label for r in retrievals])):
        show_last_runs(kept_runs)

state = st.session_state.get(RESULTS)
if state:
    if not loaded or state.get("inputs") != inputs:
        st.info(md_escape(_computed_for(state.get("inputs", {}))),
                icon=":material/history:")
    groups: dict[str, Evaluation] = state["groups"]
    shown = next(iter(groups))
    if len(groups) > 1:
        shown = st.radio("Results for", list(groups), horizontal=True, key="evaluate_view")
    evaluation = groups[shown]
    results = evaluation.results
    if results:
        show_metrics(results)
        show_best(best_configuration(results), "evaluate_best")
    show_configurations(evaluation)
    set_apart = [f"{r.candidate.label}: {r.set_apart.sentence()}" for r in results
                 if r.set_apart.chunks]
    if set_apart:
        st.caption(md_escape("Left out of retrieval (tick “Include front matter” to retrieve "
                             "them): " + "; ".join(set_apart) + "."))
    if results:
        show_integrity(results)
        show_comparison(results)
        show_contextual(results)
        show_table_rule(results)
    left, middle, right = st.columns(3)
    left.download_button("Export results (CSV)", results_csv(results, evaluation.failures),
                         file_name=f"evaluation-{state['set']}.csv", mime="text/csv")
    right.download_button(
        "Export results (JSON)",
        json.dumps([o.to_json() for o in evaluation.outcomes], ensure_ascii=False).encode(),
        file_name=f"evaluation-{state['set']}.json", mime="application/json")
    shown_inputs = state.get("inputs", {})
    report_inputs = ReportInputs(
        state["set"], str(shown_inputs.get("version", "")), state["documents"],
        (("Ranking", str(shown_inputs.get("Ranking", evaluation.ranking))), ("Retrieve", shown)))
    middle.download_button(
        "Download report", lambda: evaluation_report(evaluation, report_inputs),
        file_name=f"evaluation-{state['set']}.html", mime="text/html", key="evaluate_report",
        icon=":material/download:",
        help="One HTML file that opens in any browser without a network: the inputs, the "
             "metrics with their intervals, the verdict, the charts and every question with "
             "its retrieved chunks.")
    if results:
        drill_down(results, state["documents"])
        show_chunk_map(results, state["documents"])
show_history()

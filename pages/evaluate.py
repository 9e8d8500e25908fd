"""Evaluate: score 2–4 chunkings on a question set at top-k and/or an equal token budget, with
intervals, a significance verdict for B against A, and a drill-down into each question."""

from __future__ import annotations

import json

import streamlit as st

from core.errors import ChunkLabError
from core.operations.evaluation import DEFAULT_K, Candidate, CandidateResult, evaluate
from core.operations.evaluation_report import results_csv
from core.operations.evaluation_runs import record_run
from core.operations.evaluation_stats import with_prefix_twins
from core.operations.presets import all_presets
from core.operations.question_sets import LoadedSet
from core.operations.stacks import RERANK_MODES, RerankMode, embedder_choices, expand
from core.retrieval.ranking import RANK_MODES
from ui.evaluation_view import (
    drill_down,
    reset_question_picker,
    show_comparison,
    show_contextual,
    show_history,
    show_integrity,
    show_metrics,
    show_table_rule,
)
from ui.persist import kept
from ui.question_picker import pick_question_set
from ui.render import md_escape
from ui.resources import chunk_store, embedding_settings, rerank_settings
from ui.settings_form import configuration_editor
from ui.state import show_error

RESULTS = "evaluate_results"
CUSTOM = "evaluate_custom_configs"
SET_PREFIX = "chunk set: "
TOP_K, BUDGET, BOTH = "top-k", "token budget", "both"
DEFAULT_BUDGET = 1000


def _custom_config_form() -> None:
    with st.expander("Add a custom configuration"):
        config = configuration_editor("eval_custom", all_presets(), "recursive 500/50",
                                      label="Start from")
        name = st.text_input("Label", value=config.label, key="eval_custom_label")
        if st.button("Add", key="eval_custom_add"):
            label = name.strip() or config.label
            st.session_state.setdefault(CUSTOM, {})[label] = Candidate(
                label=label, strategy=config.strategy, settings=config.settings)


def _stored_sets() -> dict[str, str]:
    """Each chunk set's name and how it is listed: ``name (9 of 14 documents)`` when some of
    its documents failed."""
    try:
        return {info.name: info.name + (f" ({info.documents_text()})" if info.failed else "")
                for info in chunk_store().list_sets()}
    except ChunkLabError:
        return {}


def _pick_candidates() -> list[Candidate]:
    presets = all_presets()
    custom: dict[str, Candidate] = st.session_state.get(CUSTOM, {})
    sets = {SET_PREFIX + name: SET_PREFIX + shown for name, shown in _stored_sets().items()}
    options = list(presets) + list(custom) + list(sets)
    defaults = [name for name in ("fixed 1000 chars", "recursive 500/50") if name in options]
    chosen = st.multiselect("Configurations (2–4)", options, default=defaults,
                            max_selections=4, key="evaluate_configs",
                            format_func=lambda option: sets.get(option, option))
    _custom_config_form()
    candidates = []
    for name in chosen:
        if name in presets:
            candidates.append(presets[name].candidate())
        elif name in custom:
            candidates.append(custom[name])
        else:
            candidates.append(Candidate(label=name, chunk_set=name.removeprefix(SET_PREFIX)))
    return candidates


def _stack(candidates: list[Candidate]) -> list[Candidate]:
    """The chosen chunkings under the chosen embedders, reranked as chosen."""
    refs = {ref.label: ref for ref in embedder_choices(embedding_settings())}
    rerank = rerank_settings()
    left, right = st.columns(2)
    key = kept("evaluate_embedders", [next(iter(refs))])
    st.session_state[key] = [label for label in st.session_state[key] if label in refs]
    chosen = left.multiselect(
        "Embedders", list(refs), key=key,
        help="Each configuration is evaluated under each embedder, so the same chunking under "
             "two embedders is compared like two configurations. Set your own on Settings "
             "(Embeddings); a chunk set keeps its own.")
    mode: RerankMode = right.radio(
        "Rerank the best hits", RERANK_MODES, horizontal=True, key=kept("evaluate_rerank", "off"),
        disabled=not rerank.configured,
        format_func={"off": "off", "on": "on", "both": "with and without"}.get,
        help=(md_escape(f"Reorder the top {rerank.top_n} hits with {rerank.ref().label} before "
                        "the cut.") if rerank.configured
              else "Set a reranking endpoint on Settings first."))
    embedders = [refs[label] for label in chosen if label in refs] or [next(iter(refs.values()))]
    return expand(candidates, embedders, rerank.ref() if rerank.configured else None,
                  mode if rerank.configured else "off")


def _run(loaded: LoadedSet, candidates: list[Candidate], ranking: str, k: int,
         budgets: list[int | None]) -> None:
    bar = st.progress(0.0, text="Starting…")
    groups: dict[str, list[CandidateResult]] = {}
    try:
        for n, budget in enumerate(budgets):
            results = evaluate(
                loaded.questions, loaded.documents, candidates, ranking=ranking, k=k,
                store=chunk_store(), budget=budget, embedding=embedding_settings(),
                reranking=rerank_settings(),
                progress=lambda p, n=n: bar.progress((n + p.fraction) / len(budgets),
                                                     text=md_escape(p.caption())))
            record_run(results, loaded.questions)
            groups[results[0].retrieval] = results
    finally:
        bar.empty()
    reset_question_picker()
    st.session_state[RESULTS] = {"groups": groups, "documents": loaded.documents,
                                 "set": loaded.questions.name}


def _retrieval_options() -> tuple[str, int, list[int | None]]:
    left, middle, right, last = st.columns(4)
    ranking = left.radio("Ranking", RANK_MODES, horizontal=True, key="evaluate_rank")
    mode = middle.radio("Retrieve", (TOP_K, BUDGET, BOTH), horizontal=True,
                        key="evaluate_retrieval",
                        help="A token budget gives every chunking the same amount of text: "
                        "ranked chunks until the budget is used, the last one cut to fit.")
    k = right.number_input("k (chunks per question)", 1, 50, DEFAULT_K, key="evaluate_k")
    budget = last.number_input("Token budget", 50, 32_000, DEFAULT_BUDGET, step=100,
                               key="evaluate_budget")
    budgets: list[int | None] = {TOP_K: [None], BUDGET: [int(budget)],
                                 BOTH: [None, int(budget)]}[mode]
    return ranking, int(k), budgets


st.title("Evaluate")
st.caption("Recall, precision, IoU and precision Ω on character ranges (Chroma's chunking "
           "evaluation), hit rate and MRR, each with a 95 % interval; each question retrieves "
           "from its own document.")

try:
    loaded = pick_question_set("evaluate", on_change=reset_question_picker)
except ChunkLabError as err:
    show_error(err)
    loaded = None
if loaded:
    question_set = loaded.questions
    n_docs = len(question_set.corpus_ids)
    st.caption(f"{len(question_set.questions)} valid questions over {n_docs} "
               f"document{'s' if n_docs != 1 else ''} · version {question_set.version}")
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
    ranking, k, budgets = _retrieval_options()
    contextual = st.checkbox(
        "Also evaluate each LLM configuration and chunk set without its contextual prefixes",
        key="evaluate_contextual",
        help="Contextual retrieval: the same chunks embedded with and without the sentence the "
        "LLM writes to situate each chunk; the delta is shown.")
    if st.button("Run evaluation", type="primary", key="evaluate_run",
                 disabled=not 2 <= len(candidates) <= 4):
        try:
            _run(loaded, with_prefix_twins(candidates) if contextual else candidates, ranking, k,
                 budgets)
        except ChunkLabError as err:
            show_error(err)

state = st.session_state.get(RESULTS)
if state:
    groups: dict[str, list[CandidateResult]] = state["groups"]
    shown = next(iter(groups))
    if len(groups) > 1:
        shown = st.radio("Results for", list(groups), horizontal=True, key="evaluate_view")
    results = groups[shown]
    show_metrics(results)
    show_integrity(results)
    show_comparison(results)
    show_contextual(results)
    show_table_rule(results)
    left, right = st.columns(2)
    left.download_button("Export results (CSV)", results_csv(results),
                         file_name=f"evaluation-{state['set']}.csv", mime="text/csv")
    right.download_button(
        "Export results (JSON)",
        json.dumps([r.to_json() for r in results], ensure_ascii=False).encode(),
        file_name=f"evaluation-{state['set']}.json", mime="application/json")
    drill_down(results, state["documents"])
show_history()

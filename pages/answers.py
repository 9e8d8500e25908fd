"""Answers: ask the model a whole question set under two or more prompt variants (or one prompt
over two or more configurations), grade every answer without an LLM and compare them question
by question. The last result comes back from the run history after a reload; a cancelled run
is resumed from its cached answers."""

from __future__ import annotations

import streamlit as st

from core.errors import ChunkLabError
from core.operations.answers.history import record_answer_run
from core.operations.answers.run import (
    AnswerOptions,
    Arm,
    answer_variants,
    arms_for,
    configurations,
    default_configuration,
    run_answers,
    run_estimate,
)
from core.operations.evaluation import DEFAULT_K
from core.operations.presets import all_presets
from core.operations.questions.sets import LoadedSet
from core.operations.report.answers import answers_report
from ui.answers_view import show_comparisons, show_figures, show_history, show_questions
from ui.front_matter import include_front_matter
from ui.long_run import run_live, say_if_cancelled
from ui.persist import kept
from ui.question_picker import pick_question_set
from ui.render import md_escape
from ui.resources import (
    answer_settings,
    chunk_store,
    embedding_settings,
    judge_settings,
    llm_settings,
    prompt_library,
)
from ui.state import show_error, warn_missing_key

RESULT = "answers_result"  # the run's JSON, as kept in the history
RUNNING = "_answers_running"  # set while a run is under way: a rerun without it was cancelled
PRESET, CHUNK_SET = "preset: ", "chunk set: "


def _configuration_choices() -> tuple[list[str], str]:
    """Every configuration on offer, and the one to start from."""
    store = chunk_store()
    sets = [s.name for s in store.list_sets()]
    first = default_configuration(store)
    return ([PRESET + n for n in all_presets()] + [CHUNK_SET + n for n in sets],
            (PRESET if first.kind == "preset" else CHUNK_SET) + first.name)


def _arms(variants: list[str], chosen: list[str]) -> list[Arm]:
    return arms_for(variants, configurations(
        [c.removeprefix(PRESET) for c in chosen if c.startswith(PRESET)],
        [c.removeprefix(CHUNK_SET) for c in chosen if c.startswith(CHUNK_SET)]))


def _inputs() -> tuple[list[str], list[str], AnswerOptions]:
    variants_all = answer_variants(prompt_library())
    configs, first = _configuration_choices()
    mode = st.radio("Compare", ["variants", "configurations"], horizontal=True,
                    key=kept("answers_mode", "variants", durable=True),
                    format_func={"variants": "prompt variants over one configuration",
                                 "configurations": "one prompt over configurations"}.get)
    left, right = st.columns(2)
    if mode == "variants":
        config = left.selectbox("Configuration", configs, key=kept(
            "answers_config", first, durable=True, valid=configs))
        variants = right.multiselect(
            "Prompt variants (2 or more)", variants_all,
            key=kept("answers_variants", variants_all[:2], durable=True),
            help="Variants of the RAG answer prompt, saved on the Prompts page.")
        variants = [v for v in variants if v in variants_all]
        chosen = [config]
    else:
        variant = left.selectbox("Prompt variant", variants_all, key=kept(
            "answers_variant", variants_all[0], durable=True, valid=variants_all))
        pair = [first, *[c for c in configs if c != first][:1]]
        chosen = right.multiselect("Configurations (2 or more)", configs,
                                   key=kept("answers_configs", pair, durable=True))
        chosen = [c for c in chosen if c in configs]
        variants = [variant]
    a, b, c = st.columns(3)
    k = a.number_input("Passages per question", 1, 20,
                       key=kept("answers_k", DEFAULT_K, durable=True))
    temperature = b.number_input("Temperature", 0.0, 2.0, step=0.1,
                                 key=kept("answers_temperature", 0.0, durable=True),
                                 help="The same for every variant, so a difference is the "
                                 "prompt's, not chance.")
    limit = c.number_input("Questions (0: all)", 0, 10_000,
                           key=kept("answers_limit", 0, durable=True))
    judge = st.checkbox("Also have the model judge each answer's faithfulness (1–5, with its "
                        "reason)", key=kept("answers_judge", False, durable=True),
                        help="The judge template on the Prompts page; one more request per "
                             "answer, reported apart from the grades made without an LLM. It "
                             "asks the answer model unless JUDGE_BASE_URL and JUDGE_MODEL "
                             "(environment, or a [judge] table in secrets.toml) name another.")
    front_matter = include_front_matter("answers_front_matter")
    options = AnswerOptions(temperature=float(temperature), k=int(k),
                            limit=int(limit) or None, model=answer_settings().model,
                            locale=answer_settings().locale, judge=bool(judge),
                            include_front_matter=bool(front_matter))
    return variants, chosen, options


def _run(loaded: LoadedSet, variants: list[str], chosen: list[str],
         options: AnswerOptions) -> None:
    """Run behind a progress bar and a Cancel button; the answers already given stay cached
    for Resume."""
    arms, settings, templates = _arms(variants, chosen), llm_settings(), prompt_library()
    store, embedding, judging = chunk_store(), embedding_settings(), judge_settings()
    result = run_live(lambda live: run_answers(
        loaded.questions, loaded.documents, arms, settings, options, library=templates,
        store=store, embedding=embedding, progress=live.progress, cancel=live.cancel,
        judge_settings=judging, listen=lambda: live.listener(stream=True)),
        key="answers_cancel", running=RUNNING, stream=True).result
    if result is not None:
        st.session_state[RESULT] = record_answer_run(result)
        st.rerun()


st.title("Answers")
st.caption("Ask the model every question of a set under two or more variants of the answer "
           "prompt (or one prompt over two or more configurations) and grade each answer "
           "without an LLM: does it cite, are its citations in the prompt and on the "
           "reference excerpt, how much of the reference does it say, does it abstain when "
           "(and only when) the question is unanswerable. Kept in the run history.")
say_if_cancelled(RUNNING, lambda done: (
    f"{max(int(done.done) - 1, 0):,} of {int(done.total) - 2:,} answers kept" if done
    else "the answers given so far are kept"))

settings = llm_settings()
try:
    loaded = pick_question_set("answers")
except ChunkLabError as err:
    show_error(err)
    loaded = None
if loaded:
    variants, chosen, options = _inputs()
    count = len(loaded.questions.questions)
    count = min(count, options.limit) if options.limit else count
    arms = len(variants) * len(chosen)
    ready = arms >= 2 and count > 0 and settings.configured
    if arms < 2:
        st.warning("Choose two or more variants (save one on the Prompts page) or two or more "
                   "configurations to compare.", icon=":material/info:")
    if not settings.configured:
        st.warning(md_escape(settings.missing_message()), icon=":material/link_off:")
    warn_missing_key(settings)
    judged = " and to judge" if options.judge else ""
    st.caption(md_escape(run_estimate(settings, count * arms, options).sentence(
        f"{count * arms} answer{'s' * (count * arms != 1)} to grade{judged}") + " Answers "
        "already cached are not asked again."))
    left, right = st.columns(2)
    start = left.button("Run", type="primary", key="answers_run", icon=":material/forum:",
                        disabled=not ready)
    resume = right.button("Resume", key="answers_resume", icon=":material/play_arrow:",
                          disabled=not ready,
                          help="Run again: the answers cached by an earlier or cancelled "
                               "run are not asked again.")
    if start or resume:
        _run(loaded, variants, chosen, options)

history = show_history()
state = st.session_state.get(RESULT) or (history[0] if history else None)
if state:
    st.divider()
    st.caption(md_escape(f"Result of {state.get('created', '')} on “{state['question_set']}”."))
    st.download_button(
        "Download report", lambda: answers_report(state), key="answers_report",
        file_name=f"answers-{state['question_set']}.html", mime="text/html",
        icon=":material/download:",
        help="One HTML file that opens in any browser without a network: the inputs, the "
             "grades with their intervals, the verdicts and the answers side by side.")
    show_comparisons(state)
    show_figures(state)
    show_questions(state)

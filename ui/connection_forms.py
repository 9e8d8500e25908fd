"""The endpoints the Settings page edits, each an :class:`~ui.endpoint_form.EndpointForm`: the
LLM connection (with its presets, the model list a test brings and the server's facts), the
answer judge's own endpoint, the embedder and the reranker; and the answers' own choices.

"Test connection" tries what is typed in a form, before it is saved; the LLM's test fills in
context, concurrency, timeout and answer length from what the server says about itself.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from core.embeddings.settings import SOURCE as EMBEDDING_SOURCE
from core.embeddings.settings import EmbeddingSettings
from core.endpoint import EndpointSettings
from core.llm.settings import (
    ENDPOINT_PRESETS,
    ENV_KEYS,
    JUDGE_SOURCE,
    SOURCE,
    AnswerSettings,
    LLMSettings,
    save_answer_settings,
)
from core.operations.endpoint_checks import check_embedder, check_reranker
from core.operations.llm_connection import ConnectionReport, check_connection
from core.retrieval.rerank_settings import SOURCE as RERANK_SOURCE
from core.retrieval.rerank_settings import RerankSettings
from ui.endpoint_form import (
    COMMON,
    CONCURRENCY,
    RETRIES,
    TIMEOUT,
    EndpointForm,
    NumberField,
    Tested,
)
from ui.render import md_escape
from ui.resources import (
    EMBEDDING_SETTINGS,
    JUDGE_SETTINGS,
    LLM_SETTINGS,
    RERANK_SETTINGS,
    answer_settings,
)

REPORT = "llm_test_report"  # (model, ConnectionReport) of the last test in this session
PRESET, MODEL, MODEL_PICK = "llm_preset", "llm_model", "llm_model_pick"
SIZES_NOTE = (
    "**Which models work.** LLM chunking asks for exact tab-separated answers. In earlier "
    "measurements anchors mode needed a model of about 1.5 B parameters; models of "
    "135 M–270 M parameters could not write the format at all (the run then names the phase "
    "and the line that failed). RAG answers and topic detection get by with smaller models. "
    "On a CPU, a 1,024-token answer of a small model takes one to two minutes."
)
SMALL_MODEL = 1_000_000_000
FITTED = ("context_tokens", "concurrency", "timeout", "max_tokens")  # what a test fits


def _preset_of(url: str) -> str:
    return next((name for name, p in ENDPOINT_PRESETS.items() if p.base_url and p.base_url == url),
                "Custom")


def _apply_preset() -> None:
    """Another kind of server: its usual address and its default model (Custom keeps both)."""
    preset = ENDPOINT_PRESETS[st.session_state[PRESET]]
    if preset.base_url:
        st.session_state["llm_base_url"] = preset.base_url
        st.session_state[MODEL] = preset.example_model
        st.session_state.pop(REPORT, None)  # its model list belonged to the other server
        st.session_state.pop(MODEL_PICK, None)


def _pick_model() -> None:
    if st.session_state[MODEL_PICK]:
        st.session_state[MODEL] = st.session_state[MODEL_PICK]


def _llm_pickers(current: EndpointSettings) -> None:
    """Above the LLM form: the preset, and the models the last test listed."""
    st.session_state.setdefault(PRESET, _preset_of(current.base_url))
    st.selectbox("Preset", list(ENDPOINT_PRESETS), key=PRESET, on_change=_apply_preset,
                 help="Fills in the base URL and the preset's usual model; every field stays "
                      "editable.")
    last = st.session_state.get(REPORT)
    if last and last[1].models:
        listed = last[1].models
        typed = st.session_state[MODEL]
        st.session_state.setdefault(MODEL_PICK, typed if typed in listed else None)
        st.selectbox("Models the endpoint lists", listed, key=MODEL_PICK,
                     on_change=_pick_model, placeholder="pick one to use it",
                     help="Picking one puts it in the Model field.")


def _test_llm(draft: LLMSettings) -> Tested:
    """Try the connection; keep the report for below the form, fit the form to the server."""
    report = check_connection(draft)
    st.session_state[REPORT] = (draft.model, report)
    fitted = {name: getattr(report.suggested, name) for name in FITTED
              if getattr(report.suggested, name) != getattr(draft, name)}
    if not fitted:
        return Tested("info", "")
    return Tested("info", "Context, concurrency, timeout and answer length now fit what the "
                          "server reports (see Server below); Save to keep them.", fitted)


def _facts_rows(report: ConnectionReport) -> list[dict[str, str]]:
    facts, fitted, rows = report.facts, report.suggested, []
    if facts.context_tokens:
        rows.append({"what": "Context per request", "value": f"{facts.context_tokens:,} tokens"})
    if facts.slots:
        rows.append({"what": "Slots (requests computed at once)", "value": f"{facts.slots:,}"})
    rows.append({"what": "Token counts", "value": "the server's tokenizer" if facts.tokenizer
                 else "tiktoken plus a 15 % margin (the server cannot count)"})
    rows.append({"what": "Structured output (JSON schema)",
                 "value": ("no: the phases' rows are asked as tab-separated lines"
                           if not facts.structured_output
                           else "yes: rows asked as JSON, summaries compact"
                           if facts.compact_json else "yes: the phases' rows are asked as JSON")})
    if facts.answer_speed:
        rows.append({"what": "Answer speed", "value": f"{facts.answer_speed:,.1f} tokens/s"})
    rows.append({"what": "Suggested timeout", "value": f"{fitted.timeout:,.0f} s"})
    if facts.model_params:
        size = f"{facts.model_params / 1e9:,.2f} B parameters"
        rows.append({"what": "Model size", "value": size})
    return rows


def _show_report(model: str, report: ConnectionReport) -> None:
    summary = md_escape(report.summary(model))
    if report.followed:
        st.success(summary)
    else:
        st.warning(summary)
    st.text(f"Answer: {report.answer[:200]}")
    if not report.lists(model):
        st.warning(md_escape(f"The endpoint does not list {model!r} among its models."))
    st.markdown("**Server**")
    st.dataframe(_facts_rows(report), hide_index=True)
    if report.facts.model_params and report.facts.model_params < SMALL_MODEL:
        st.warning("This model is small: expect LLM chunking to fail on its format (see which "
                   "models work, below).")
    st.dataframe({"models the endpoint lists": report.models}, hide_index=True)


def _llm_report(current: EndpointSettings) -> None:
    """Below the LLM form: the last test's report, which models work, what is missing."""
    last = st.session_state.get(REPORT)
    if last:
        _show_report(*last)
    st.markdown(SIZES_NOTE)
    if not current.configured:
        st.info("No LLM endpoint is saved yet: fill in a base URL and a model above, test the "
                f"connection, then save (or set {ENV_KEYS['base_url']} and {ENV_KEYS['model']} "
                "before starting the app).")


def _test_judge(draft: LLMSettings) -> Tested:
    report = check_connection(draft)
    return Tested("success" if report.followed else "warning", report.summary(draft.model))


def _test_embedder(settings: EmbeddingSettings) -> Tested:
    return Tested("success", check_embedder(settings).summary())


def _test_reranker(settings: RerankSettings) -> Tested:
    report = check_reranker(settings)
    return Tested("success" if report.sensible else "error", report.summary())


LLM_FORM = EndpointForm(
    prefix="llm", title="Connection",
    caption="The LLM connection used by LLM chunking, the Structure page, prompt tests and "
            "answers: any server that speaks the OpenAI chat-completions API.",
    session_key=LLM_SETTINGS, kind=LLMSettings, source=SOURCE, columns=2,
    test_label="Test connection", stale=(REPORT, MODEL_PICK),
    numbers=(
        NumberField("temperature", "Temperature of the structured phases", 0.0, 2.0, 0.05,
                    "Chunking, metadata, prefixes, summaries; 0.3 suits them. Answers have "
                    "their own temperature below.", slider=True),
        NumberField("max_tokens", "Max tokens per answer", 16, 65536, 1,
                    "The longest answer (structure, boundaries, RAG answers); one-line answers "
                    "such as metadata ask for fewer."),
        TIMEOUT, CONCURRENCY,
        NumberField("context_tokens", "Model context (tokens)", 1024, 2_000_000, 1024,
                    "Per request; longer documents are sent in windows that fit.",
                    key="context"),
        replace(RETRIES, key="retries"),
    ),
    test=_test_llm, above=_llm_pickers, below=_llm_report)
JUDGE_FORM = EndpointForm(
    prefix="judge", title="Answer judge",
    caption="Optional: another model that grades the answers on the Answers page and the "
            "command line's answer runs (a larger model grading a small one). Left empty, the "
            "answer model judges.",
    session_key=JUDGE_SETTINGS, kind=LLMSettings, source=JUDGE_SOURCE, numbers=COMMON,
    test=_test_judge)
EMBEDDING_FORM = EndpointForm(
    prefix="embedding", title="Embeddings",
    caption="Your own embedding model beside the built-in MiniLM: any OpenAI-compatible "
            "/v1/embeddings (OpenAI, Ollama, llama.cpp --embedding, vLLM, LM Studio, Text "
            "Embeddings Inference). Chunk sets and evaluations choose it by name; Test reports "
            "its vector size and speed.",
    session_key=EMBEDDING_SETTINGS, kind=EmbeddingSettings, source=EMBEDDING_SOURCE,
    numbers=(NumberField("batch_size", "Texts per request", 1, 2048, 1), *COMMON),
    test=_test_embedder, url_example="http://127.0.0.1:11434/v1")
RERANK_FORM = EndpointForm(
    prefix="rerank", title="Reranking",
    caption="An optional reranker that reorders the best hits before the cut, on Assemble and "
            "Evaluate: a /v1/rerank endpoint (llama.cpp --reranking, Text Embeddings "
            "Inference; the Jina/Cohere request shape).",
    session_key=RERANK_SETTINGS, kind=RerankSettings, source=RERANK_SOURCE,
    numbers=(NumberField("top_n", "Hits reordered (top N)", 2, 200, 1,
                         "How many of the best ranked hits the reranker reorders."), *COMMON),
    test=_test_reranker, url_example="http://127.0.0.1:8080/v1")


def answer_section(connection: EndpointSettings) -> None:
    """The model, temperature and format of every RAG answer (empty model: ``connection``'s)."""
    st.subheader("Answers")
    st.caption("The model and temperature of every RAG answer (Assemble, the Prompts page's "
               "test, the command line); empty model: the connection's. The structured phases "
               "keep their own temperature above.")
    answer = answer_settings()
    with st.form("answer_settings_form"):
        cols = st.columns(2)
        model = cols[0].text_input("Answer model", answer.model, key="answer_model",
                                   placeholder=connection.model or "the connection's model")
        temperature = cols[1].slider("Answer temperature", 0.0, 2.0, answer.temperature, 0.05,
                                     key="answer_temperature", help="0.7 by default.")
        held = st.checkbox(
            "Hold answers to the cited format", answer.held_format, key="answer_held_format",
            help="Each line of an answer ends with the numbers of the passages it rests on, and "
                 "only numbers of passages in the prompt: small models rarely cite unless held "
                 "to it. Needs a server that takes a grammar (llama.cpp, the bundled model); "
                 "other servers answer freely.")
        if st.form_submit_button("Save answer settings"):
            save_answer_settings(AnswerSettings(model=model.strip(), temperature=temperature,
                                                locale=answer.locale, held_format=held))
            st.success("Saved: every answer request uses them.")

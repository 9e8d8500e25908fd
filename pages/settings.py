"""Settings: the LLM connection (any OpenAI-compatible endpoint) and the generation choices,
and the user's own embedding and reranking endpoints.

The API key is typed into a password field and kept only in this session's state; it is never
shown again, saved, logged or cached. The other settings are saved in the data folder so every
page and the command line find them too. "Test connection" tries what is typed in the form,
before it is saved, and fills in context, concurrency and timeout from what the server says
about itself.
"""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from core.embeddings.settings import ENV_KEYS as EMBEDDING_ENV
from core.embeddings.settings import (
    EmbeddingSettings,
    load_embedding_settings,
    save_embedding_settings,
)
from core.errors import ChunkLabError
from core.llm.settings import (
    ENDPOINT_PRESETS,
    ENV_KEYS,
    AnswerSettings,
    LLMSettings,
    load_settings,
    save_answer_settings,
    save_settings,
)
from core.operations.endpoint_checks import check_embedder, check_reranker
from core.operations.llm_connection import ConnectionReport, check_connection
from core.retrieval.rerank_settings import ENV_KEYS as RERANK_ENV
from core.retrieval.rerank_settings import (
    RerankSettings,
    load_rerank_settings,
    save_rerank_settings,
)
from ui.endpoint_form import (
    EndpointForm,
    NumberField,
    clear_key_fields,
    endpoint_section,
    key_fields,
    key_state,
    typed_key,
)
from ui.render import md_escape
from ui.resources import EMBEDDING_SETTINGS, LLM_SETTINGS, RERANK_SETTINGS, answer_settings
from ui.state import show_error, warn_missing_key
from ui.store_status import show_store_status

REPORT = "llm_test_report"  # (model, ConnectionReport) of the last test in this session
MESSAGE = "llm_save_message"
SIZES_NOTE = (
    "**Which models work.** LLM chunking asks for exact tab-separated answers. In earlier "
    "measurements anchors mode needed a model of about 1.5 B parameters; models of "
    "135 M–270 M parameters could not write the format at all (the run then names the phase "
    "and the line that failed). RAG answers and topic detection get by with smaller models. "
    "On a CPU, a 1,024-token answer of a small model takes one to two minutes."
)
SMALL_MODEL = 1_000_000_000

st.title("Settings")
st.caption(
    "The LLM connection used by LLM chunking, the Structure page, prompt tests and answers: any "
    "server that speaks the OpenAI chat-completions API."
)

if LLM_SETTINGS not in st.session_state:
    st.session_state[LLM_SETTINGS] = load_settings()
current: LLMSettings = st.session_state[LLM_SETTINGS]
warn_missing_key(current, "Type it again in the API key field below.")


def _preset_of(url: str) -> str:
    return next((name for name, p in ENDPOINT_PRESETS.items() if p.base_url and p.base_url == url),
                "Custom")


def _apply_preset() -> None:
    """Another kind of server: its usual address and its default model (Custom keeps both)."""
    preset = ENDPOINT_PRESETS[st.session_state["llm_preset"]]
    if preset.base_url:
        st.session_state["llm_base_url"] = preset.base_url
        st.session_state["llm_model"] = preset.example_model
        st.session_state.pop(REPORT, None)  # its model list belonged to the other server
        st.session_state.pop("llm_model_pick", None)


def _pick_model() -> None:
    if st.session_state["llm_model_pick"]:
        st.session_state["llm_model"] = st.session_state["llm_model_pick"]


FIELDS = {  # widget key -> settings field
    "llm_base_url": "base_url", "llm_model": "model", "llm_temperature": "temperature",
    "llm_max_tokens": "max_tokens", "llm_timeout": "timeout", "llm_concurrency": "concurrency",
    "llm_context": "context_tokens", "llm_retries": "max_retries",
}
FITTED = ("llm_context", "llm_concurrency", "llm_timeout", "llm_max_tokens")
st.session_state.setdefault("llm_preset", _preset_of(current.base_url))
for widget, name in FIELDS.items():
    st.session_state.setdefault(widget, getattr(current, name))


def _draft() -> LLMSettings | None:
    """The settings as typed in the form (key: typed, else this session's); None with the
    message set when they are not valid."""
    old: LLMSettings = st.session_state[LLM_SETTINGS]
    key = typed_key("llm", old.api_key)
    values = {name: st.session_state[widget] for widget, name in FIELDS.items()}
    values["base_url"], values["model"] = values["base_url"].strip(), values["model"].strip()
    try:
        return LLMSettings(api_key=key, needs_key=bool(key.get_secret_value()), **values)
    except ValidationError as err:
        st.session_state[MESSAGE] = ("error", f"These settings are not valid: "
                                     f"{err.errors()[0]['msg']}.")
        return None


def _save() -> None:
    """Form callback: keep the settings, then empty the key field at once."""
    draft = _draft()
    clear_key_fields("llm")
    if draft is None:
        return
    st.session_state[LLM_SETTINGS] = draft
    path = save_settings(draft)
    st.session_state[MESSAGE] = (
        "success", f"Saved for this session; the settings without the key are in {path}.")


def _test() -> None:
    """Form callback: try the typed settings without saving them; fit the form to the server."""
    st.session_state.pop(REPORT, None)
    st.session_state.pop("llm_model_pick", None)
    draft = _draft()
    if draft is None:
        return
    if not draft.configured:
        st.session_state[MESSAGE] = ("error", "Fill in a base URL and a model first.")
        return
    try:
        report = check_connection(draft)
    except ChunkLabError as err:
        st.session_state[MESSAGE] = ("error", str(err))
        return
    st.session_state[REPORT] = (draft.model, report)
    fitted = [w for w in FITTED if getattr(report.suggested, FIELDS[w]) != getattr(draft,
                                                                                 FIELDS[w])]
    for widget in fitted:
        st.session_state[widget] = getattr(report.suggested, FIELDS[widget])
    if fitted:
        st.session_state[MESSAGE] = (
            "info", "Context, concurrency, timeout and answer length now fit what the server "
                    "reports (see Server below); Save to keep them.")


st.subheader("Connection")
st.selectbox("Preset", list(ENDPOINT_PRESETS), key="llm_preset", on_change=_apply_preset,
             help="Fills in the base URL and the preset's usual model; every field stays "
                  "editable.")
last = st.session_state.get(REPORT)
if last and last[1].models:
    listed = last[1].models
    typed = st.session_state["llm_model"]
    st.session_state.setdefault("llm_model_pick", typed if typed in listed else None)
    st.selectbox("Models the endpoint lists", listed, key="llm_model_pick",
                 on_change=_pick_model, placeholder="pick one to use it",
                 help="Picking one puts it in the Model field.")
has_key = bool(current.api_key.get_secret_value())
with st.form("llm_settings_form"):
    st.text_input("Base URL (ending in /v1)", key="llm_base_url")
    key_fields("llm", has_key)
    st.text_input("Model", key="llm_model")
    left, right = st.columns(2)
    left.slider("Temperature of the structured phases", 0.0, 2.0, step=0.05,
                key="llm_temperature",
                help="Chunking, metadata, prefixes, summaries; 0.3 suits them. Answers have "
                     "their own temperature below.")
    right.number_input("Max tokens per answer", 16, 65536, key="llm_max_tokens",
                       help="The longest answer (structure, boundaries, RAG answers); one-line "
                            "answers such as metadata ask for fewer.")
    left.number_input("Timeout per request (s)", 1.0, LLMSettings.LONGEST_TIMEOUT, step=10.0,
                      format="%.0f",
                      key="llm_timeout",
                      help="A timed-out request is asked again once only, with twice the time.")
    right.number_input("Concurrent requests", 1, 32, key="llm_concurrency",
                       help="At most the server's slots: more only queue up on it.")
    left.number_input("Model context (tokens)", 1024, 2_000_000, step=1024, key="llm_context",
                      help="Per request; longer documents are sent in windows that fit.")
    right.number_input("Retries on 429 / 5xx", 0, 10, key="llm_retries")
    test_col, save_col = st.columns(2)
    test_col.form_submit_button("Test connection", on_click=_test,
                                help="Tries what is typed here, without saving it.")
    save_col.form_submit_button("Save", type="primary", on_click=_save)

message = st.session_state.pop(MESSAGE, None)
if message:
    kind, text = message
    if kind == "error":
        show_error(text)
    elif kind == "info":
        st.info(md_escape(text))
    else:
        st.success(md_escape(text))


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


if last:
    _show_report(*last)
st.markdown(SIZES_NOTE)

key_caption = key_state("llm", bool(current.api_key.get_secret_value()))
st.caption(
    f"API key: {key_caption}. Environment variables {', '.join(ENV_KEYS.values())} and "
    "`.streamlit/secrets.toml` are read at start and override saved settings."
)
if not current.configured:
    st.info("No LLM endpoint is saved yet: fill in a base URL and a model above, test the "
            f"connection, then save (or set {ENV_KEYS['base_url']} and {ENV_KEYS['model']} "
            "before starting the app).")

st.subheader("Answers")
st.caption("The model and temperature of every RAG answer (Assemble, the Prompts page's test, "
           "the command line); empty model: the connection's. The structured phases keep their "
           "own temperature above.")
answer = answer_settings()
with st.form("answer_settings_form"):
    cols = st.columns(2)
    model = cols[0].text_input("Answer model", answer.model, key="answer_model",
                               placeholder=current.model or "the connection's model")
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


def _test_embedder(settings: EmbeddingSettings) -> tuple[bool, str]:
    return True, check_embedder(settings).summary()


def _test_reranker(settings: RerankSettings) -> tuple[bool, str]:
    report = check_reranker(settings)
    return report.sensible, report.summary()


endpoint_section(EndpointForm(
    prefix="embedding", title="Embeddings",
    caption="Your own embedding model beside the built-in MiniLM: any OpenAI-compatible "
            "/v1/embeddings (OpenAI, Ollama, llama.cpp --embedding, vLLM, LM Studio, Text "
            "Embeddings Inference). Chunk sets and evaluations choose it by name; Test reports "
            "its vector size and speed.",
    session_key=EMBEDDING_SETTINGS, kind=EmbeddingSettings, load=load_embedding_settings,
    save=save_embedding_settings, env=EMBEDDING_ENV,
    numbers=(NumberField("batch_size", "Texts per request", 1, 2048, 1),),
    test=_test_embedder, url_example="http://127.0.0.1:11434/v1"))
endpoint_section(EndpointForm(
    prefix="rerank", title="Reranking",
    caption="An optional reranker that reorders the best hits before the cut, on Assemble and "
            "Evaluate: a /v1/rerank endpoint (llama.cpp --reranking, Text Embeddings "
            "Inference; the Jina/Cohere request shape).",
    session_key=RERANK_SETTINGS, kind=RerankSettings, load=load_rerank_settings,
    save=save_rerank_settings, env=RERANK_ENV,
    numbers=(NumberField("top_n", "Hits reordered (top N)", 2, 200, 1,
                         "How many of the best ranked hits the reranker reorders."),),
    test=_test_reranker, url_example="http://127.0.0.1:8080/v1"))

st.subheader("Chunk store")
st.caption("Where chunk sets are kept: embedded in the data folder, or the Chroma server "
           "CHROMA_HOST and CHROMA_PORT name (set them before starting the app).")
try:
    show_store_status()
except ChunkLabError as err:
    show_error(err)

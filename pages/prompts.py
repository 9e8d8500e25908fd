"""Prompt workbench: edit every prompt template live, check it, preview it, test it, A/B it.

Thin page: templates, checks, inputs and runs come from ``core.prompts``; this file only draws.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import ChunkLabError
from core.prompts import workbench
from core.prompts.inputs import Conversation, PromptInput, values_for
from core.prompts.library import DEFAULT, PromptLibrary, PromptTemplate
from core.prompts.rag import load_rag_settings, save_rag_settings
from core.render import HighlightSpan, highlight_html, palette
from core.tokens import count_tokens
from ui.state import llm_settings, md_escape, pick_document, show_error

MARKER = "@@"
EDITOR_HEIGHT = 520
SAMPLE_CONVERSATION = Conversation(
    current_topic="home insurance deductibles",
    context="user: What is my deductible for water damage?\n"
    "assistant: The policy sets a deductible of 500 EUR per water damage claim.",
    message="And does the policy cover damage from a burst pipe in winter?",
)

st.title("Prompts")
st.caption(
    "Every prompt the app sends is a template. Edit one, watch the checks and the preview change, "
    "run it on a real input, save it as a named variant and compare variants side by side."
)

library = PromptLibrary()


def editor_key(name: str, variant: str) -> str:
    return f"pw_text::{name}::{variant}"


def insert_placeholder(key: str, placeholder: str) -> None:
    text = st.session_state.get(key, "")
    token = "{{" + placeholder + "}}"
    if MARKER in text:
        st.session_state[key] = text.replace(MARKER, token, 1)
    else:
        st.session_state[key] = text.rstrip("\n") + "\n" + token


def reset_to_default(key: str, name: str) -> None:
    st.session_state[key] = library.default(name).text


def save_variant(name: str, key: str) -> None:
    try:
        saved = library.save_variant(name, st.session_state.get("pw_new_variant", ""),
                                     st.session_state[key])
    except ChunkLabError as err:
        st.session_state["pw_flash"] = ("error", str(err))
        return
    st.session_state[editor_key(name, saved.variant)] = saved.text
    st.session_state[f"pw_variant::{name}"] = saved.variant
    st.session_state["pw_flash"] = ("success", f"Saved variant “{saved.variant}” "
                                               f"(version {saved.version}).")


def draw(run: workbench.TestRun, source: PromptInput, height: int) -> None:
    """The run's sections / chunks on the document (only the section for boundary prompts)."""
    if not run.spans or source.document is None:
        return
    start, end = 0, len(source.document.text)
    if run.label.startswith("boundary_detection") and source.section is not None:
        start, end = source.section.start, source.section.end
    spans = [HighlightSpan(s - start, e - start, palette(i), label=label, tooltip=label)
             for i, (s, e, label) in enumerate(run.spans)]
    st.html(highlight_html(source.document.text[start:end], spans, height_px=height))


def flash() -> None:
    message = st.session_state.pop("pw_flash", None)
    if message:
        kind, text = message
        (st.success if kind == "success" else st.error)(text)


# --- template and variant -----------------------------------------------------------------
names = library.names()
top = st.columns([3, 3, 2, 2], vertical_alignment="bottom")
name = top[0].selectbox("Template", names, key="pw_template",
                        format_func=lambda n: library.default(n).title)
active = library.active(name) or DEFAULT
variant_key = f"pw_variant::{name}"
variants = [DEFAULT, *library.variants(name)]
if st.session_state.get(variant_key) not in variants:
    st.session_state[variant_key] = active
variant = top[1].selectbox(
    "Variant", variants, key=variant_key,
    format_func=lambda v: f"{v}  ✓ used by the app" if v == active else v,
)
stored = library.template(name, variant)
key = editor_key(name, variant)
if key not in st.session_state:
    st.session_state[key] = stored.text
if variant != active and top[2].button("Use in the app", use_container_width=True,
                                       help="Make this variant the one the LLM phases send."):
    library.set_active(name, variant)
    st.rerun()
if variant != DEFAULT and top[3].button("Delete variant", use_container_width=True):
    library.delete_variant(name, variant)
    st.session_state.pop(variant_key, None)
    st.rerun()
st.markdown(f"**{md_escape(stored.title)}** — {md_escape(stored.description)}")
flash()

# --- editor | placeholders, checks, format ------------------------------------------------
left, right = st.columns([4, 3], gap="large")
with left:
    text = st.text_area("Template text", key=key, height=EDITOR_HEIGHT,
                        help="Placeholders look like {{ name }}.")
    working: PromptTemplate = (stored if text == stored.text
                               else stored.with_text(text, f"{variant}*"))
    state = "saved" if text == stored.text else "**edited, not saved**"
    st.caption(f"{variant} · {state} · version `{working.version}` · {len(text):,} characters")
    cols = st.columns([3, 1, 2], vertical_alignment="bottom")
    cols[0].text_input("Variant name", key="pw_new_variant", placeholder="e.g. terse-v2")
    cols[1].button("Save", on_click=save_variant, args=(name, key), type="primary",
                   use_container_width=True)
    cols[2].button("Reset to default", on_click=reset_to_default, args=(key, name),
                   use_container_width=True, disabled=text == library.default(name).text)

with right:
    checks = workbench.check_template(working)
    for problem in checks.errors:
        st.error(problem, icon=":material/error:")
    for problem in checks.warnings:
        st.warning(problem, icon=":material/warning:")
    if not checks.errors and not checks.warnings:
        st.success("The JSON template is complete." if working.syntax == "rag_json"
                   else "Every placeholder is known and used.", icon=":material/check_circle:")
    with st.container(border=True):
        st.markdown("**Placeholders**")
        if working.syntax == "rag_json":
            st.caption("The header uses the locale's fields as {role}, {background} and "
                       "{request}; edit them as JSON fields.")
            st.markdown("\n".join(f"- `{{{p}}}` — {d}" for p, d in working.placeholders.items()))
        else:
            st.caption(f"Buttons add the placeholder in place of the first `{MARKER}` in the "
                       "text, else at the end (Streamlit cannot see the cursor: type "
                       f"`{MARKER}` where you want it).")
            with st.container(horizontal=True):
                for placeholder, description in working.placeholders.items():
                    st.button("{{" + placeholder + "}}", key=f"pw_ins::{name}::{placeholder}",
                              on_click=insert_placeholder, args=(key, placeholder),
                              help=f"Insert: {description}")
            st.markdown("\n".join(f"- `{{{{{p}}}}}` — {d}"
                                   for p, d in working.placeholders.items()))
    with st.container(border=True):
        st.markdown("**Answer format the parser expects**")
        st.markdown(working.contract.reference_markdown())

# --- input --------------------------------------------------------------------------------
st.divider()
st.subheader("Input")
source = PromptInput()
rag_locale, rag_question, rag_refs = "default", "", 3
input_cols = st.columns([3, 3, 2])
if name == "topic_detection":
    talk = SAMPLE_CONVERSATION
    source = PromptInput(conversation=Conversation(
        current_topic=input_cols[0].text_input("Current topic", talk.current_topic,
                                               key="pw_topic"),
        context=input_cols[1].text_area("Recent conversation", talk.context, key="pw_context",
                                        height=100),
        message=input_cols[2].text_area("Latest message", talk.message, key="pw_message",
                                        height=100),
    ))
else:
    with input_cols[0]:
        document = pick_document(key="pw_doc")
    if document is not None:
        source = PromptInput(document=document)
        sections = list(document.sections)
        if name.startswith("boundary_detection") or name in ("chunk_metadata",
                                                              "contextual_prefix"):
            if sections:
                index = input_cols[1].selectbox(
                    "Section", range(len(sections)), key="pw_section",
                    index=workbench.default_section(document),
                    format_func=lambda i: "  " * (sections[i].level - 1) + sections[i].title)
                source = PromptInput(document=document, section=sections[index])
            else:
                st.info("This document has no sections; use another document.")
        if name.startswith("boundary_detection"):
            max_tokens = input_cols[2].number_input("Max chunk tokens", 64, 8192, 512, 64,
                                                    key="pw_max_tokens")
            source = PromptInput(document=document, section=source.section,
                                 max_tokens=int(max_tokens))
        if name in ("chunk_metadata", "contextual_prefix") and source.section is not None:
            passages = workbench.passages(document, source.section)
            index = input_cols[2].selectbox(
                "Chunk", range(len(passages)), key="pw_chunk",
                format_func=lambda i: f"#{i + 1} · {document.slice(passages[i])[:40]}…")
            source = PromptInput(document=document, section=source.section,
                                 chunk=passages[index])
        if name == "table_summary":
            tables = list(document.tables)
            if tables:
                index = input_cols[1].selectbox(
                    "Table", range(len(tables)), key="pw_table",
                    format_func=lambda i: tables[i].caption or f"Table {i + 1}")
                source = PromptInput(document=document, table=tables[index])
            else:
                st.info("This document has no tables; pick one that has (e.g. the policy).")
        if name == "rag_system":
            rag = load_rag_settings()
            locales = workbench.locale_names(working)
            rag_locale = input_cols[1].selectbox(
                "Locale", [*locales, "ja-JP"], key="pw_locale",
                index=[*locales, "ja-JP"].index(rag.locale) if rag.locale in locales else 0)
            rag_refs = input_cols[2].slider("References", 0, 6, 3, key="pw_refs")
            rag_question = st.text_input("Question (sent after the system prompt when testing)",
                                         "What does the policy say about water damage?",
                                         key="pw_question")
            with st.expander(f"Answer model: {rag.model}, temperature {rag.temperature:g}"):
                model_cols = st.columns([2, 2, 1], vertical_alignment="bottom")
                model = model_cols[0].text_input("Model", rag.model, key="pw_rag_model")
                temperature = model_cols[1].slider("Temperature", 0.0, 2.0, rag.temperature,
                                                   0.1, key="pw_rag_temperature")
                if model_cols[2].button("Save model", key="pw_rag_save"):
                    try:
                        save_rag_settings(model, temperature, rag_locale)
                    except ChunkLabError as err:
                        show_error(err)
                    else:
                        st.success("Saved as your answer model.")

values = values_for(name, source)

# --- preview / test / A/B / diff / import-export --------------------------------------------
settings = llm_settings()
preview_tab, test_tab, ab_tab, diff_tab, io_tab = st.tabs(
    ["Preview", "Test", "A/B", "Diff vs default", "Import / export"], key="pw_tabs")

with preview_tab:
    try:
        preview = workbench.preview(working, source, values, locale=rag_locale,
                                    references=rag_refs)
    except ChunkLabError as err:
        show_error(err)
    else:
        if preview.missing:
            st.warning("No value for " + ", ".join(f"{{{{{m}}}}}" for m in preview.missing)
                       + " with this input: it stays in the prompt as written.",
                       icon=":material/warning:")
        tokens = count_tokens(preview.text)
        context = settings.context_tokens
        room = context - settings.max_tokens
        st.progress(min(tokens / context, 1.0),
                    text=f"{tokens:,} prompt tokens of the {context:,}-token context of "
                         f"{settings.model or 'the model'} ({settings.max_tokens:,} kept for "
                         "the answer)")
        if tokens > room:
            st.error(f"The prompt is {tokens - room:,} tokens too long for the context window "
                     "once the answer's tokens are reserved.", icon=":material/error:")
        st.code(preview.text, language=None, wrap_lines=True, height=460)

with test_tab:
    if not settings.configured:
        st.info(f"{settings.missing_message()} Open **Settings** in the sidebar; editing, "
                "checks and the preview work without it.", icon=":material/power_off:")
    elif st.button("Run test", type="primary", key="pw_run",
                   disabled=bool(checks.errors)):
        with st.status(f"Running {working.label} on {settings.model}…") as status:
            try:
                run = workbench.run_template(settings, working, source, question=rag_question,
                                             locale=rag_locale, references=rag_refs)
            except ChunkLabError as err:
                status.update(label="Test failed", state="error")
                show_error(err)
            else:
                st.session_state["pw_last_run"] = (name, run)
                status.update(label=f"Done in {run.latency_s:.2f} s", state="complete")
    last = st.session_state.get("pw_last_run")
    if last and last[0] == name:
        run = last[1]
        metrics = st.columns(4)
        metrics[0].metric("Requests", run.requests)
        metrics[1].metric("Prompt tokens", f"{run.prompt_tokens:,}")
        metrics[2].metric("Answer tokens", f"{run.completion_tokens:,}")
        metrics[3].metric("Latency", f"{run.latency_s:.2f} s")
        if run.error:
            st.error(f"The parser rejected the answer: {run.error}", icon=":material/error:")
            if run.error_line is not None:
                st.code(run.error_line, language=None)
        if run.warning:
            st.warning(run.warning, icon=":material/warning:")
        if run.rows:
            st.dataframe(pd.DataFrame(run.rows), hide_index=True, use_container_width=True)
        with st.expander("Raw answer", expanded=bool(run.error)):
            st.code(run.raw or "(empty)", language=None, wrap_lines=True)
        draw(run, source, 560)

with ab_tab:
    options = [DEFAULT, *library.variants(name)]
    ab_cols = st.columns(2)
    first = ab_cols[0].selectbox("A", ["(editor)", *options], key="pw_ab_a")
    second = ab_cols[1].selectbox("B", ["(editor)", *options], key="pw_ab_b",
                                  index=1 if len(options) < 2 else 2)

    def pick(choice: str) -> PromptTemplate:
        return working if choice == "(editor)" else library.template(name, choice)

    if pick(first).text == pick(second).text:
        st.info("A and B hold the same text. Edit the template above (“(editor)” is what you "
                "type) or pick a saved variant to compare two prompts; run as it is, A/B shows "
                "only how much the model's answers vary between two calls.",
                icon=":material/compare_arrows:")
    if not settings.configured:
        st.info("A/B runs need an LLM endpoint: " + settings.missing_message(),
                icon=":material/power_off:")
    elif st.button("Run A and B", type="primary", key="pw_ab_run"):
        with st.status("Running both variants on the same input…") as status:
            try:
                result = workbench.run_ab(settings, pick(first), pick(second), source,
                                          question=rag_question, locale=rag_locale,
                                          references=rag_refs)
            except ChunkLabError as err:
                status.update(label="A/B failed", state="error")
                show_error(err)
            else:
                st.session_state["pw_ab"] = (name, result)
                status.update(label="A/B done", state="complete")
    stored_ab = st.session_state.get("pw_ab")
    if stored_ab and stored_ab[0] == name:
        result = stored_ab[1]
        sides = st.columns(2)
        for side, run in zip(sides, (result.a, result.b), strict=True):
            with side:
                st.markdown(f"**{md_escape(run.label)}** · version `{run.version}`")
                m = st.columns(3)
                m[0].metric("Requests", run.requests)
                m[1].metric("Tokens", f"{run.prompt_tokens + run.completion_tokens:,}")
                m[2].metric("Latency", f"{run.latency_s:.2f} s")
                if run.error:
                    st.error(run.error, icon=":material/error:")
                if run.warning:
                    st.warning(run.warning, icon=":material/warning:")
                if run.rows:
                    st.dataframe(pd.DataFrame(run.rows), hide_index=True,
                                 use_container_width=True)
                draw(run, source, 420)
        st.markdown("**Differences**")
        if result.only_a or result.only_b:
            diff_cols = st.columns(2)
            diff_cols[0].markdown("Only in A:\n" + "\n".join(f"- {x}" for x in result.only_a)
                                  if result.only_a else "Nothing only in A.")
            diff_cols[1].markdown("Only in B:\n" + "\n".join(f"- {x}" for x in result.only_b)
                                  if result.only_b else "Nothing only in B.")
        st.code(result.raw_diff or "The two answers are identical.", language="diff")

with diff_tab:
    diff = workbench.text_diff(library.default(name).text, text, "default",
                               f"{variant} (editor)")
    if diff:
        st.code(diff, language="diff")
    else:
        st.success("The editor holds exactly the default text.")

with io_tab:
    io_cols = st.columns(2)
    with io_cols[0]:
        st.markdown("**Export** every saved variant and which one the app uses.")
        st.download_button("Download prompt set (JSON)", library.export_json(),
                           file_name="chunklab-prompts.json", mime="application/json")
    with io_cols[1]:
        upload = st.file_uploader("Import a prompt set", type=["json"], key="pw_import")
        if upload is not None and st.button("Import", key="pw_import_go"):
            try:
                labels = library.import_json(upload.getvalue())
            except ChunkLabError as err:
                show_error(err)
            else:
                st.success(f"Imported {len(labels)} variant(s): " + ", ".join(labels))

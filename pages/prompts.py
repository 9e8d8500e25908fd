"""Prompts: edit every prompt template live, check it, preview it, test it, A/B it.

The phase that sends the chosen template says what input it is tried on; this page draws the
editor and those inputs and shows what ``core.operations.prompts`` returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pandas as pd
import streamlit as st

from core.errors import ChunkLabError
from core.llm.trial import PhaseInput
from core.operations.prompts import inputs, templates, trials
from core.prompts.template import DEFAULT, PromptTemplate
from ui.answer import show_answer
from ui.long_run import LiveRun, run_live
from ui.persist import forget, kept, kept_value, remember
from ui.phase_inputs import choose_input
from ui.rag_form import rag_fields
from ui.render import HighlightSpan, highlight_html, md_escape, palette
from ui.resources import answer_settings, llm_settings, prompt_library
from ui.state import show_error, warn_missing_key
from ui.wording import count

MARKER = "@@"
EDITOR_HEIGHT = 520

library = prompt_library()
T = TypeVar("T")


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


def new_variant_key(name: str) -> str:
    return f"pw_new_variant::{name}"


def save_variant(name: str, key: str, editing: str) -> None:
    """Save the editor's text under the name typed, else over the variant being edited (the
    shipped default is never overwritten: it needs a name). The name box is emptied, so Save
    again keeps saving the variant the editor now shows."""
    typed = st.session_state.get(new_variant_key(name), "").strip()
    target = typed or ("" if editing == DEFAULT else editing)
    if not target:
        st.session_state["pw_flash"] = ("error", "Type a name for the new variant: the shipped "
                                                 "default stays as it is.")
        return
    try:
        saved = library.save_variant(name, target, st.session_state[key])
    except ChunkLabError as err:
        st.session_state["pw_flash"] = ("error", str(err))
        return
    saved_key = editor_key(name, saved.variant or DEFAULT)
    if key != saved_key:  # the edits moved into the new variant: their editor holds no draft
        forget(key)
    remember(saved_key, saved.text)
    remember(f"pw_variant::{name}", saved.variant)
    st.session_state[new_variant_key(name)] = ""
    st.session_state["pw_flash"] = ("success", f"Saved variant “{saved.variant}” "
                                               f"(version {saved.version}).")


def flash() -> None:
    message = st.session_state.pop("pw_flash", None)
    if message:
        kind, text = message
        (st.success if kind == "success" else st.error)(md_escape(text))


def draw(run: trials.TestRun, template: PromptTemplate, source: PhaseInput,
         height: int) -> None:
    """The run's sections / chunks on the document (only the section for boundary prompts)."""
    spans_found = run.view.spans
    if not spans_found or source.document is None:
        return
    start, end = inputs.needs(template).shown(source)
    spans = [HighlightSpan(s - start, e - start, palette(i), label=label, tooltip=label)
             for i, (s, e, label) in enumerate(spans_found)]
    st.html(highlight_html(source.document.text[start:end], spans, height_px=height))


def choose_template() -> tuple[str, str, PromptTemplate]:
    top = st.columns([3, 3, 2, 2], vertical_alignment="bottom")
    names = templates.names_in_phase_order(library)
    name = top[0].selectbox("Template", names,
                            key=kept("pw_template", names[0], durable=True, valid=names),
                            format_func=lambda n: library.default(n).title)
    active = library.active(name) or DEFAULT
    variants = [DEFAULT, *library.variants(name)]
    variant_key = kept(f"pw_variant::{name}", active, valid=variants)
    variant = top[1].selectbox(
        "Variant", variants, key=variant_key,
        format_func=lambda v: f"{v}  ✓ used by the app" if v == active else v,
    )
    if variant != active and top[2].button("Use in the app", width="stretch",
                                           help="Make this variant the one the app sends."):
        library.set_active(name, variant)
        st.rerun()
    if variant != DEFAULT and top[3].button("Delete variant", width="stretch"):
        library.delete_variant(name, variant)
        forget(variant_key)
        st.rerun()
    return name, variant, library.template(name, variant)


def drafts(current: str) -> list[str]:
    """Titles of the other templates whose editor holds unsaved text (kept for the session)."""
    found = []
    for name in library.names():
        for variant in [DEFAULT, *library.variants(name)]:
            key = editor_key(name, variant)
            text = kept_value(key)
            if key != current and text is not None and text != library.template(name,
                                                                                 variant).text:
                found.append(f"{library.default(name).title} · {variant}")
    return found


def edit(name: str, variant: str, stored: PromptTemplate) -> PromptTemplate:
    """The editor; returns the template as typed (saved or not)."""
    key = kept(editor_key(name, variant), stored.text)
    if stored.syntax == "rag_json":  # edited as text; its JSON (every locale) below
        rag_fields(key)
        with st.expander("The template as JSON (every locale)"):
            text = st.text_area("Template text", key=key, height=EDITOR_HEIGHT)
    else:
        text = st.text_area("Template text", key=key, height=EDITOR_HEIGHT,
                            help="Placeholders look like {{ name }}.")
    working = stored if text == stored.text else stored.with_text(text, f"{variant}*")
    state = "saved" if text == stored.text else "**edited, not saved**"
    st.caption(f"{md_escape(variant)} · {state} · version `{working.version}` · "
               f"{len(text):,} characters")
    cols = st.columns([3, 1, 2], vertical_alignment="bottom")
    over = variant != DEFAULT
    cols[0].text_input(f"New variant of “{stored.title}”", key=new_variant_key(name),
                       placeholder=f"empty: Save updates “{variant}”" if over else
                       "e.g. terse-v2",
                       help="Save the editor's text under this name" + (
                           f"; left empty, Save updates “{variant}”." if over else "."))
    cols[1].button("Save", on_click=save_variant, args=(name, key, variant), type="primary",
                   width="stretch")
    cols[2].button("Reset to default", on_click=reset_to_default, args=(key, name),
                   width="stretch", disabled=text == library.default(name).text)
    return working


def show_checks(name: str, key: str, working: PromptTemplate) -> bool:
    """Checks and placeholders; True when the template has errors."""
    checks = templates.review(working)
    for problem in checks.errors:
        st.error(md_escape(problem), icon=":material/error:")
    for problem in checks.warnings:
        st.warning(md_escape(problem), icon=":material/warning:")
    if checks.passed:
        st.success(md_escape(checks.passed), icon=":material/check_circle:")
    with st.container(border=True):
        st.markdown("**Placeholders**")
        if working.syntax == "rag_json":
            st.caption("The header uses the locale's fields as {role}, {background} and "
                       "{request}; edit them in their boxes above.")
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
    return bool(checks.errors)


def show_format(working: PromptTemplate) -> None:
    """The answer format, across the page: its example table has a column per field."""
    with st.container(border=True):
        st.markdown("**Answer format the parser expects**")
        # An example table wider still scrolls inside the box instead of running over.
        st.html("<style>.st-key-pw_format table{display:block;overflow-x:auto;"
                "max-width:100%}</style>")
        with st.container(key="pw_format"):
            st.markdown(working.contract.reference_markdown())


def show_preview(working: PromptTemplate, source: PhaseInput) -> None:
    settings = llm_settings()
    try:
        preview = trials.preview(working, source, settings)
    except ChunkLabError as err:
        show_error(err)
        return
    if preview.note:
        st.info(md_escape(preview.note), icon=":material/info:")
    elif preview.missing:
        st.warning("No value for " + md_escape(", ".join(f"{{{{{m}}}}}" for m in preview.missing))
                   + " with this input: it stays in the prompt as written.",
                   icon=":material/warning:")
    tokens, context = preview.tokens, preview.context_tokens
    st.progress(min(tokens / context, 1.0),
                text=f"{tokens:,} prompt tokens of the {context:,}-token context of "
                     f"{md_escape(settings.model or 'the model')} "
                     f"({preview.answer_tokens:,} kept for the answer)")
    if preview.over_by:
        st.error(f"The prompt is {preview.over_by:,} tokens too long for the context window "
                 "once the answer's tokens are reserved.", icon=":material/error:")
    st.code(preview.text, language=None, wrap_lines=True, height=460)


def show_run(run: trials.TestRun, working: PromptTemplate, source: PhaseInput,
             height: int, metrics: int = 4) -> None:
    cols = st.columns(metrics)
    cols[0].metric("Requests", run.requests)
    if metrics == 4:
        cols[1].metric("Prompt tokens", f"{run.prompt_tokens:,}")
        cols[2].metric("Answer tokens", f"{run.completion_tokens:,}")
    else:
        cols[1].metric("Tokens", f"{run.prompt_tokens + run.completion_tokens:,}")
    cols[-1].metric("Latency", f"{run.latency_s:.2f} s")
    if run.error:
        st.error(f"The parser rejected the answer: {md_escape(run.error)}", icon=":material/error:")
        if run.error_line is not None:
            st.code(run.error_line, language=None)
    if run.view.warning:
        st.warning(md_escape(run.view.warning), icon=":material/warning:")
    if run.view.check is not None:
        st.markdown("**The answer**, as a reader sees it (markers link to their references)")
        show_answer(run.raw, run.view.check, lambda n: f"pw-ref-{n}")
        for n, entry in enumerate(run.view.references, start=1):
            title, _, text = entry.partition("\n")
            st.subheader(md_escape(title), anchor=f"pw-ref-{n}")
            st.caption(md_escape(text[:400] + ("…" if len(text) > 400 else "")))
    if run.view.rows:
        frame = pd.DataFrame(run.view.rows)
        frame.columns = [str(c).replace("_", " ").capitalize() for c in frame.columns]
        st.dataframe(frame, hide_index=True, width="stretch")
    draw(run, working, source, height)


def run_button(button: str, key: str, run: Callable[[LiveRun[T]], T],
               disabled: bool = False, stream: bool = False) -> T | None:
    """A button that runs ``run`` live (its place in the server's line, the answer as it is
    written with ``stream``, a Cancel button); the error's sentence when it fails."""
    settings = llm_settings()
    if not settings.configured:
        st.info(f"{md_escape(settings.missing_message())} Open **Settings** in the sidebar; "
                "editing, checks and the preview work without it.", icon=":material/power_off:")
        return None
    if not st.button(button, type="primary", key=key, disabled=disabled):
        return None
    return run_live(run, key=f"{key}_cancel", stream=stream).result


def test_tab(name: str, working: PromptTemplate, source: PhaseInput, has_errors: bool) -> None:
    settings = llm_settings()
    answer = answer_settings()
    run = run_button("Run test", "pw_run", disabled=has_errors, stream=True,
                     run=lambda live: trials.run_template(
                         settings, working, source, answer=answer, cancel=live.cancel,
                         listener=live.listener(stream=True)))
    if run is not None:
        st.session_state["pw_last_run"] = (name, run)
    last = st.session_state.get("pw_last_run")
    if last and last[0] == name:
        run = last[1]
        show_run(run, working, source, 560)
        with st.expander("Raw answer", expanded=bool(run.error)):
            st.code(run.raw or "(empty)", language=None, wrap_lines=True)


def ab_tab(name: str, working: PromptTemplate, source: PhaseInput) -> None:
    settings = llm_settings()
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
    a, b, answer = pick(first), pick(second), answer_settings()
    ran = run_button("Run A and B", "pw_ab_run",
                     run=lambda live: trials.run_ab(settings, a, b, source, answer=answer,
                                                          cancel=live.cancel,
                                                          listen=live.listener))
    if ran is not None:
        st.session_state["pw_ab"] = (name, ran)
    stored_ab = st.session_state.get("pw_ab")
    if not (stored_ab and stored_ab[0] == name):
        return
    result = stored_ab[1]
    for side, run in zip(st.columns(2), (result.a, result.b), strict=True):
        with side:
            st.markdown(f"**{md_escape(run.label)}** · version `{run.version}`")
            show_run(run, working, source, 420, metrics=3)
    st.markdown("**Differences**")
    if result.only_a or result.only_b:
        diff_cols = st.columns(2)
        diff_cols[0].markdown("Only in A:\n" + "\n".join(f"- {md_escape(x)}" for x in result.only_a)
                              if result.only_a else "Nothing only in A.")
        diff_cols[1].markdown("Only in B:\n" + "\n".join(f"- {md_escape(x)}" for x in result.only_b)
                              if result.only_b else "Nothing only in B.")
    st.code(result.raw_diff or "The two answers are identical.", language="diff")


def io_tab() -> None:
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
                st.success(md_escape(f"Imported {count(len(labels), 'variant')}: "
                                     + ", ".join(labels)))


st.title("Prompts")
st.caption(
    "Every prompt the app sends is a template. Edit one, watch the checks and the preview change, "
    "run it on a real input, save it as a named variant and compare variants side by side."
)
name, variant, stored = choose_template()
st.markdown(f"**{md_escape(stored.title)}** — {md_escape(stored.description)}")
flash()
warn_missing_key(llm_settings())  # above the tabs: the runs in Test and A/B need the key
if unsaved := drafts(editor_key(name, variant)):
    st.warning("Unsaved edits are kept as drafts in: " + md_escape("; ".join(unsaved))
               + ". Save them as a variant, or reset them, before you close the browser tab.",
               icon=":material/edit_note:")
left, right = st.columns([4, 3], gap="large")
with left:
    working = edit(name, variant, stored)
with right:
    has_errors = show_checks(name, editor_key(name, variant), working)
show_format(working)
st.divider()
st.subheader("Input")
source = choose_input(working)
# Only the open tab is drawn: the others' elements would be redrawn, unseen, on every click.
preview_tab, run_tab, compare_tab, diff_tab, transfer_tab = st.tabs(
    ["Preview", "Test", "A/B", "Diff vs default", "Import / export"],
    key=kept("pw_tabs", "Preview"), on_change="rerun")
if preview_tab.open:
    with preview_tab:
        show_preview(working, source)
if run_tab.open:
    with run_tab:
        test_tab(name, working, source, has_errors)
if compare_tab.open:
    with compare_tab:
        ab_tab(name, working, source)
if diff_tab.open:
    with diff_tab:
        diff = trials.text_diff(library.default(name).text, working.text, "default",
                                      f"{variant} (editor)")
        if diff:
            st.code(diff, language="diff")
        else:
            st.success("The editor holds exactly the default text.")
if transfer_tab.open:
    with transfer_tab:
        io_tab()

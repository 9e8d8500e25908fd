"""Assemble: ask a question, retrieve packs from one or two chunk sets, inspect the RAG prompt
with its citations and token budget, and optionally ask the configured LLM."""

from __future__ import annotations

import json

import streamlit as st

from core.assembly.model import (
    CITATION_STYLES,
    ESTIMATORS,
    STYLES,
    AssembledPrompt,
    Budget,
    Citation,
    characters_label,
    page_label,
)
from core.documents.model import Document
from core.errors import ChunkLabError
from core.operations.assemble.budget import default_budget
from core.operations.assemble.choices import (
    AssembleChoices,
    SearchScope,
    assembly_options,
    merges_by_default,
    tuned_retrieval,
)
from core.operations.assemble.run import Assembly, AssemblyOptions, ask, assemble
from core.operations.presets import BUILTIN_PRESETS
from core.retrieval.modes import RANK_MODES
from core.retrieval.pack import Pack
from core.store.info import ChunkSetInfo
from ui.answer import show_answer
from ui.front_matter import include_front_matter
from ui.ingest_run import ingest_with_progress
from ui.llm_warnings import show_warnings
from ui.long_run import run_live
from ui.page_view import show_on_page
from ui.persist import keep_offered, kept, remember
from ui.render import Bar, HighlightSpan, highlight_html, md_escape, palette, strip_html
from ui.resources import (
    answer_settings,
    chunk_store,
    embedding_settings,
    html_by_content,
    library,
    llm_settings,
    prompt_library,
    rerank_settings,
)
from ui.state import answered_without_key, show_error, warn_missing_key
from ui.wording import count

SOURCE_MARGIN = 160  # characters of the document shown around a pack's spans
BAR_COLORS = {"base prompt": "#8a94a6", "context kept": "#4c8bf5",
              "left for the answer": "#e3e8ef", "budget unused": "#f2b84b",
              "dropped": "#e5736b"}
QUICK_START_PRESET = "recursive 500/50"  # the best pooled recall on the Evaluate page
FOLLOWED = "_assemble_tuned"  # the set whose tuned k and autocut were last put in the inputs
ANSWERS = "assemble_answers"  # session key: {(set name, prompt JSON): AnswerRun}


def _document(doc_id: str) -> Document | None:
    """A library document, or None when it is not in the library (any more)."""
    try:
        return library().get(doc_id)
    except (KeyError, ChunkLabError):
        return None


def _doc_text(doc_id: str) -> tuple[str, str] | None:
    """(source name, text) of a library document, or None when it is not in the library."""
    doc = _document(doc_id)
    return None if doc is None else (doc.source_name, doc.text)


def _doc_names() -> dict[str, str]:
    return {d.doc_id: d.source_name for d in library().documents()}


def _source_name(doc_id: str) -> str:
    found = _doc_text(doc_id)
    return found[0] if found else doc_id


def _source_html(pack: Pack, mark: str, color: str) -> str:
    """The pack's spans in their place in the document (held by content: a new question often
    brings back the same packs)."""
    return html_by_content("pack source", (pack.doc_id, pack.spans, pack.text, mark, color),
                           lambda: _draw_source(pack, mark, color))


def _draw_source(pack: Pack, mark: str, color: str) -> str:
    found = _doc_text(pack.doc_id)
    if found is None:
        return highlight_html(pack.text, [HighlightSpan(0, len(pack.text), color, mark)],
                              height_px=260)
    _, text = found
    lo = max(0, pack.spans[0][0] - SOURCE_MARGIN)
    hi = min(len(text), pack.spans[-1][1] + SOURCE_MARGIN)
    spans = [HighlightSpan(s - lo, e - lo, color, mark if n == 0 else "",
                           tooltip=f"characters {s:,}–{e:,}")
             for n, (s, e) in enumerate(pack.spans)]
    return highlight_html(text[lo:hi], spans, height_px=260)


def _budget_chart(budget: Budget) -> str:
    """The prompt's budget as one stacked bar, with the context size and the headroom marked:
    its segments add up to the figures above it."""
    bars, legend, at = [], [], 0
    for label, value in budget.segments():
        if value:
            said = f"{label} ({value:,}"
            if label == "left for the answer":
                said += f", of which the headroom {budget.headroom_tokens:,}"
            bars.append(Bar("prompt", at, value, BAR_COLORS[label], said.replace(" (", ": ", 1)))
            legend.append((said + ")", BAR_COLORS[label]))
            at += value
    marks = []
    headroom = budget.headroom_mark()
    if budget.context_tokens is not None and headroom is not None:
        marks = [(headroom, f"headroom: the answer keeps at least the last "
                            f"{budget.headroom_tokens:,}"),
                 (budget.context_tokens, f"context size {budget.context_tokens:,}")]
    length = max(at, budget.context_tokens or 0)
    return strip_html(["prompt"], bars, length, axis=budget.unit, marks=marks, legend=legend)


def _anchor(slot: str, n: int) -> str:
    return f"cite-{slot}-{n}"


def _merge_key(info: ChunkSetInfo) -> str:
    """The merge switch's key for a chunk set (kept per set)."""
    return kept(f"assemble_merge:{info.name}", merges_by_default(info))


def _follow_tuned(info: ChunkSetInfo) -> int:
    """Put a tuned set's k (the limit) and autocut in the inputs once, when the set is chosen;
    the autocut floor to use (0 for another set)."""
    tuned = tuned_retrieval(info)
    if tuned is None:
        return 0
    if st.session_state.get(FOLLOWED) != info.name:
        st.session_state[FOLLOWED] = info.name
        remember("assemble_limit", tuned.limit)
        remember("assemble_autocut", tuned.autocut)
    return tuned.floor


def _controls(documents: dict[str, str], merge_key: str, floor: int = 0
              ) -> tuple[str, AssemblyOptions]:
    """Every input of the page, kept for the session (the question across restarts too)."""
    merge = bool(st.session_state[merge_key])
    st.text_area("Question", key=kept("assemble_question", "", durable=True), height=80,
                 placeholder="e.g. What does the policy pay for water damage?")
    c1, c2, c3, c4 = st.columns(4)
    c1.selectbox("Rank", RANK_MODES, key=kept("assemble_rank", RANK_MODES[0]),
                 help="vector: Chroma similarity · bm25: lexical · hybrid: reciprocal rank fusion")
    c2.number_input("Limit (hits)", 1, 50, key=kept("assemble_limit", 5))
    c3.number_input("Neighbours per hit", 0, 5, key=kept("assemble_neighbors", 0),
                    disabled=merge,
                    help="Chunks added on each side of a hit, merged into contiguous spans "
                         "(not with neighbouring hits merged).")
    budget = default_budget(llm_settings())
    use_context_key = kept("assemble_use_context", False)
    by_context = bool(st.session_state[use_context_key])
    # One number, read by the rule in force: the label says what it sets under that rule (the
    # key, not the label, is the widget's identity, so the value stays when the rule changes).
    c4.number_input("Headroom for the answer (tokens)" if by_context
                    else "Passage budget (tokens)", 0, 100_000, step=50,
                    key=kept("assemble_headroom", budget.tokens),
                    help="The tokens the prompt leaves free in the context size for the answer: "
                         "passages are kept while they fit the rest."
                    if by_context else md_escape(
                        "The most tokens the reference passages may take: the best ones are "
                        "kept while they fit. By default the passage budget Tune uses, "
                        f"{budget.source}. With the budget by context size on, this box is the "
                        "headroom kept for the answer instead."))
    d1, d2, d3, d4 = st.columns(4)
    d1.selectbox("Style", STYLES, key=kept("assemble_style", STYLES[0]))
    d2.selectbox("Citation style", CITATION_STYLES,
                 key=kept("assemble_citation_style", CITATION_STYLES[0]),
                 help="numeric: [¹] [²] … · footnote: [^1] [^2] … with a footnote list")
    d3.selectbox("Token estimate", ESTIMATORS, key=kept("assemble_estimator", ESTIMATORS[0]),
                 help="tiktoken counts, or characters counted as tokens")
    d4.selectbox("System prompt", ["library", "builtin"],
                 key=kept("assemble_system", "library", durable=True),
                 format_func={"builtin": "built-in (of the style)",
                              "library": "the answer prompt (Prompts page)"}.get,
                 help="The answer prompt is the one the Prompts page edits and answer runs "
                      "send; the built-in one is the style's (a summary's).")
    e1, e2, e3 = st.columns([1, 1, 2])
    use_context = e1.toggle("Budget by context size", key=use_context_key,
                            help="Off: the passages may use the passage budget, whatever the "
                                 "model's context size. On: they fill the context size less "
                                 "the headroom kept for the answer.")
    e2.number_input("Context size (tokens)", 256, 2_000_000, step=1024,
                    key=kept("assemble_context", _default_context()), disabled=not use_context)
    e3.text_input("Locale (library prompt)", key=kept("assemble_locale", "", durable=True),
                  placeholder="e.g. ja")
    f1, f2 = st.columns(2)
    f1.toggle("Merge neighbouring hits into one passage", key=merge_key,
              help="Small-to-big: hits next to each other in their document come back as one "
                   "pack, so a passage told across small chunks is cited once. On at first for "
                   "a set built with the small-to-big preset.")
    rerank = rerank_settings()
    f2.toggle(md_escape(f"Rerank the top {rerank.top_n} with {rerank.ref().label}")
              if rerank.configured else "Rerank the best hits",
              key=kept("assemble_rerank", False),
              disabled=not rerank.configured,
              help="A /v1/rerank endpoint reorders the best hits before the limit cuts them."
                   if rerank.configured else "Set a reranking endpoint on Settings first.")
    g1, g2 = st.columns(2)
    g1.toggle("Autocut: stop at the first large drop in score",
              key=kept("assemble_autocut", False),
              help="Keep the ranked hits only up to the first large drop in their scores "
                   "(after any reranking) instead of always the limit (the limit is then the "
                   "most).")
    include_front_matter("assemble_front_matter", where=g2, durable=False)
    docs_key = kept("assemble_docs", [])
    keep_offered(docs_key, documents)
    scope = SearchScope.of(documents, library().sample_ids())
    st.multiselect("Only these documents", list(documents), key=docs_key,
                   format_func=lambda d: documents[d] + (" (sample)" if d in scope.samples
                                                         else ""),
                   placeholder="your documents in the chunk set (samples only when chosen)"
                   if scope.mixed else "every document in the chunk set",
                   help="Retrieve from the chosen documents only; empty: from all of yours "
                        "(the shipped samples too when the set holds nothing else).")
    s = st.session_state
    choices = AssembleChoices(
        ranking=s["assemble_rank"], limit=int(s["assemble_limit"]),
        neighbors=int(s["assemble_neighbors"]), headroom=int(s["assemble_headroom"]),
        style=s["assemble_style"], citation_style=s["assemble_citation_style"],
        estimator=s["assemble_estimator"], system=s["assemble_system"],
        use_context=use_context, context_tokens=int(s["assemble_context"]),
        locale=s["assemble_locale"], chosen_docs=tuple(s[docs_key]), merge=merge,
        autocut=bool(s["assemble_autocut"]), tuned_floor=floor,
        rerank=bool(s["assemble_rerank"]), rerank_configured=rerank.configured,
        include_front_matter=bool(s["assemble_front_matter"]))
    return s["assemble_question"].strip(), assembly_options(choices, scope)


def _default_context() -> int:
    return llm_settings().context_tokens


def _show_packs(slot: str, packs: list[Pack], assembled: AssembledPrompt) -> None:
    by_pack = {c.pack_id: (n, c) for n, c in enumerate(assembled.citations, start=1)}
    dropped = set(assembled.dropped_pack_ids)
    ranked = sorted(packs, key=lambda p: (p.id in dropped, -p.score, p.order))
    for i, pack in enumerate(ranked):
        found = _doc_text(pack.doc_id)
        source = found[0] if found else pack.doc_id
        path = " > ".join(pack.heading_path) or "(no heading)"
        if pack.id in by_pack:
            n, citation = by_pack[pack.id]
            st.subheader(f"{citation.marker} {md_escape(source)}", anchor=_anchor(slot, n))
        else:
            st.subheader(f":material/content_cut: Dropped · {md_escape(source)}", anchor=False)
        st.caption(f"score {pack.score:.4f} · {md_escape(path)} · "
                   f"{page_label(pack.pages) or characters_label(pack.spans)} · "
                   f"{count(len(pack.chunk_ids), 'chunk')}",
                   help=characters_label(pack.spans) if pack.pages else None)
        mark = by_pack[pack.id][1].marker if pack.id in by_pack else "dropped"
        st.html(_source_html(pack, mark, palette(i) if pack.id in by_pack else "#eeeeee"))
        doc = _document(pack.doc_id)
        if doc is not None:
            show_on_page(doc, pack.spans, key=f"assemble_page_{slot}_{pack.id}")


def _show_prompt(slot: str, assembled: AssembledPrompt) -> None:
    st.markdown("**System prompt**")
    st.code(assembled.prompt.system, language=None, wrap_lines=True, height=160)
    st.markdown("**User prompt**")
    st.code(assembled.prompt.user, language=None, wrap_lines=True, height=320)
    if assembled.citations:
        st.markdown("**Citation map** (each marker links to its source below)")
        st.markdown("\n".join(
            f"- [{c.marker}](#{_anchor(slot, n)}) "
            f"**{md_escape(c.source or _source_name(c.doc_id))}** · "
            f"{md_escape(' > '.join(c.heading_path)) or '(no heading)'} · "
            f"{_place(c, _anchor(slot, n))} · document id `{c.doc_id}`"
            for n, c in enumerate(assembled.citations, start=1)
        ))


def _place(citation: Citation, anchor: str) -> str:
    """Where a citation's source is, as a reader looks it up: its pages, the characters in the
    tooltip (the characters alone for a source without pages)."""
    characters = characters_label(citation.span_offsets)
    if not citation.pages:
        return characters
    return f'[{page_label(citation.pages)}](#{anchor} "{characters}")'


def _ask(slot: str, name: str, assembled: AssembledPrompt) -> None:
    settings = llm_settings()
    if not settings.configured:
        st.info(md_escape(settings.missing_message()))
        return
    notice = st.container()  # filled after the request: a success shows the key is not needed
    answers = st.session_state.setdefault(ANSWERS, {})
    key = (name, assembled.model_dump_json())
    answer = answer_settings()
    if st.button("Ask the LLM", key=f"ask_{slot}", type="primary"):
        templates = prompt_library()
        run = run_live(lambda live: ask(assembled, settings, answer, templates,
                                           cancel=live.cancel,
                                           listener=live.listener(stream=True)),
                          key=f"ask_cancel_{slot}", stream=True).result
        if run is not None:
            answers[key] = run
            answered_without_key(settings)
    with notice:
        warn_missing_key(settings)
    if key in answers:
        run = answers[key]
        st.caption(md_escape(run.took()))
        show_answer(run.text, run.check, lambda n: _anchor(slot, n))


def _panel(slot: str, name: str, question: str, options: AssemblyOptions) -> None:
    try:
        result: Assembly = assemble(question, name, options, store=chunk_store(),
                                    library=prompt_library(), doc_names=_doc_names(),
                                    embedding=embedding_settings(),
                                    reranking=rerank_settings())
    except ChunkLabError as err:
        show_error(err)
        return
    packs, assembled = result.packs, result.assembled
    budget = assembled.budget
    m1, m2, m3 = st.columns(3)
    m1.metric("Packs kept", f"{budget.packs_kept} / {len(packs)}")
    m2.metric("Prompt size", f"{assembled.tokens_estimated:,}")
    m3.metric("Left for the answer",
              "—" if budget.left_for_answer is None else f"{budget.left_for_answer:,}",
              help=None if budget.left_for_answer is None else
              f"The context size less the prompt; the headroom of {budget.headroom_tokens:,} "
              "is part of it, kept for the answer whatever the packs.")
    st.html(_budget_chart(assembled.budget))
    st.caption(budget.explain())
    keep_one = budget.to_keep_one()
    if keep_one:
        st.warning(md_escape(keep_one))
    elif budget.over_budget:
        st.warning("The base prompt and the headroom alone exceed the context size: no pack fits.")
    if not packs:
        st.info("Nothing retrieved for this question; the prompt is the question alone.")
    if result.set_apart.chunks:
        st.caption(f"{result.set_apart.sentence()}: covers, contents and indexes answer no "
                   "question (tick “Include front matter” to retrieve them).")
    st.download_button("Export as JSON",
                       json.dumps(result.export(question, options), ensure_ascii=False, indent=2),
                       file_name=f"assembled-{name}.json", mime="application/json",
                       key=f"export_{slot}")
    st.markdown("#### Prompt")
    _show_prompt(slot, assembled)
    st.markdown("#### Answer")
    _ask(slot, name, assembled)
    st.markdown("#### Sources")
    _show_packs(slot, packs, assembled)


def _quick_start() -> None:
    """No chunk set yet: offer to build one from the user's documents in one click."""
    st.info("No chunk sets yet. Build one here from your documents (the shipped samples while "
            "you have none of your own), or create your own on the **Chunk sets** page (pick "
            "documents and a chunking strategy).",
            icon=":material/database:")
    documents = library().default_documents()
    if not documents:
        st.caption("The library is empty: add documents on the **Documents** page first.")
        return
    preset = BUILTIN_PRESETS[QUICK_START_PRESET]
    samples = {d.doc_id for d in documents} <= library().sample_ids()
    whose = "the {} sample document" if samples else "your {} document"
    label = (f"Build “{QUICK_START_PRESET}” from {whose.format(len(documents))}"
             f"{'s' if len(documents) != 1 else ''} and make it active")
    if not st.button(label, key="assemble_quick_start", type="primary"):
        return
    summary = ingest_with_progress(documents, QUICK_START_PRESET, preset.strategy,
                                   dict(preset.settings),
                                   description="built by the Assemble quick start")
    if summary is None:
        return
    show_warnings(summary.notes, key="assemble")
    if summary.failed:
        st.error(md_escape(" ".join(f"{name}: {error}" for name, error in summary.failed)))
    if summary.documents:
        chunk_store().activate(summary.chunk_set)
        st.rerun()


def main() -> None:
    st.title("Assemble")
    st.caption("Retrieve packs from a chunk set, build the RAG prompt with numbered citations "
               "and a token budget, and check an LLM answer's citations.")
    try:
        store = chunk_store()
        sets = store.list_sets()
        active = store.active_set()
    except ChunkLabError as err:
        show_error(err)
        return
    if not sets:
        _quick_start()
        return
    names = [s.name for s in sets]
    first = names.index(active) if active in names else 0
    left, right = st.columns([3, 1])
    compare = right.toggle("A/B: compare two sets", key=kept("assemble_ab", False),
                           disabled=len(names) < 2)
    failed = {info.name: f" ({info.documents_text()})" for info in sets if info.failed}
    chosen = [left.selectbox("Chunk set", names,
                             key=kept("assemble_set_a", names[first], valid=names),
                             format_func=lambda n: n + (" (active)" if n == active else "")
                             + failed.get(n, ""))]
    if compare and len(names) > 1:
        chosen.append(left.selectbox(
            "Second chunk set", names,
            key=kept("assemble_set_b", names[(first + 1) % len(names)], valid=names),
            format_func=lambda n: n + failed.get(n, "")))
    in_sets = [d for info in sets if info.name in chosen for d in info.doc_ids]
    kept_names = {d: n for info in sets if info.name in chosen for d, n in info.doc_names.items()}
    first_set = next(info for info in sets if info.name == chosen[0])
    merge_key, floor = _merge_key(first_set), _follow_tuned(first_set)
    question, options = _controls(
        {d: kept_names.get(d) or _source_name(d) for d in dict.fromkeys(in_sets)}, merge_key,
        floor)
    if not question:
        st.info("Type a question to retrieve and assemble a prompt.")
        return
    columns = st.columns(len(chosen))
    for slot, name, column in zip("ab", chosen, columns, strict=False):
        with column:
            if len(chosen) > 1:
                st.subheader(f"{slot.upper()}: {md_escape(name)}")
            _panel(slot, name, question, options)


main()

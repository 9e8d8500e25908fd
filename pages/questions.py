"""Question sets: generate one from your documents with the LLM, review each question with its
excerpt highlighted, edit, delete, add by selecting text, save, import and export as CSV."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from core.documents.model import Document
from core.errors import ChunkLabError
from core.evaluation.questions import UNANSWERABLE, Question, parse_questions, to_csv
from core.operations.questions.check import DIFFERENCE, check_questions
from core.operations.questions.evidence import PassageIndex, evidence_for_questions
from core.operations.questions.generation import (
    DEFAULT_PER_DOC,
    MAX_UNANSWERABLE,
    GeneratedSet,
    Heard,
    generate_question_set,
    generation_estimate,
    unanswerable_counts,
)
from core.operations.questions.sets import (
    alternative_from_excerpt,
    delete_saved,
    discard_draft,
    edited_question,
    load_draft,
    make_question,
    question_from_excerpt,
    save_set,
    saved_csv,
    saved_sets,
    without_alternative,
)
from core.operations.questions.working import WorkingSet, keep
from core.operations.tune.run import tune_minimum
from ui.long_run import LiveRun, run_live
from ui.persist import keep_offered, kept
from ui.render import HighlightSpan, highlight_html, md_escape
from ui.resources import library, llm_settings, prompt_library
from ui.state import picker_key, show_error
from ui.wording import count

WORKING = "questions_working"  # the WorkingSet
DROPPED = "questions_dropped"  # the generator's report: its summary, then each question dropped
PICKED = "questions_pick"  # the index of the question being edited
FLASH = "questions_flash"  # a message to show once, after the rerun that follows a change
FAILED = "questions_failed"  # why the last generation stopped early, shown once
CHECKED = "questions_checked"  # the last check of the working set: (its questions, SetCheck)
EVIDENCE = "questions_evidence"  # the last evidence search: (its questions, SetEvidence)
SUGGESTED = "questions_suggested"  # passages for the question being added: (doc, text, passages)
EXCERPT_COLOR = "#ffe066"
CONTEXT_CHARS = 500


def _working() -> WorkingSet:
    if WORKING not in st.session_state:
        draft = load_draft()
        st.session_state[WORKING] = WorkingSet.resumed(draft)
        if draft is not None:
            st.session_state[DROPPED] = list(draft.dropped)
    working: WorkingSet = st.session_state[WORKING]
    return working


def _keep(working: WorkingSet) -> None:
    st.session_state[WORKING] = working
    keep(working, st.session_state.get(DROPPED, []))


def _replace_working(working: WorkingSet) -> None:
    _keep(working)
    st.session_state.pop(PICKED, None)


def _changed(questions: Sequence[Question]) -> None:
    _keep(_working().edited(questions))


def _may_replace() -> bool:
    """Whether opening, importing or generating may replace the working set: always, unless it
    has unsaved changes the user has not agreed to discard."""
    working = _working()
    if not working.dirty:
        return True
    return st.checkbox(f"Discard the unsaved changes to “{working.name}”",
                       key="questions_discard")


def _open_or_import(documents: dict[str, Document], free: bool) -> None:
    left, right = st.columns(2)
    names = saved_sets()
    with left:
        chosen = st.selectbox("Saved sets", names, index=None, placeholder="Pick a saved set",
                              key="questions_saved")
        if st.button("Open", key="questions_open", disabled=chosen is None or not free) \
                and chosen:
            _replace_working(WorkingSet.opened(
                chosen, parse_questions(saved_csv(chosen), chosen).questions))
    with right:
        upload = st.file_uploader("Import a CSV (question, references, corpus_id[, kind])",
                                  type=["csv"], key="questions_import")
        if upload is not None and st.button("Import", key="questions_import_go",
                                            disabled=not free):
            parsed = parse_questions(upload.getvalue(), upload.name)
            _replace_working(WorkingSet.opened(upload.name.removesuffix(".csv"),
                                               parsed.questions))
            if parsed.problems:
                st.warning(md_escape(f"{len(parsed.problems)} rows skipped: "
                                     + "; ".join(str(p) for p in parsed.problems[:5])))
    missing = sorted({cid for q in _working().questions for cid in q.corpus_ids}
                     - set(documents))
    if missing:
        st.warning(md_escape("Not in the library, so not shown: " + ", ".join(missing)))


def _check(name: str, questions: Sequence[Question], documents: dict[str, Document]) -> None:
    """What would spoil a run of the working set, found on demand."""
    with st.expander("Check the set before a run", icon=":material/fact_check:"):
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        points = left.number_input(
            "Difference in recall to tell apart (points)", 1, 50, key=kept(
                "questions_check_points", round(DIFFERENCE * 100), durable=True),
            help="How many questions the set needs is worked out for this difference.")
        if right.button("Check", key="questions_check"):
            st.session_state[CHECKED] = (questions, check_questions(
                name, questions, documents, points / 100))
        if CHECKED not in st.session_state:
            return
        checked_questions, checked = st.session_state[CHECKED]
        if checked_questions != questions:
            st.caption("The set changed since it was checked: check it again.")
        (st.warning if checked.findings else st.success)(md_escape(checked.summary()))
        st.caption(md_escape(checked.size.sentence()))
        if checked.findings:
            st.dataframe(pd.DataFrame([
                {"Row": f.row, "Finding": f.kind, "Question": f.question,
                 "Document": f.corpus_id, "Why": f.detail} for f in checked.findings]),
                hide_index=True, key="questions_check_findings")


def _evidence(name: str, questions: Sequence[Question], documents: dict[str, Document]) -> None:
    """The passages that best match each question's words, and whether its reference is one."""
    with st.expander("Find the passages that match each question", icon=":material/search:"):
        st.caption("Lexical (the question's distinctive words), never the embedder a run "
                   "evaluates, so references picked from these do not favour it.")
        if st.button("Find passages", key="questions_evidence_go"):
            st.session_state[EVIDENCE] = (questions, evidence_for_questions(
                name, questions, documents))
        if EVIDENCE not in st.session_state:
            return
        searched_questions, found = st.session_state[EVIDENCE]
        if searched_questions != questions:
            st.caption("The set changed since: find the passages again.")
        st.info(md_escape(found.summary()))
        st.dataframe(pd.DataFrame([
            {"Row": q.row, "Question": q.question, "Rank": rank, "Passage": p.text[:200],
             "Characters": f"{p.start:,}–{p.end:,}",
             "Pages": ", ".join(map(str, p.pages)), "Reference": p.reference}
            for q in found.questions for rank, p in enumerate(q.passages, 1)]),
            hide_index=True, key="questions_evidence_table")


def _generate(documents: dict[str, Document], free: bool) -> None:
    settings = llm_settings()
    with st.expander("Generate from your documents with the LLM", expanded=not saved_sets()):
        if not settings.configured:
            st.warning(md_escape(settings.missing_message()))
        picked = kept("questions_gen_docs", [], durable=True)
        keep_offered(picked, documents)
        chosen = st.multiselect("Documents", list(documents), key=picked)
        left, middle, right = st.columns(3)
        per_doc = left.number_input("Questions per document", 1, 50,
                                    key=kept("questions_gen_n", DEFAULT_PER_DOC, durable=True))
        unanswerable = middle.number_input(
            "Share unanswerable", 0.0, MAX_UNANSWERABLE, step=0.05,
            key=kept("questions_gen_unanswerable", 0.0, durable=True),
            help="Questions on a passage's subject that the documents do not answer (kind "
                 "unanswerable), so the Answers page can tell whether answers abstain. Each is "
                 "checked against the documents: one a passage answers is dropped and another "
                 "asked.")
        name = right.text_input("Set name",
                                key=kept("questions_gen_name", "generated", durable=True))
        if settings.configured and chosen:
            without = sum(unanswerable_counts(int(per_doc), len(chosen), float(unanswerable)))
            st.caption(md_escape(generation_estimate(
                len(chosen), int(per_doc), settings, prompt_library()).sentence(
                f"{int(per_doc) * len(chosen)} questions to write"
                + (f", {without} of them unanswerable" if without else ""))))
        start = st.button("Generate questions", type="primary", key="questions_generate",
                          disabled=not (settings.configured and chosen and free))
        if not start:
            return
        documents_chosen, set_name = [documents[n] for n in chosen], name.strip() or "generated"
        templates = prompt_library()
        for stale in (WORKING, PICKED, DROPPED):  # a stopped run reopens as its draft
            st.session_state.pop(stale, None)
        discard_draft()

        def work(live: LiveRun[GeneratedSet]) -> GeneratedSet:
            kept: list[Question] = []

            def heard(event: Heard) -> None:
                live.note(event.line())
                if event.question is not None:  # kept: in the draft at once
                    kept.append(event.question)
                    keep(WorkingSet.generated(set_name, kept))

            return generate_question_set(
                documents_chosen, name=set_name, per_doc=int(per_doc),
                unanswerable=float(unanswerable), settings=settings,
                library=templates, progress=live.progress, cancel=live.cancel, heard=heard,
                listener=live.listener())

        generated = run_live(work, key="questions_cancel").result
        if generated is None:
            return
        st.session_state[DROPPED] = [generated.summary(), *generated.decisions()]
        _replace_working(WorkingSet.generated(generated.questions.name,
                                              generated.questions.questions))
        if generated.failed:
            st.session_state[FAILED] = generated.failed
        st.rerun()  # draw the page with the new set (and its unsaved state) from the top


def _table(questions: Sequence[Question]) -> None:
    st.dataframe(pd.DataFrame([
        {"#": n, "Question": q.question, "Document": q.corpus_id, "Kind": q.kind,
         "Excerpt": q.references[0].content[:90] if q.references else "",
         "Alternatives": len(q.alternatives)}
        for n, q in enumerate(questions, 1)]), hide_index=True, key="questions_table")


def _highlight(document: Document, spans: list[tuple[int, int]],
               context: int = CONTEXT_CHARS, height: int = 320) -> str:
    lo = max(0, min(s for s, _ in spans) - context)
    hi = min(len(document.text), max(e for _, e in spans) + context)
    marks = [HighlightSpan(s - lo, e - lo, EXCERPT_COLOR, label="excerpt",
                           tooltip=f"characters {s:,}–{e:,}", css_class="cl-reference")
             for s, e in spans]
    return highlight_html(document.text[lo:hi], marks, height_px=height)


def _edit(questions: Sequence[Question], documents: dict[str, Document]) -> None:
    labels = [f"{n}. {q.question}" for n, q in enumerate(questions, 1)]
    key = picker_key(PICKED, labels)
    if key not in st.session_state:
        st.session_state[key] = min(st.session_state.get(PICKED, 0), len(questions) - 1)
    index = st.selectbox("Question", range(len(questions)), format_func=labels.__getitem__,
                         key=key)
    st.session_state[PICKED] = index
    question = questions[index]
    document = documents.get(question.corpus_id)
    if document is None:
        st.warning(f"{md_escape(question.corpus_id)} is not in the library; add it on Documents.")
        return
    if not question.references:
        st.caption("Unanswerable, with no excerpt: the documents do not say. Answer runs "
                   "expect the model to say so.")
        return
    reference = question.references[0]
    tag = f"{index}_{question.question}_{reference.start}_{reference.end}"
    st.html(_highlight(document, [r.span for r in question.references]))
    st.caption(md_escape("Excerpt: " + reference.content[:300]))
    with st.form(f"qe_form_{tag}", border=False):
        text = st.text_input("Question text", value=question.question, key=f"qe_text_{tag}")
        left, middle, right, last = st.columns([1, 1, 1, 1])
        start = left.number_input("Excerpt start", 0, len(document.text), reference.start,
                                  key=f"qe_start_{tag}")
        end = middle.number_input("Excerpt end", 0, len(document.text), reference.end,
                                  key=f"qe_end_{tag}")
        table = right.checkbox("Table question", value=question.kind == "table",
                               key=f"qe_kind_{tag}")
        unanswerable = last.checkbox("Unanswerable", value=not question.answerable,
                                     key=f"qe_unanswerable_{tag}",
                                     help="The documents do not answer it: a good answer says "
                                          "so, and retrieval is not scored on it.")
        applied = st.form_submit_button("Apply changes", key="questions_apply")
    if applied:
        edited = edited_question(question, document, text, int(start), int(end), UNANSWERABLE
                                 if unanswerable else "table" if table else "text")
        _changed([edited if i == index else q for i, q in enumerate(questions)])
        st.rerun()
    if question.answerable:
        _alternatives(questions, index, documents, tag)
    if st.button("Delete question", key="questions_delete"):
        _changed([q for i, q in enumerate(questions) if i != index])
        st.session_state.pop(PICKED, None)
        st.rerun()


def _alternatives(questions: Sequence[Question], index: int, documents: dict[str, Document],
                  tag: str) -> None:
    """The other places that answer the picked question as well (in its own document or
    another): listed, removed, added."""
    question = questions[index]

    def changed(edited: Question) -> None:
        _changed([edited if i == index else q for i, q in enumerate(questions)])
        st.rerun()

    st.markdown("**Alternatives** — other places that answer it as well; a run counts "
                "whichever was found best.")
    for number, option in enumerate(question.alternatives, 1):
        left, right = st.columns([4, 1], vertical_alignment="center")
        elsewhere = question.corpus_of(option[0])
        where = f", in {elsewhere}" if elsewhere != question.corpus_id else ""
        left.caption(md_escape(f"Alternative {number}{where}, characters {option[0].start:,}–"
                               f"{option[-1].end:,}: {option[0].content[:200]}"))
        if right.button("Remove", key=f"questions_alt_remove_{number}"):
            changed(without_alternative(question, number))
    names = [question.corpus_id, *(n for n in documents if n != question.corpus_id)]
    with st.form(f"qe_alt_form_{tag}", border=False):
        name = st.selectbox("Document", names, key=f"qe_alt_doc_{tag}",
                            help="Where the excerpt lies: the question's own document, or "
                                 "another that answers it as well (a clause repeated in two "
                                 "documents).")
        excerpt = st.text_area("Another excerpt that answers it", height=70,
                               key=f"qe_alt_excerpt_{tag}")
        added = st.form_submit_button("Add alternative", key="questions_alt_add")
    if added:
        changed(alternative_from_excerpt(question, documents[name], excerpt))


def _add(documents: dict[str, Document]) -> None:
    with st.expander("Add a question by selecting its excerpt"):
        name = st.selectbox("Document", list(documents), key="questions_add_doc")
        document = documents[name]
        st.caption("Copy the answering text from the document into the excerpt box (spaces and "
                   "capitals may differ), or give its character range.")
        excerpt = st.text_area("Excerpt", key="questions_add_excerpt", height=90)
        left, right = st.columns(2)
        start = left.number_input("or start", 0, len(document.text), 0, key="questions_add_start")
        end = right.number_input("end", 0, len(document.text), 0, key="questions_add_end")
        if end > start:
            st.html(_highlight(document, [(int(start), int(end))]))
        text = st.text_input("Question", key="questions_add_text")
        table = st.checkbox("Table question", key="questions_add_kind")
        kind = "table" if table else "text"
        left, right = st.columns(2)
        if left.button("Add question", key="questions_add"):
            _added(question_from_excerpt(document, text, excerpt, kind) if excerpt.strip()
                   else make_question(document, text, int(start), int(end), kind))
        if right.button("Suggest passages", key="questions_suggest", disabled=not text.strip(),
                        help="The passages of the document that best match the question's "
                             "words (lexical), to add it with one of them as its excerpt."):
            st.session_state[SUGGESTED] = (name, text, PassageIndex(document).best(text))
        _suggested(document, text, kind)


def _suggested(document: Document, text: str, kind: str) -> None:
    """The passages suggested for the question being added, each ready to be its excerpt."""
    name, asked, passages = st.session_state.get(SUGGESTED, ("", "", []))
    if name != document.source_name or asked != text:
        return
    if not passages:
        st.caption("No passage shares a content word with the question.")
    for rank, passage in enumerate(passages, 1):
        pages = f", pages {', '.join(map(str, passage.pages))}" if passage.pages else ""
        st.caption(md_escape(f"Passage {rank}: characters {passage.start:,}–{passage.end:,}"
                             f"{pages}"))
        st.html(_highlight(document, [(passage.start, passage.end)], 80, 170))
        if st.button(f"Add with passage {rank}", key=f"questions_suggest_use_{rank}"):
            _added(make_question(document, text, passage.start, passage.end, kind))


def _added(question: Question) -> None:
    _changed([*_working().questions, question])
    st.session_state.pop(SUGGESTED, None)
    st.session_state[FLASH] = f"Added: {question.question}"
    st.rerun()


def _save(questions: Sequence[Question]) -> None:
    working = _working()
    left, middle, right = st.columns([2, 1, 1])
    name = left.text_input("Name", value=working.name, key=f"questions_name_{working.name}")
    middle.write("")
    if middle.button("Save", type="primary", key="questions_save", disabled=not questions):
        path = save_set(name.strip(), questions)
        working = working.saved(name.strip())
        _keep(working)
        st.success(md_escape(f"Saved {len(questions)} questions as “{name.strip()}” "
                             f"({path.name}); Evaluate lists it under saved sets."))
    right.write("")
    right.download_button("Export CSV", to_csv(questions), file_name=f"{name.strip()}.csv",
                          mime="text/csv", key="questions_export", disabled=not questions)
    if working.dirty:
        st.caption("Unsaved changes, kept as a draft in the data folder until you save or "
                   "discard them.")
        if st.button("Discard the draft", key="questions_discard_draft"):
            _replace_working(WorkingSet())
            st.session_state.pop(DROPPED, None)
            st.rerun()
    if name.strip() in saved_sets():
        sure = st.checkbox(f"Delete the saved set “{name.strip()}” for good",
                           key="questions_drop_sure")
        if st.button("Delete the saved set", key="questions_drop", disabled=not sure):
            delete_saved(name.strip())
            st.rerun()


st.title("Question sets")
st.caption("Questions about your own documents, each answered by an exact excerpt, to evaluate "
           "chunkings on the text you care about. " + tune_minimum())
documents = {d.source_name: d for d in library().documents()}
if not documents:
    st.info("No documents yet: add some on the **Documents** page.")
    st.stop()
try:
    free = _may_replace()
    _open_or_import(documents, free)
    _generate(documents, free)
except ChunkLabError as err:
    show_error(err)
if st.session_state.get(DROPPED):
    dropped = st.session_state[DROPPED]
    with st.expander(dropped[0], icon=":material/warning:"):  # asked, kept and dropped
        st.text("\n".join(dropped[1:]))

if FLASH in st.session_state:
    st.success(md_escape(st.session_state.pop(FLASH)))
if FAILED in st.session_state:
    st.error(md_escape(f"The model server failed, so generation stopped early; the questions "
                       f"kept before are below. {st.session_state.pop(FAILED)}"),
             icon=":material/error:")
working = _working()
questions = working.questions
st.subheader(f"{working.name} · {count(len(questions), 'question')}")
try:
    if questions:
        _table(questions)
        _check(working.name, questions, documents)
        _evidence(working.name, questions, documents)
        _edit(questions, documents)
    _add(documents)
    _save(_working().questions)
except ChunkLabError as err:
    show_error(err)

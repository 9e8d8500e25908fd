"""Chunk sets: several chunkings of the library side by side, one of them active.

Create a set from the library with a configuration (progress per batch), cut over to it, roll
back to the previous one, delete with confirmation.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.documents.model import Document
from core.embeddings.identity import EmbedderRef
from core.embeddings.settings import choices
from core.errors import ChunkLabError
from core.operations.chunk_review import share
from core.operations.ingest import chunk_sets
from core.operations.ingest.run import DEFAULT_BATCH_SIZE, check_set_name
from core.operations.presets import Preset, all_presets
from core.operations.strategies import RunOptions, describe_settings, llm_estimate, strategy
from core.store.info import ChunkSetInfo
from ui.chunk_map import show_set_map
from ui.ingest_run import IngestJob, ingest_with_progress
from ui.llm_warnings import show_failed_documents, show_warnings
from ui.persist import forget, keep_offered, kept, remember
from ui.render import md_escape
from ui.resources import chunk_store, embedding_settings, library, llm_settings, prompt_library
from ui.settings_form import configuration_editor
from ui.state import show_error
from ui.store_status import show_store_status
from ui.wording import count, number

CONFIRM = "store_confirm_delete"  # session key: name of the set awaiting delete confirmation
NOTICE = "store_notice"  # session key: a success sentence to show after the rerun
WARNINGS = "store_warnings"  # session key: the last run's warnings, shown after the rerun
RUNNING = "store_running"  # session key: the IngestJob being built
EMBEDDER_FROM = "store_embedder_from"  # session key: the preset the embedder last followed
DEFAULT_PRESET = "recursive 500/50"


def _embedder_text(info: ChunkSetInfo) -> str:
    """``MiniLM (built-in), 384-d`` or ``nomic-embed-text @ host:11434, 768-d``."""
    ref = info.embedder_ref
    return f"{ref.label}, {info.dimension}-d" if info.dimension else ref.label


# Widths in pixels that fit the whole table in a 1,400-pixel window (without them the last
# columns were cut off); a long cell's full text shows on hover.
SETS_COLUMNS = {name: st.column_config.TextColumn(width=width) for name, width in {
    "Active": 50, "Name": 130, "Strategy": 75, "Settings": 140, "Description": 90,
    "Documents": 80, "Chunks": 55, "Embedder": 115, "Text read": 70, "Created": 115}.items()}


def sets_table(infos: list[ChunkSetInfo], active: str | None) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "Active": "●" if info.name == active else "",
                "Name": info.name,
                "Strategy": info.strategy,
                "Settings": describe_settings(info.strategy, info.settings),
                "Description": info.description,
                "Documents": info.documents_text() if info.failed else number(info.docs),
                "Chunks": number(info.chunks),
                "Embedder": _embedder_text(info),
                # MiniLM's share; an endpoint's limit is its own: not counted
                "Text read": _read_text(info) if info.embedder_ref.builtin else "—",
                "Created": info.created[:16].replace("T", " "),
            }
            for info in infos
        ]
    )


def show_sets(sets: chunk_sets.ChunkSets) -> None:
    infos = sets.infos
    st.dataframe(sets_table(infos, sets.active), hide_index=True, width="stretch",
                 column_config=SETS_COLUMNS)
    st.caption("Text read: the share of the chunks' text MiniLM embeds (a chunk longer than it "
               "reads at once is embedded in overlapping windows; a table embedded by its "
               "summary is not read).")
    for info in infos:
        name = md_escape(info.name)
        show_failed_documents(info)
        if info.failed and st.button(f"Retry failed documents of “{info.name}”",
                                     key=f"store_retry_{info.name}", icon=":material/replay:",
                                     disabled=isinstance(st.session_state.get(RUNNING),
                                                         IngestJob)):
            retry(info)
        if info.stale:
            st.warning(
                f"“{name}” was embedded the way an older ChunkLab did (before long chunks were "
                "read in windows), so retrieval from it differs from what the Evaluate page "
                "measures. Create it again under a new name to re-process it.",
                icon=":material/history:",
            )
        read = info.read_share
        if info.over_limit and (read is None or read < 1):
            st.warning(
                f"“{name}”: {info.over_limit:,} of {info.chunks:,} chunks were embedded "
                f"truncated at MiniLM's {info.word_piece_limit:,} word pieces (longest "
                f"{info.max_word_pieces:,}), so their tails do not count for retrieval"
                + ("." if read is None else
                   f" (the embedder read {md_escape(share(read))} of the set's text)."),
                icon=":material/content_cut:",
            )
        elif info.windowed:
            st.caption(
                f"“{name}”: {info.windowed:,} of {info.chunks:,} chunks are longer than "
                f"MiniLM's {info.word_piece_limit:,} word pieces (longest "
                f"{info.max_word_pieces:,}); each is embedded in overlapping windows and "
                "scores its best one, so every word is read."
            )


def _read_text(info: ChunkSetInfo) -> str:
    read = info.read_share
    return "–" if read is None else share(read)


def retry(info: ChunkSetInfo) -> None:
    """Ingest again exactly the set's failed documents that are still in the library."""
    in_library = {d.doc_id for d in library().documents()}
    doc_ids = [f.doc_id for f in info.failed if f.doc_id in in_library]
    if not doc_ids:
        st.session_state[NOTICE] = (f"The documents that failed in “{info.name}” are no longer "
                                    "in the library: add them again on the Documents page.")
    else:
        st.session_state[RUNNING] = IngestJob(info.name, info.strategy, dict(info.settings),
                                              doc_ids, DEFAULT_BATCH_SIZE, info.description)
    st.rerun()


def cutover(sets: chunk_sets.ChunkSets) -> None:
    st.subheader("Active set")
    infos, active, previous = sets.infos, sets.active, sets.previous
    if active:
        st.success(f"Retrieval uses **{md_escape(active)}**.", icon=":material/toggle_on:")
    else:
        st.info("No set is active yet: retrieval has nothing to use until you activate one.")
    others = [info.name for info in infos if info.name != active]
    left, right = st.columns(2)
    with left:
        if others:
            labels = {info.name: f"{info.name} ({info.documents_text()})" for info in infos}
            target = st.selectbox("Switch to", others, key="store_target",
                                  format_func=labels.__getitem__)
            if st.button("Activate (cut over)", key="store_activate", type="primary"):
                st.session_state[NOTICE] = chunk_sets.cutover(chunk_store(), target)
                st.rerun()
    with right:
        if previous and previous != active:
            st.caption(f"Previous set: {md_escape(previous)}")
            if st.button(f"Roll back to “{previous}”", key="store_rollback"):
                st.session_state[NOTICE] = chunk_sets.rollback(chunk_store())
                st.rerun()


def unique_name(label: str, names: set[str]) -> str:
    """``label``, or ``label (2)``, ``label (3)``… when a set already has that name."""
    if label not in names:
        return label
    return next(f"{label} ({n})" for n in range(2, len(names) + 3) if f"{label} ({n})" not in names)


def name_input(suggested: str, names: set[str]) -> str:
    """The set's name: the one typed, else the preset's, shown in the empty box. The suggestion
    is never put in the box from code: a run still on its way to the browser (a preset or
    strategy just picked) would then replace what the user has typed meanwhile."""
    auto = unique_name(suggested, names)
    typed = st.text_input("Name", key=kept("store_name"), placeholder=auto,
                          help="Left empty, the set takes the name shown in grey (the "
                               "preset's).")
    return str(typed).strip() or auto


def embedder_input(preset: Preset | None) -> EmbedderRef:
    """The embedder of the new set: MiniLM, or the endpoint configured on Settings. A preset
    saved with its embedder puts it in when it is picked (it may be changed after)."""
    settings = embedding_settings()
    refs = {ref.label: ref for ref in choices(settings)}
    labels = list(refs)
    key = kept("store_embedder", labels[0], valid=labels)
    own = preset.embedder if preset else None
    picked = preset.name if preset else None
    if st.session_state.get(EMBEDDER_FROM) != picked:
        st.session_state[EMBEDDER_FROM] = picked
        if own is not None and own.label in refs:
            remember(key, own.label)
    st.selectbox("Embedder", labels, key=key,
                 help="The model that embeds the chunks and every question asked of the set. "
                      "Your own endpoint is set on Settings (Embeddings).")
    if own is not None and own.label not in refs:
        st.caption(md_escape(f"“{picked}” was saved with {own.label}, which is not the "
                             "endpoint set on Settings: the set is embedded with the one "
                             "chosen here."))
    elif len(labels) == 1:
        st.caption("Only the built-in MiniLM is available: set an embedding endpoint on "
                   "Settings to embed with your own model.")
    return refs[st.session_state[key]]


def create_form(names: set[str]) -> None:
    st.subheader("New chunk set")
    documents = library().documents()
    if not documents:
        st.info("The library is empty: add documents on the **Documents** page first.")
        return
    if isinstance(job := st.session_state.get(RUNNING), IngestJob):
        run_job(job, {d.doc_id: d for d in documents})
        return
    config = configuration_editor("store", all_presets(), DEFAULT_PRESET, label="Preset")
    by_id = {d.doc_id: d for d in documents}
    samples = library().sample_ids()
    docs_key = kept("store_docs", [d.doc_id for d in library().default_documents()])
    keep_offered(docs_key, by_id)
    chosen = st.multiselect(
        "Documents", list(by_id), key=docs_key,
        format_func=lambda i: by_id[i].source_name + (" (sample)" if i in samples else ""),
        help="Your documents; the shipped samples only when you choose them (or while you "
             "have none of your own).")
    left, right = st.columns([3, 1])
    with left:
        name = name_input(config.label, names)
    batch_size = right.number_input("Batch size (documents)", min_value=1, max_value=100,
                                    key=kept("store_batch", DEFAULT_BATCH_SIZE),
                                    help="Documents chunked and stored together; a stopped "
                                         "run resumes after the last stored batch.")
    description = st.text_input("Description", key=kept("store_description"),
                                placeholder="What this set is for")
    st.caption("A new set leaves every other set as it is; activate it when you are ready "
               "(cutover). Documents already in a set of that name are skipped, so a "
               "re-run resumes.")
    embedder = embedder_input(config.preset)
    check = check_set_name(chunk_store(), name, config.strategy, config.settings, embedder)
    problem, blocking = check.problem, check.blocking
    confirmed = True
    if problem and blocking:
        st.error(md_escape(problem), icon=":material/error:")
    elif problem:
        st.warning(md_escape(problem), icon=":material/warning:")
        confirmed = st.checkbox(f"Add to “{name}”", key="store_confirm_existing")
    needs_llm = strategy(config.strategy).needs_llm
    settings = llm_settings()
    if needs_llm and not settings.configured:
        st.info(md_escape(settings.missing_message()), icon=":material/power_off:")
    elif needs_llm and chosen:
        _show_estimate([by_id[i] for i in chosen if i in by_id], config.strategy,
                       dict(config.settings))
    ready = bool(chosen) and not blocking and confirmed and (
        not needs_llm or settings.configured)
    if st.button("Create and ingest", key="store_create", type="primary", disabled=not ready):
        st.session_state[RUNNING] = IngestJob(name, config.strategy, dict(config.settings),
                                              list(chosen), int(batch_size), description,
                                              embedder)
        st.rerun()


def _show_estimate(documents: list[Document], strategy_name: str,
                   settings: dict[str, object]) -> None:
    """The model calls the chunking will make and their time, before it starts."""
    try:
        planned = llm_estimate(documents, strategy_name, settings, RunOptions(
            llm=llm_settings(), library=prompt_library()))
    except ChunkLabError as err:  # settings the form will refuse anyway
        show_error(err)
        return
    if planned is not None:
        st.caption(md_escape(planned.sentence()))


def run_job(job: IngestJob, by_id: dict[str, Document]) -> None:
    """Build the set behind a progress bar; the form is replaced by what is being built and a
    Cancel button (what is stored by then stays: creating the set again resumes)."""
    if st.session_state.get("store_cancel"):
        st.session_state.pop(RUNNING, None)
        st.session_state[NOTICE] = (f"Stopped building “{job.name}”: the documents stored so far "
                                    "stay; create it again with the same name to go on.")
        st.rerun()
    st.info(f"Building **{md_escape(job.name)}**: " + md_escape(
                f"{job.strategy} chunking of {count(len(job.doc_ids), 'document')}, embedded "
                f"with {job.embedder.label}.")
            + " The form is back when it is done.",
            icon=":material/hourglass_top:")
    documents = [by_id[i] for i in job.doc_ids if i in by_id]
    summary = ingest_with_progress(documents, job.name, job.strategy, job.settings,
                                   batch_size=job.batch_size, description=job.description,
                                   embedder=job.embedder, cancel_key="store_cancel")
    st.session_state.pop(RUNNING, None)
    if summary is None:
        return
    st.session_state[NOTICE] = summary.sentence()
    st.session_state[WARNINGS] = summary.notes  # failures and truncation: the set list says it
    forget("store_name")
    st.rerun()


def delete_section(sets: chunk_sets.ChunkSets) -> None:
    st.subheader("Delete a set")
    infos = sets.infos
    names = [info.name for info in infos]
    pending = st.session_state.get(CONFIRM)
    if pending not in names:
        doomed = st.selectbox("Set", names, key="store_delete_pick")
        if st.button("Delete…", key="store_delete"):
            st.session_state[CONFIRM] = doomed
            st.rerun()
        return
    info = next(i for i in infos if i.name == pending)
    active_note = " It is the active set: retrieval will have no set." if (
        pending == sets.active) else ""
    st.warning(f"Delete “{md_escape(pending)}” and its {info.chunks:,} chunks? This cannot be "
               f"undone.{active_note}")
    yes, no = st.columns(2)
    if yes.button("Yes, delete", key="store_delete_yes", type="primary"):
        st.session_state[NOTICE] = chunk_sets.delete(chunk_store(), pending)
        del st.session_state[CONFIRM]
        st.rerun()
    if no.button("Cancel", key="store_delete_no"):
        del st.session_state[CONFIRM]
        st.rerun()


st.title("Chunk sets")
st.caption("Each chunk set is one chunking of your documents, embedded with MiniLM or your own "
           "model and stored in Chroma. Several sets live side by side for A/B comparison; the "
           "active one is what retrieval uses.")
try:
    if not show_store_status():
        st.stop()  # the warning says what to do
    if notice := st.session_state.pop(NOTICE, None):
        st.success(md_escape(notice))
    show_warnings(st.session_state.pop(WARNINGS, []), key="store")
    sets = chunk_sets.listing(chunk_store())
    if sets.infos:
        show_sets(sets)
        cutover(sets)
        show_set_map([info.name for info in sets.infos])
    else:
        st.info("No chunk sets yet: create the first one below.")
    create_form({info.name for info in sets.infos})
    if sets.infos:
        delete_section(sets)
except ChunkLabError as err:
    show_error(err)

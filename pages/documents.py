"""Documents: upload files, pick one, see its sections, tables and text with spans coloured."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.documents.model import Document
from core.documents.sniff import SUPPORTED_EXTENSIONS
from core.errors import ChunkLabError
from core.progress import Progress
from ui.outline import section_outline
from ui.page_view import show_on_page
from ui.persist import kept
from ui.render import Bar, HighlightSpan, highlight_html, md_escape, palette, strip_html
from ui.resources import html_by_content, library, page_image, token_count
from ui.state import pick_document, select_document, show_error
from ui.wording import count, number

UPLOAD_RESULTS = "documents_upload_results"  # [(ok, message)] of the last upload
UPLOADER_ROUND = "documents_uploader_round"  # a new key clears the uploader after an upload
CONFIRM_REMOVE = "documents_confirm_remove"
TABLE_COLOR = "#d7c4f5"  # lavender: apart from every heading level's colour


def add_with_progress(data: bytes, name: str) -> Document:
    """One upload converted and stored behind a progress bar (a long PDF's pages as they are
    read and laid out)."""
    bar = st.progress(0.0, text=f"{md_escape(name)}: starting…")

    def advance(progress: Progress) -> None:
        bar.progress(progress.fraction, text=f"{md_escape(name)}: {md_escape(progress.caption())}")

    try:
        return library().add(data, name, progress=advance)
    finally:
        bar.empty()


def upload_files() -> None:
    round_no = st.session_state.setdefault(UPLOADER_ROUND, 0)
    files = st.file_uploader(
        "Add documents (drag and drop one or many)",
        type=[ext.lstrip(".") for ext in SUPPORTED_EXTENSIONS],
        accept_multiple_files=True,
        key=f"documents_uploader_{round_no}",
    )
    if files:
        results: list[tuple[bool, str]] = []
        with st.status(f"Converting {count(len(files), 'file')}…", expanded=True) as status:
            for n, file in enumerate(files, start=1):
                status.update(label=f"Converting {md_escape(file.name)} ({n}/{len(files)})…")
                try:
                    doc = add_with_progress(file.getvalue(), file.name)
                except ChunkLabError as err:
                    results.append((False, str(err)))
                    continue
                select_document(doc.doc_id)
                results.append((True, f"{file.name}: {count(len(doc.sections), 'section')}, "
                                      f"{count(len(doc.tables), 'table')}, "
                                      f"{count(len(doc.text), 'character')}."))
            status.update(label="Conversion finished.", state="complete")
        st.session_state[UPLOAD_RESULTS] = results
        st.session_state[UPLOADER_ROUND] = round_no + 1
        st.rerun()
    # Shown once, in the run right after the upload or removal: gone at the next click.
    for ok, message in st.session_state.pop(UPLOAD_RESULTS, []):
        if ok:
            st.success(md_escape(message), icon=":material/check_circle:")
        else:
            show_error(message)


def metrics(doc: Document) -> None:
    values = {
        "Format": doc.format.upper(), "Pages": number(doc.pages),
        "Sections": number(len(doc.sections)), "Tables": number(len(doc.tables)),
        "Tokens": number(token_count(doc)), "Characters": number(len(doc.text)),
    }
    for column, (label, value) in zip(st.columns(len(values)), values.items(), strict=True):
        column.metric(label, value)
    seconds = library().entry(doc.doc_id).seconds
    took = f" in {number(seconds, 2)} s" if seconds is not None else ""
    st.caption(f"Converted by **{doc.route}**{took} · document id `{doc.doc_id}`")
    if doc.quality is not None:
        st.caption(f"Quality: {md_escape(doc.quality.summary())}")
    for note in doc.notes:
        st.info(md_escape(note), icon=":material/info:")


def section_strip(doc: Document) -> str:
    """Bars along the character offset: one row per heading level, plus tables (hover a bar
    for its title and characters)."""
    levels = sorted({s.level for s in doc.sections})
    bars = [Bar(f"Level {s.level}", s.start, s.end - s.start, palette(s.level - 1),
                f"{s.title} · chars {s.start:,}–{s.end:,}") for s in doc.sections]
    bars += [Bar("Tables", t.start, t.end - t.start, TABLE_COLOR,
                 f"{doc.table_title(i)} · chars {t.start:,}–{t.end:,}")
             for i, t in enumerate(doc.tables, start=1)]
    rows = [f"Level {level}" for level in levels] + (["Tables"] if doc.tables else [])
    return strip_html(rows, bars, len(doc.text), axis="character offset")


def table_frame(rows: list[list[str]]) -> pd.DataFrame:
    """The first row as (unique, non-empty) column names, the rest as data."""
    width = max(len(r) for r in rows)
    padded = [r + [""] * (width - len(r)) for r in rows]
    names: list[str] = []
    for i, name in enumerate(padded[0], start=1):
        name = name or f"column {i}"
        names.append(name if name not in names else f"{name} ({i})")
    return pd.DataFrame(padded[1:], columns=names)


def tables(doc: Document) -> None:
    if not doc.tables:
        st.caption("No tables in this document.")
    for i, table in enumerate(doc.tables, start=1):
        page = f" · page {table.page}" if table.page else ""
        st.markdown(f"**{md_escape(doc.table_title(i))}**")
        st.caption(f"{count(len(table.rows) - 1, 'row')} × "
                   f"{count(max(len(r) for r in table.rows), 'column')} · "
                   f"characters {table.start:,}–{table.end:,}{page}")
        st.dataframe(table_frame(table.rows), hide_index=True)
        show_on_page(doc, [(table.start, table.end)], key=f"documents_table_page_{i}")


def text_spans(doc: Document) -> list[HighlightSpan]:
    """Each section's own text (up to its first subsection) by level colour; tables on top,
    cut out of the section colour so nothing is striped."""
    spans = [HighlightSpan(t.start, t.end, TABLE_COLOR, f"Table {i}", doc.table_title(i),
                           "cl-table")
             for i, t in enumerate(doc.tables, start=1)]
    starts = sorted({s.start for s in doc.sections} | {len(doc.text)})
    for section in doc.sections:
        own_end = min(e for e in starts if e > section.start)
        path = " › ".join(doc.heading_path(section.start))
        cursor = section.start
        for table in [t for t in doc.tables if section.start <= t.start < own_end]:
            if table.start > cursor:
                spans.append(HighlightSpan(cursor, table.start, palette(section.level - 1),
                                           tooltip=path))
            cursor = max(cursor, table.end)
        if own_end > cursor:
            spans.append(HighlightSpan(cursor, own_end, palette(section.level - 1),
                                       f"H{section.level}" if cursor == section.start else "",
                                       path))
    return spans


def remove_button(doc: Document) -> None:
    if st.session_state.get(CONFIRM_REMOVE) != doc.doc_id:
        if st.button("Remove this document…", icon=":material/delete:"):
            st.session_state[CONFIRM_REMOVE] = doc.doc_id
            st.rerun()
        return
    st.warning(f"Remove **{md_escape(doc.source_name)}** from the library? Its original file and "
               "conversion are deleted.")
    yes, no = st.columns(2)
    if yes.button("Yes, remove it", type="primary"):
        library().remove(doc.doc_id)
        st.session_state.pop(CONFIRM_REMOVE)
        st.session_state[UPLOAD_RESULTS] = [(True, f"Removed {doc.source_name}.")]
        st.rerun()
    if no.button("Cancel"):
        st.session_state.pop(CONFIRM_REMOVE)
        st.rerun()


VIEWS = ["Sections", "Tables", "Text", "Pages"]


def _page_text_html(doc: Document, page: int) -> str:
    span = doc.page_span(page)
    if span is None:
        return ""
    start, end = span

    def draw() -> str:
        shifted = [HighlightSpan(max(s.start, start) - start, min(s.end, end) - start, s.color,
                                 s.label if s.start >= start else "", s.tooltip, s.css_class)
                   for s in text_spans(doc) if s.start < end and s.end > start]
        return highlight_html(doc.text[start:end], shifted, height_px=900)

    return html_by_content("page text", (doc.doc_id, page), draw)


def pages_view(doc: Document) -> None:
    """The original page image beside the text read from it."""
    total = doc.pages or len(doc.page_info)
    if doc.format != "pdf" or not total:
        st.caption("Page images are shown for PDF documents.")
        return
    key = kept(f"documents_page_{doc.doc_id}", 1)
    page = st.number_input(f"Page (of {total})", min_value=1, max_value=total, step=1, key=key)
    info = next((p for p in doc.page_info if p.number == page), None)
    facts = []
    if info is not None and info.columns > 1:
        facts.append(f"read as {info.columns} columns")
    if info is not None and info.running:
        facts.append("running lines left out: " + " · ".join(f"“{r}”" for r in info.running))
    if info is not None and info.line_numbers:
        facts.append(f"line numbers {info.line_numbers[0]}–{info.line_numbers[-1]} in the "
                     "margin left out")
    if facts:
        line = "; ".join(facts)
        st.caption(md_escape(line[:1].upper() + line[1:]))
    left, right = st.columns(2)
    try:
        left.image(page_image(doc.doc_id, int(page)), caption=f"Page {page} as printed",
                   width="stretch")
    except ChunkLabError as err:
        left.warning(md_escape(str(err)))
    text_html = _page_text_html(doc, int(page))
    if text_html:
        right.html(text_html)
    else:
        right.caption("No text was read from this page.")


def _strip(doc: Document) -> str:
    return html_by_content("section strip", doc.doc_id, lambda: section_strip(doc))


def _text_html(doc: Document) -> str:
    return html_by_content("document text", doc.doc_id, lambda: highlight_html(
        doc.text, text_spans(doc), max_chars=300_000, height_px=640))


def samples_note() -> None:
    """The shipped samples are examples, apart from the user's documents; remove them here."""
    names = sorted(e.source_name for e in library().entries() if e.sample)
    if not names:
        return
    with st.expander(f"Samples ({len(names)}): examples shipped with ChunkLab",
                     icon=":material/science:"):
        st.caption("New chunk sets, searches on Assemble and generated question sets leave the "
                   "samples out unless you choose them (or while you have no documents of your "
                   "own). " + md_escape(", ".join(names)) + ".")
        if st.button("Remove the samples", key="documents_remove_samples",
                     icon=":material/delete:"):
            removed = library().remove_samples()
            st.session_state[UPLOAD_RESULTS] = [(True, f"Removed {count(len(removed), 'sample')}"
                                                       "; they stay removed after a restart.")]
            st.rerun()


st.title("Documents")
upload_files()
doc = pick_document()
if doc is not None:
    metrics(doc)
    # One view drawn at a time (tabs would draw all three, the whole text included, on every
    # click); the choice is kept across page switches.
    labels = {"Sections": f"Sections ({number(len(doc.sections))})",
              "Tables": f"Tables ({number(len(doc.tables))})", "Text": "Text",
              "Pages": "Pages beside text"}
    options = VIEWS if doc.format == "pdf" else VIEWS[:-1]
    view = st.segmented_control("View", options,
                                key=kept("documents_view", "Sections", valid=options),
                                format_func=labels.get, label_visibility="collapsed") or "Sections"
    if view == "Sections":
        if doc.sections or doc.tables:
            st.html(_strip(doc))
        if doc.sections:
            section_outline(doc)
        else:
            st.caption("No headings were found: this document is one flat run of paragraphs.")
    elif view == "Tables":
        tables(doc)
    elif view == "Pages":
        pages_view(doc)
    else:
        st.caption("Sections are coloured by level (up to their first subsection); tables are "
                   "lavender with an orange edge. Hover for the heading path.")
        st.html(_text_html(doc))
    remove_button(doc)
samples_note()

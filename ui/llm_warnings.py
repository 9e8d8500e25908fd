"""What LLM runs warn about, as Structure, Compare and Chunk sets list it: one box per run that
counts each kind of warning (per document when there are several), and one expandable table with
every repair tolerant parsing made (its raw line) and every annotation the model failed to give —
never a box per warning. Documents a chunk set could not chunk get one box and table too."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from core.llm.run import LLMRun, RunWarning
from core.store.info import ChunkSetInfo
from ui.render import md_escape
from ui.wording import count


def show_table(frame: pd.DataFrame, wide: str | None = None) -> None:
    """A table whose numbers stay narrow, so that it fits its column; ``wide`` takes the room
    left on a full-width table."""
    config = {column: st.column_config.NumberColumn(width="small", format="localized")
              for column in frame.columns if pd.api.types.is_integer_dtype(frame[column])}
    if wide is not None:
        config[wide] = st.column_config.TextColumn(width="large")
    st.dataframe(frame, hide_index=True, column_config=config)


def _kinds(found: Counter[str]) -> str:
    return "; ".join(f"{kind} ×{n:,}" for kind, n in found.most_common())


def warning_summary(notes: Sequence[tuple[str, RunWarning]]) -> str:
    """One sentence: how many warnings, and each kind's count (per document when several)."""
    by_document: dict[str, Counter[str]] = {}
    for document, note in notes:
        by_document.setdefault(document, Counter())[note.kind] += 1
    total = f"Done with {count(len(notes), 'warning')}"
    if len(by_document) == 1:
        return f"{total}: {_kinds(next(iter(by_document.values())))}."
    return (f"{total} in {count(len(by_document), 'document')}: "
            + " · ".join(f"{name}: {_kinds(found)}" for name, found in by_document.items())
            + ".")


def show_warnings(notes: Sequence[tuple[str, RunWarning]], key: str) -> None:
    """One warning box with the counts and one expander with a row per warning; nothing when
    there are none. ``key`` tells the expanders of one page apart."""
    if not notes:
        return
    st.warning(md_escape(warning_summary(notes)), icon=":material/build:")
    several = len({document for document, _ in notes}) > 1
    with st.expander(f"Warnings ({len(notes):,})", key=f"llm_warnings_{key}"):
        rows = [{**({"document": document} if several else {}), "phase": note.phase,
                 "warning": note.kind,
                 "line": "" if note.line_number is None else str(note.line_number),
                 "raw line": note.line, "detail": note.detail}
                for document, note in notes]
        show_table(pd.DataFrame(rows))


def show_llm_warnings(run: LLMRun, key: str = "run") -> None:
    """The warnings of one document's run (see :func:`show_warnings`)."""
    show_warnings([(run.document.source_name, note) for note in run.warning_list()], key)


def show_failed_documents(info: ChunkSetInfo) -> None:
    """One box saying how many of the set's documents could not be chunked, and one expander
    with each document and its error; nothing when none failed."""
    if not info.failed:
        return
    st.error(f"“{md_escape(info.name)}” holds {md_escape(info.documents_text())}: "
             f"{md_escape(count(len(info.failed), 'document'))} could not be chunked.",
             icon=":material/error:")
    with st.expander(f"Documents that failed in “{md_escape(info.name)}” ({len(info.failed):,})",
                     key=f"failed_documents_{info.name}"):
        show_table(pd.DataFrame([{"document": f.name, "error": f.error} for f in info.failed]),
                   wide="error")

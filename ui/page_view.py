"""The "Show on page" control: a stretch of a document (a chunk, a section, a table, a source)
opened on its page image with the lines it was read from highlighted.

The popover draws nothing until opened (each image is a few hundred kilobytes the browser would
get on every click otherwise) and is a fragment, so opening it reruns the control alone; the
image is drawn once per page and region (:func:`ui.resources.page_image`). Documents without
pages get no control; a slide deck's slides are named in one line, without an image.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.documents.model import Document
from core.errors import ChunkLabError
from core.operations.page_view import Span, SpanPages, span_pages
from ui.render import md_escape
from ui.resources import page_image

IMAGE_WIDTH_PX = 640


def show_on_page(document: Document, spans: Sequence[Span], key: str) -> None:
    """A "Show on page · p. 3" popover for ``spans`` of ``document`` (nothing without pages)."""
    where = span_pages(document, spans)
    if where is None:
        return
    if not where.drawable:
        st.caption(md_escape(where.without_image()))
        return
    _popover(document, where, key)


@st.fragment
def _popover(document: Document, where: SpanPages, key: str) -> None:
    """Opening, closing and the choices inside rerun this control alone, not the page."""
    popover = st.popover(f"Show on page · {where.short()}", icon=":material/find_in_page:",
                         key=key, on_change="rerun")
    with popover:
        if not popover.open:
            return
        page = where.pages[0]
        if len(where.pages) > 1:
            page = st.segmented_control("Page", where.pages, default=where.pages[0],
                                        key=f"{key}_page", format_func=lambda p: f"p. {p}"
                                        ) or where.pages[0]
        lines = len(where.boxes_on(page))
        whole = not lines or st.toggle("Whole page", key=f"{key}_whole")
        try:
            image = page_image(document.doc_id, page, where.boxes_on(page), whole=whole)
        except ChunkLabError as err:
            st.warning(md_escape(str(err)))
            return
        region = (f"{lines} line{'s' if lines != 1 else ''} highlighted" if lines
                  else "the converter kept the page, not the lines on it")
        st.caption(f"**{where.of_total(page)}** · {md_escape(document.source_name)} · {region}"
                   + ("" if whole else " · the part of the page around them"))
        st.image(image, width=IMAGE_WIDTH_PX)

"""Where a stretch of a document was read from, shown on its page: which pages of the original
it came from, and the page's image with the lines it was read from highlighted.

Spans are exact for every chunker (``chunk.text == document.text[start:end]``), so a chunk, a
section, a table or a retrieved pack all find their lines the same way, through
:meth:`Document.provenance`. Page images are drawn by the library from the original upload (a
PDF); a slide deck's slides are pages without an image here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.assembly.model import page_label
from core.documents.model import Document, PageBox
from core.documents.pdf.render import highlight_jpeg
from core.library import DocumentLibrary

Span = tuple[int, int]
CONTEXT_SHARE = 0.25  # of the page's height, above and below a region shown in its band


@dataclass(frozen=True)
class SpanPages:
    """The pages (1-based, ascending) a span was read from and the line boxes on them."""

    doc_id: str
    pages: tuple[int, ...]
    boxes: tuple[PageBox, ...]
    total: int  # pages (slides) of the original
    drawable: bool  # the original is a PDF: its pages can be shown as images

    def boxes_on(self, page: int) -> tuple[PageBox, ...]:
        return tuple(b for b in self.boxes if b.page == page)

    def short(self) -> str:
        """"p. 3", "pp. 3–4"."""
        return page_label(self.pages)

    def of_total(self, page: int) -> str:
        """"p. 3 of 12"."""
        return f"p. {page} of {self.total}"

    def without_image(self) -> str:
        """One line for an original whose pages have no image (a slide deck)."""
        slides = page_label(self.pages).replace("pp.", "slides").replace("p.", "slide")
        return f"From {slides} of {self.total} (slides have no page image here)."


def span_pages(document: Document, spans: Sequence[Span]) -> SpanPages | None:
    """Where ``spans`` of ``document`` stand in its original; None when the original has no
    pages or the spans were read from none (nothing to show)."""
    pages: set[int] = set()
    boxes: list[PageBox] = []
    for start, end in spans:
        on, lines = document.provenance(start, end)
        pages.update(on)
        boxes.extend(lines)
    total = document.pages or len(document.page_info)
    if not pages or not total:
        return None
    return SpanPages(document.doc_id, tuple(sorted(pages)), tuple(boxes), total,
                     drawable=document.format == "pdf")


def page_picture(library: DocumentLibrary, doc_id: str, page: int,
                 boxes: Sequence[PageBox] = (), *, whole: bool = True) -> bytes:
    """Page ``page`` of a stored PDF as a JPEG, with ``boxes`` (points from the page's top-left
    corner) highlighted — the whole page, or (``whole=False``) the band of it around them, a
    quarter of the page's height above and below; the plain page without boxes. The page is
    drawn from the original once (the library keeps it); raises ConversionError for a page the
    PDF does not have."""
    image = library.page_image(doc_id, page)
    if not boxes:
        return image
    document = library.get(doc_id)
    info = next((p for p in document.page_info if p.number == page), None)
    if info is None:  # no page size kept: the region cannot be placed, the page still shows
        return image
    return highlight_jpeg(image, info.width, boxes,
                          None if whole else info.height * CONTEXT_SHARE)

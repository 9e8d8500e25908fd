"""Page images of a PDF (pdfium), for showing what was read where beside the text, and the
regions a stretch of text was read from drawn on them."""

from __future__ import annotations

import io
from collections.abc import Sequence

from core.documents.model import PageBox
from core.errors import ConversionError

PAGE_WIDTH_PX = 900
HIGHLIGHT_FILL = (255, 196, 0, 80)  # amber, see-through: the words stay readable
HIGHLIGHT_EDGE = (224, 112, 0, 255)
PAD_PT = 1.5  # around each line, so the edge does not cut through the glyphs


def render_page_jpeg(data: bytes, page: int, width_px: int = PAGE_WIDTH_PX) -> bytes:
    """Page ``page`` (1-based) of the PDF ``data`` as a JPEG ``width_px`` pixels wide."""
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        if not 1 <= page <= len(document):
            raise ConversionError(f"There is no page {page} in this document of "
                                  f"{len(document)} pages.")
        pdf_page = document[page - 1]
        scale = width_px / max(pdf_page.get_width(), 1.0)
        image = pdf_page.render(scale=scale).to_pil()
        out = io.BytesIO()
        image.convert("RGB").save(out, format="JPEG", quality=80)
        return out.getvalue()
    finally:
        document.close()


def box_pixels(box: PageBox, scale: float, pad: float = PAD_PT) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) in pixels of ``box`` on a page image drawn ``scale`` pixels
    per point. Boxes and pdfium's images both start at the upright page's top-left corner (the
    reader turns PDF space, whose origin is bottom-left, upright), so no flip is needed."""
    return (round((box.x0 - pad) * scale), round((box.top - pad) * scale),
            round((box.x1 + pad) * scale), round((box.bottom + pad) * scale))


def highlight_jpeg(image: bytes, page_width: float, boxes: Sequence[PageBox],
                   context_pt: float | None = None) -> bytes:
    """The page image ``image`` (of a page ``page_width`` points wide) with ``boxes`` drawn on
    it as see-through amber regions; with ``context_pt``, only the band of the page from that
    far above the first box to that far below the last (the region in its context, at once)."""
    from PIL import Image, ImageDraw

    page = Image.open(io.BytesIO(image)).convert("RGBA")
    layer = Image.new("RGBA", page.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    scale = page.width / max(page_width, 1.0)
    edge = max(2, round(scale))
    for box in boxes:
        draw.rectangle(box_pixels(box, scale), fill=HIGHLIGHT_FILL, outline=HIGHLIGHT_EDGE,
                       width=edge)
    lit = Image.alpha_composite(page, layer).convert("RGB")
    if context_pt is not None and boxes:
        top = max(0, round((min(b.top for b in boxes) - context_pt) * scale))
        bottom = min(page.height, round((max(b.bottom for b in boxes) + context_pt) * scale))
        lit = lit.crop((0, top, page.width, max(bottom, top + 1)))
    out = io.BytesIO()
    lit.save(out, format="JPEG", quality=85)
    return out.getvalue()

"""Page images of a PDF (pdfium), for showing what was read where beside the text."""

from __future__ import annotations

import io

from core.errors import ConversionError

PAGE_WIDTH_PX = 900


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

"""PDF: docling's full pipeline when its layout models are on disk, else an offline route.

The offline route needs no model and no network. One module per concern, each with the
invariants it keeps: :mod:`.reader` (glyphs, read with pdfium), :mod:`.drawing` (drawn rules,
text drawn twice), :mod:`.fonts` (text for glyphs without a Unicode map), :mod:`.chars`
(unmappable glyphs, overprints, combining marks, words), :mod:`.layout` (lines and column
reading order), :mod:`.running` (headers, footers, page numbers), :mod:`.tables` (ruled and
unruled tables), :mod:`.headings` (which lines are headings, their levels), :mod:`.writer`
(blocks and the text with exact spans), :mod:`.route` (the steps in order), :mod:`.render`
(page images for the Documents page).
"""

from core.documents.pdf.route import (
    DOCLING_NOTE,
    OFFLINE_NOTE,
    convert_pdf,
    convert_pdf_offline,
    docling_pdf_models_present,
)

__all__ = ["DOCLING_NOTE", "OFFLINE_NOTE", "convert_pdf", "convert_pdf_offline",
           "docling_pdf_models_present"]

"""Documents: the shared model and the converters that build it from uploads.

``convert(data, filename)`` is the entry point; one module per route (``plain_text``,
``markdown_doc``, ``docling_doc``, ``pdf``), upload checks in ``sniff``, span bookkeeping in
``spans``. Heavy libraries (docling, pdfplumber) load on first use, not on import.
"""

from importlib.metadata import version

from core.documents.dispatch import convert
from core.documents.sniff import MAX_UPLOAD_BYTES, SUPPORTED_EXTENSIONS

# Bump the first part when our own conversion output changes; the library re-converts stored
# originals when this string differs from the one they were converted with.
CONVERTER_VERSION = (
    f"7/docling-{version('docling-slim')}/docling-core-{version('docling-core')}"
    f"/pdfplumber-{version('pdfplumber')}/pypdfium2-{version('pypdfium2')}"
    f"/markdown-it-{version('markdown-it-py')}"
)

__all__ = ["CONVERTER_VERSION", "MAX_UPLOAD_BYTES", "SUPPORTED_EXTENSIONS", "convert"]

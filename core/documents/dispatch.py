"""``convert(data, filename) -> Document``: check the upload, pick the route, build the model.

Heavy libraries load inside the routes that need them (docling, pdfplumber), not on import.
"""

from __future__ import annotations

import threading

from core.documents.docling_doc import convert_with_docling
from core.documents.hygiene import Hygiene
from core.documents.limits import check_limits
from core.documents.markdown_doc import convert_markdown
from core.documents.model import ConvertedText, Document, content_id
from core.documents.pdf import convert_pdf
from core.documents.plain_text import convert_text
from core.documents.sniff import check_upload, decode_text
from core.documents.worker import run_in_worker
from core.errors import ConversionError
from core.progress import ProgressFn

IN_PROCESS = ("txt", "md")  # fast and bounded by the upload size: no worker needed


def _route(data: bytes, filename: str, fmt: str, progress: ProgressFn | None = None
           ) -> ConvertedText:
    if fmt in ("txt", "md"):
        text, notes = decode_text(data, filename)
        hygiene = Hygiene()
        text = hygiene.clean(text)
        notes += hygiene.notes()
        converted = convert_text(text) if fmt == "txt" else convert_markdown(text)
        return converted.with_notes(notes)
    if fmt == "csv":
        decode_text(data, filename)  # docling would guess; we want a clear encoding error
    if fmt == "pdf":
        return convert_pdf(data, filename, progress)
    return convert_with_docling(data, filename, fmt)


def convert(data: bytes, filename: str, *, cancel: threading.Event | None = None,
            progress: ProgressFn | None = None) -> Document:
    """Convert an upload into a :class:`Document`; ConversionError says why when it cannot.

    The limits on what the file may unpack to are checked first; text and Markdown convert
    here (fast), every other format in a worker process bounded in time and memory
    (:mod:`core.documents.worker`), which ``cancel`` stops. A PDF reports its pages to
    ``progress`` as they are read and laid out, and each batch of pages has its own time
    limit.
    """
    fmt = check_upload(data, filename)
    check_limits(data, filename, fmt)
    if fmt in IN_PROCESS:
        converted = _route(data, filename, fmt)
    else:
        converted = run_in_worker(_route, data, filename, fmt, filename=filename, cancel=cancel,
                                  progress=progress, reports=True)
    if not converted.text.strip():
        raise ConversionError(f"{filename} contains no text to work with.")
    return converted.document(content_id(data), filename, fmt)

"""``convert(data, filename) -> Document``: check the upload, pick the route, build the model."""

from __future__ import annotations

from typing import Any

from core.documents.model import Document, content_id
from core.documents.sniff import check_upload, decode_text
from core.errors import ConversionError


def _route(data: bytes, filename: str, fmt: str) -> dict[str, Any]:
    if fmt in ("txt", "md"):
        text, notes = decode_text(data, filename)
        if fmt == "txt":
            from core.documents.plain_text import convert_text

            return {**convert_text(text), "notes": notes}
        from core.documents.markdown_doc import convert_markdown

        return {**convert_markdown(text), "notes": notes}
    if fmt == "csv":
        decode_text(data, filename)  # docling would guess; we want a clear encoding error
    if fmt == "pdf":
        from core.documents.pdf import convert_pdf

        return convert_pdf(data, filename)
    from core.documents.docling_doc import convert_with_docling

    return convert_with_docling(data, filename, fmt)


def convert(data: bytes, filename: str) -> Document:
    """Convert an upload into a :class:`Document`; ConversionError says why when it cannot."""
    fmt = check_upload(data, filename)
    parts = _route(data, filename, fmt)
    if not parts["text"].strip():
        raise ConversionError(f"{filename} contains no text to work with.")
    return Document(doc_id=content_id(data), source_name=filename, format=fmt, **parts)

"""Upload checks before any converter runs: size, extension, magic bytes, text encoding.

Each failure is a :class:`ConversionError` with one sentence that names the file and says what
is wrong (and, where it helps, what to do).
"""

from __future__ import annotations

import codecs
import io
import zipfile
from pathlib import PurePath

from core.errors import ConversionError

MAX_UPLOAD_BYTES = 50 * 1024 * 1024

FORMATS = {
    ".pdf": "pdf", ".docx": "docx", ".html": "html", ".htm": "html", ".md": "md",
    ".markdown": "md", ".xlsx": "xlsx", ".xlsm": "xlsx", ".pptx": "pptx", ".csv": "csv",
    ".txt": "txt",
}
SUPPORTED_EXTENSIONS = tuple(FORMATS)
TEXT_FORMATS = {"md", "txt", "csv", "html"}
OFFICE_PARTS = {"docx": "word/document.xml", "xlsx": "xl/workbook.xml",
                "pptx": "ppt/presentation.xml"}
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def format_of(filename: str) -> str:
    """The format name for ``filename``'s extension, or ConversionError if unsupported."""
    ext = PurePath(filename).suffix.lower()
    if ext not in FORMATS:
        shown = f"type ({ext})" if ext else "type (no extension)"
        raise ConversionError(
            f"{filename} has an unsupported file {shown}; supported types are "
            f"{', '.join(SUPPORTED_EXTENSIONS)}."
        )
    return FORMATS[ext]


def sniff(data: bytes) -> str | None:
    """The format the bytes announce (pdf, docx, xlsx, pptx, zip, damaged-zip, ole), if any."""
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data.startswith(OLE_MAGIC):
        return "ole"
    if data.startswith(b"PK\x03\x04"):
        try:
            names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
        except zipfile.BadZipFile:
            return "damaged-zip"
        for fmt, part in OFFICE_PARTS.items():
            if part in names:
                return fmt
        return "zip"
    return None


def check_upload(data: bytes, filename: str) -> str:
    """Validate an upload and return its format; raise ConversionError with the reason if not."""
    fmt = format_of(filename)
    if not data:
        raise ConversionError(f"{filename} is empty (0 bytes).")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ConversionError(
            f"{filename} is {len(data) / 2**20:.1f} MiB, over the "
            f"{MAX_UPLOAD_BYTES // 2**20} MiB upload limit."
        )
    actual = sniff(data)
    if actual == fmt:
        return fmt
    if actual in ("pdf", *OFFICE_PARTS):
        raise ConversionError(
            f"{filename} is really a {actual.upper()} file, not {fmt.upper()}; rename it to "
            f".{actual} and upload it again."
        )
    if actual == "ole":
        raise ConversionError(
            f"{filename} is an old binary Office file (.doc/.xls/.ppt); save it as "
            ".docx/.xlsx/.pptx and upload it again."
        )
    if fmt in OFFICE_PARTS:
        why = {"zip": "a ZIP archive without Office parts",
               "damaged-zip": "a damaged ZIP archive"}.get(actual or "", "not a ZIP archive")
        raise ConversionError(
            f"{filename} is not a valid {fmt.upper()} file (it is {why}); it may be corrupt."
        )
    if fmt == "pdf":
        raise ConversionError(
            f"{filename} is not a valid PDF file (it does not start with %PDF); it may be corrupt."
        )
    if actual in ("zip", "damaged-zip"):
        raise ConversionError(f"{filename} is a ZIP archive, not a {fmt.upper()} text file.")
    nul = -1 if data.startswith(UTF16_BOMS) else data.find(b"\x00")
    if nul >= 0:  # no text format holds a NUL: the file is binary, or UTF-16 without a BOM
        raise ConversionError(
            f"{filename} is not a text file (a NUL byte at offset {nul:,}, which text never "
            "holds); if it is UTF-16 text, save it as UTF-8 and upload it again."
        )
    return fmt


def decode_text(data: bytes, filename: str) -> tuple[str, list[str]]:
    """The text of a text upload (UTF-8, with or without BOM; UTF-16 with BOM) and any notes."""
    if data.startswith(UTF16_BOMS):
        try:
            return data.decode("utf-16"), ["Decoded from UTF-16."]
        except UnicodeDecodeError as err:
            raise ConversionError(f"{filename} is not valid UTF-16 text ({err.reason}).") from err
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as err:
        offset = err.start + (3 if data.startswith(codecs.BOM_UTF8) else 0)
        raise ConversionError(
            f"{filename} is not UTF-8 text (byte 0x{data[offset]:02x} at offset {offset} is "
            "not valid UTF-8); save it as UTF-8 and upload it again."
        ) from err

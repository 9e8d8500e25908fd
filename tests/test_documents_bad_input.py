"""Bad uploads end in one ConversionError sentence that names the file and the problem."""

from __future__ import annotations

import io
import zipfile

import pytest

from core.documents import MAX_UPLOAD_BYTES, convert
from core.errors import ConversionError
from corpora.documents import docx_bytes, pdf_bytes


def zip_bytes(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return out.getvalue()


def image_only_pdf() -> bytes:
    from fpdf import FPDF
    from PIL import Image

    png = io.BytesIO()
    Image.new("RGB", (200, 100), "gray").save(png, "PNG")
    pdf = FPDF()
    pdf.add_page()
    pdf.image(io.BytesIO(png.getvalue()), x=10, y=10, w=100)
    return bytes(pdf.output())


def encrypted_pdf() -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(text="secret")
    pdf.set_encryption(owner_password="owner", user_password="user")
    return bytes(pdf.output())


ZERO_PAGE_PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
                 b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF")

CASES = {
    "empty": ("notes.txt", lambda: b"", "notes.txt is empty (0 bytes)."),
    "unknown extension": ("data.xyz", lambda: b"abc", "unsupported file type (.xyz)"),
    "no extension": ("README", lambda: b"abc", "unsupported file type (no extension)"),
    "pdf named docx": ("policy.docx", pdf_bytes,
                       "policy.docx is really a PDF file, not DOCX; rename it to .pdf"),
    "docx named pdf": ("report.pdf", docx_bytes, "report.pdf is really a DOCX file, not PDF"),
    "docx that is not a zip": ("bad.docx", lambda: b"hello", "not a valid DOCX file"),
    "truncated docx": ("cut.docx", lambda: docx_bytes()[:3000], "a damaged ZIP archive"),
    "zip without word parts": ("x.docx", lambda: zip_bytes({"a.txt": "x"}), "without Office parts"),
    "corrupt docx xml": ("broken.docx", lambda: zip_bytes({"word/document.xml": "<oops"}),
                         "broken.docx could not be read as DOCX; it may be corrupt."),
    "old binary word file": ("old.docx", lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64),
                             "old binary Office file"),
    "pdf without header": ("bad.pdf", lambda: b"hello", "not a valid PDF file"),
    "corrupt pdf": ("broken.pdf", lambda: b"%PDF-1.4\n garbage",
                    "broken.pdf could not be read as PDF; it may be corrupt."),
    "truncated pdf": ("cut.pdf", lambda: pdf_bytes()[:600], "could not be read as PDF"),
    "zero-page pdf": ("zero.pdf", lambda: ZERO_PAGE_PDF, "zero.pdf has no pages."),
    "image-only pdf": ("scan.pdf", image_only_pdf, "OCR is not available offline"),
    "encrypted pdf": ("secret.pdf", encrypted_pdf, "secret.pdf is password-protected"),
    "too big": ("big.txt", lambda: b"a" * (MAX_UPLOAD_BYTES + 1), "over the 50 MiB upload limit"),
    "latin-1 text": ("latin.txt", lambda: "café".encode("cp1252"),
                     "latin.txt is not UTF-8 text (byte 0xe9 at offset 3"),
    "latin-1 markdown": ("latin.md", lambda: "# Café".encode("latin-1"), "is not UTF-8 text"),
    "latin-1 csv": ("latin.csv", lambda: "a,b\né,1".encode("latin-1"), "is not UTF-8 text"),
    "binary text": ("bin.txt", lambda: b"ab\x00cd", "not a text file"),
    "png named html": ("page.html", lambda: b"\x89PNG\r\n\x1a\n\x00\x00", "not a text file"),
    "NUL after 8 KiB": ("late.txt", lambda: b"a" * 9000 + b"\x00tail",
                        "late.txt is not a text file (a NUL byte at offset 9,000"),
    "NUL late in markdown": ("late.md", lambda: b"# T\n\n" + b"a" * 70_000 + b"\x00",
                             "not a text file"),
    "UTF-16 without BOM": ("wide.txt", lambda: "plain text".encode("utf-16-le"),
                           "save it as UTF-8"),
    "blank text": ("blank.txt", lambda: b" \n\n\t ", "blank.txt contains no text to work with."),
    "corrupt xlsx": ("book.xlsx", lambda: zip_bytes({"xl/workbook.xml": "<x"}),
                     "could not be read as XLSX"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_gets_one_clear_sentence(case):
    filename, make, expected = CASES[case]
    with pytest.raises(ConversionError) as caught:
        convert(make(), filename)
    message = str(caught.value)
    assert expected in message
    assert message.startswith(filename) and message.endswith(".") and "\n" not in message
    assert "Traceback" not in message and "0x" not in message.replace("byte 0x", "")

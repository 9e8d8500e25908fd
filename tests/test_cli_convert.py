"""`python -m core convert PATH` as a user runs it: JSON on stdout, or exit 2 and one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from corpora.documents import docx_bytes
from tests.docfactory import MARKDOWN

ROOT = Path(__file__).resolve().parents[1]


def run_convert(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "convert", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_convert_prints_the_document_as_json(tmp_path):
    path = tmp_path / "policy.docx"
    path.write_bytes(docx_bytes())
    result = run_convert(str(path))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {"text", "sections", "tables", "blocks", "route", "notes"} <= set(doc)
    assert doc["source_name"] == "policy.docx" and doc["route"] == "docling"
    assert [s["title"] for s in doc["sections"]][:2] == ["Home Insurance Policy", "Coverage"]
    table = doc["tables"][0]
    assert doc["text"][table["start"] : table["end"]] == table["markdown"]


def test_markdown_text_comes_back_unchanged(tmp_path):
    path = tmp_path / "handbook.md"
    path.write_bytes(MARKDOWN.encode())
    result = run_convert(str(path), "--indent", "0")
    assert result.returncode == 0 and result.stdout.count("\n") == 1
    assert json.loads(result.stdout)["text"] == MARKDOWN


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.txt", b"", "error: empty.txt is empty (0 bytes)."),
        ("latin.txt", "café".encode("cp1252"), "error: latin.txt is not UTF-8 text"),
        ("fake.docx", b"%PDF-1.4 not really", "error: fake.docx is really a PDF file"),
        ("broken.pdf", b"%PDF-1.4\ngarbage", "error: broken.pdf could not be read as PDF"),
        ("data.bin", b"\x00\x01", "error: data.bin has an unsupported file type (.bin)"),
        ("missing.txt", None, "error: No such file or directory"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    result = run_convert(str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_corrupt_docx_message_is_not_mixed_with_docling_logs(tmp_path):
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("word/document.xml", "<oops")
    path = tmp_path / "broken.docx"
    path.write_bytes(out.getvalue())
    result = run_convert(str(path))
    assert (result.returncode, result.stderr) == (
        2, "error: broken.docx could not be read as DOCX; it may be corrupt.\n")


def test_a_long_pdf_shows_its_pages_on_stderr(tmp_path):
    from corpora.documents import pdf_bytes

    path = tmp_path / "long.pdf"
    path.write_bytes(pdf_bytes(60))
    result = run_convert(str(path), "--indent", "0")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["pages"] == 60
    for step in ("Read page 25 of 60", "Read page 60 of 60", "Laid out page 50 of 60",
                 "Writing the text"):
        assert step in result.stderr
    assert run_convert(str(path), "--quiet").stderr == ""

"""Every format converts into a Document whose spans slice exactly their elements' text."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.documents import SUPPORTED_EXTENSIONS, convert
from core.documents.model import content_id
from core.documents.pdf import OFFLINE_NOTE, docling_pdf_models_present
from corpora.documents import POLICY_ROWS, docx_bytes, pdf_bytes, pptx_bytes, xlsx_bytes
from tests.docfactory import HTML, MARKDOWN, assert_spans_exact


def titles(doc):
    return [(s.level, s.title, s.parent) for s in doc.sections]


def kinds(doc, kind):
    return [doc.text[b.start : b.end] for b in doc.blocks if b.kind == kind]


@pytest.fixture(scope="module")
def docx_doc():
    data = docx_bytes()
    return data, convert(data, "policy.docx")


def test_docx_sections_tables_and_lists(docx_doc):
    data, doc = docx_doc
    assert_spans_exact(doc)
    assert (doc.doc_id, doc.format, doc.route) == (content_id(data), "docx", "docling")
    assert titles(doc) == [
        (1, "Home Insurance Policy", None),
        (2, "Coverage", "Home Insurance Policy"),
        (3, "Coverage limits", "Coverage"),
        (2, "Exclusions", "Home Insurance Policy"),
    ]
    [table] = doc.tables
    assert table.rows == POLICY_ROWS
    assert table.caption == "Table 1: Coverage limits and deductibles"
    assert "Water \\| flood" in table.markdown  # a pipe inside a cell does not break the table
    assert kinds(doc, "list_item") == ["Fire damage", "Water damage"]
    assert "This policy covers your home against fire and water damage." in kinds(doc, "paragraph")
    limits = next(s for s in doc.sections if s.title == "Coverage limits")
    assert limits.start <= table.start < table.end <= limits.end
    assert doc.heading_path(table.start) == ["Home Insurance Policy", "Coverage",
                                             "Coverage limits"]


def test_html_caption_travels_with_its_table():
    doc = convert(HTML.encode(), "manual.html")
    assert_spans_exact(doc)
    assert titles(doc) == [(1, "Product Manual", None), (2, "Setup", "Product Manual"),
                           (3, "Specifications", "Setup"), (2, "Care", "Product Manual")]
    [table] = doc.tables
    assert table.caption == "Table 1: Specifications"
    assert table.rows == [["Spec", "Value"], ["Weight", "2 kg"]]
    assert doc.text.count("Table 1: Specifications") == 1  # not repeated inside the Markdown
    assert kinds(doc, "list_item") == ["Plug it in", "Turn it on", "wait for the beep"]
    assert kinds(doc, "code") == ["reset --all"]
    assert "Clean it <gently>." in kinds(doc, "paragraph")
    assert "Read this before you start." in kinds(doc, "paragraph")


def test_markdown_keeps_the_file_text_and_locates_structure():
    doc = convert(MARKDOWN.encode(), "handbook.md")
    assert_spans_exact(doc)
    assert doc.text == MARKDOWN and doc.route == "markdown"
    assert titles(doc) == [
        (1, "Handbook", None), (2, "Install", "Handbook"), (2, "Setext Title", "Handbook"),
        (3, "Deep", "Setext Title"), (1, "Second", None),
    ]
    handbook = doc.sections[0]
    assert doc.text[handbook.start :].startswith("# Handbook")
    assert handbook.end == doc.text.index("# Second")
    [table] = doc.tables
    assert table.rows == [["Port", "Use | note"], ["80", "http"], ["443", "https"]]
    assert table.caption == "Table 2: Ports"
    assert kinds(doc, "list_item") == ["item one", "item *two*\n  continued", "nested"]
    assert kinds(doc, "code") == ['print("hi")']
    assert "quoted paragraph" in kinds(doc, "paragraph")


def test_markdown_with_crlf_and_bom_keeps_offsets_of_the_decoded_text():
    source = MARKDOWN.replace("\n", "\r\n")
    doc = convert(b"\xef\xbb\xbf" + source.encode(), "handbook.md")
    assert_spans_exact(doc)
    assert doc.text == source
    assert [s.title for s in doc.sections] == ["Handbook", "Install", "Setext Title", "Deep",
                                               "Second"]
    assert doc.tables[0].rows[2] == ["443", "https"]


MD_LINES = st.sampled_from([
    "# Title", "## Sub", "### Deep ###", "Setext", "===", "---", "- item", "  - nested", "1. one",
    "> quote", "| a | b |", "|---|---|", "| 1 | 2 |", "```", "code()", "    indented", "",
    "plain words here", "Table 3: caption", "#", "  ", "* star", "<div>html</div>", "\t tab",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(MD_LINES, max_size=25), st.sampled_from(["\n", "\r\n"]))
def test_markdown_invariant_holds_for_arbitrary_line_mixes(lines, newline):
    text = newline.join(lines) + "x"
    doc = convert(text.encode(), "random.md")
    assert doc.text == text
    assert_spans_exact(doc)


def test_txt_is_character_for_character_with_paragraph_blocks():
    text = "Speaker A: hello there.\r\nStill speaking.\r\n\r\n  Speaker B: hi!  \n\n\n\nEnd"
    doc = convert(text.encode(), "transcript.txt")
    assert_spans_exact(doc)
    assert doc.text == text and doc.route == "text"
    assert doc.sections == [] and doc.tables == []
    assert kinds(doc, "paragraph") == ["Speaker A: hello there.\r\nStill speaking.",
                                       "Speaker B: hi!", "End"]


def test_txt_transcript_turns_without_blank_lines_are_blocks():
    text = ("Meeting notes\nPriya: Let's start.\n[00:01:05] Marcus: The van failed: brakes.\n"
            "Dr. Lee: Noted.\n\nAction: book the garage\nand tell Tom.")
    doc = convert(text.encode(), "call.txt")
    assert [doc.text[b.start:b.end] for b in doc.blocks] == [
        "Meeting notes", "Priya: Let's start.", "[00:01:05] Marcus: The van failed: brakes.",
        "Dr. Lee: Noted.", "Action: book the garage\nand tell Tom."]


BLANK_LINE = re.compile(r"(?:\r\n|\r(?!\n)|\n)[^\S\r\n]*(?:\r\n|\r|\n)")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "Bo", " ", "\t", "\u00a0", "\n", "\r", "\r\n", "Tom: ",
                                 "[10:02] Al: ", ":", "\x0c", "é"]), max_size=40).map("".join))
def test_txt_blocks_are_trimmed_paragraphs_that_cover_every_visible_character(text):
    blocks = convert((text + "x").encode(), "any.txt").blocks
    text += "x"
    covered = set()
    for before, block in zip([None, *blocks], blocks, strict=False):
        piece = text[block.start:block.end]
        assert piece and piece == piece.strip()
        assert BLANK_LINE.search(piece) is None  # a blank line always ends a paragraph
        assert before is None or before.end <= block.start
        covered.update(range(block.start, block.end))
    assert all(i in covered for i, c in enumerate(text) if not c.isspace())


def test_txt_with_utf8_bom_and_utf16():
    assert convert(b"\xef\xbb\xbfcaf\xc3\xa9", "a.txt").text == "café"
    doc = convert("café".encode("utf-16"), "b.txt")
    assert doc.text == "café" and doc.notes == ["Decoded from UTF-16."]


def test_xlsx_sheets_become_tables_with_pages():
    doc = convert(xlsx_bytes(), "sheet.xlsx")
    assert_spans_exact(doc)
    assert [t.rows for t in doc.tables] == [
        [["Item", "Limit"], ["Fire", "1000"], ["Flood", "500"]],
        [["Name", "Role"], ["Ada", "Engineer"]],
    ]
    assert [t.page for t in doc.tables] == [1, 2] and doc.pages == 2
    assert titles(doc) == [(1, "Limits", None), (1, "Staff", None)]
    assert doc.heading_path(doc.tables[1].start) == ["Staff"]


def _macro_enabled(workbook: bytes) -> bytes:
    """The workbook as Excel saves one with macros: its main part's content type says so."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(workbook)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "[Content_Types].xml":
                data = data.replace(
                    b"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
                    b"application/vnd.ms-excel.sheet.macroEnabled.main+xml")
            target.writestr(item, data)
    return out.getvalue()


def test_a_workbook_with_macros_is_read_as_xlsx():
    assert ".xlsm" in SUPPORTED_EXTENSIONS
    data = _macro_enabled(xlsx_bytes())
    assert b"macroEnabled" in zipfile.ZipFile(io.BytesIO(data)).read("[Content_Types].xml")
    doc = convert(data, "sheet.xlsm")
    assert_spans_exact(doc)
    assert doc.format == "xlsx" and [t.rows for t in doc.tables] == [
        t.rows for t in convert(xlsx_bytes(), "sheet.xlsx").tables]


def test_pptx_slides_titles_lists_and_tables():
    doc = convert(pptx_bytes(), "deck.pptx")
    assert_spans_exact(doc)
    assert titles(doc) == [(1, "Quarterly review", None), (1, "Numbers", None)]
    assert kinds(doc, "list_item") == ["Revenue grew", "Costs fell"]
    assert doc.tables[0].rows == [["Metric", "Value"], ["Revenue", "12"]]
    assert doc.tables[0].page == 2 and doc.pages == 2


def test_csv_is_one_table():
    doc = convert(b'name,qty\nfoo,1\nbar,"2,5"\n', "stock.csv")
    assert_spans_exact(doc)
    assert doc.tables[0].rows == [["name", "qty"], ["foo", "1"], ["bar", "2,5"]]


def test_pdf_offline_route_finds_headings_tables_pages(monkeypatch):
    monkeypatch.setattr("core.documents.pdf.route.docling_pdf_models_present", lambda: False)
    doc = convert(pdf_bytes(pages=2), "report.pdf")
    assert_spans_exact(doc)
    assert doc.route == "pdf-offline" and doc.notes == [OFFLINE_NOTE] and doc.pages == 2
    assert titles(doc) == [
        (1, "Field Report", None), (2, "1. Site visit", "Field Report"),
        (3, "1.1 Measurements", "1. Site visit"), (2, "2. Findings part 2", "Field Report"),
    ]
    [table] = doc.tables
    assert table.rows == [["Point", "Pressure (bar)"], ["A", "4.2"], ["B", "3.1"]]
    assert table.caption == "Table 1: Pressure readings" and table.page == 1
    assert "Pressure (bar)" not in " ".join(kinds(doc, "paragraph"))  # table text kept out
    assert kinds(doc, "list_item") == ["first finding", "second finding"]
    assert {b.page for b in doc.blocks if b.kind == "list_item"} == {2}
    assert len(kinds(doc, "paragraph")) == 3


def test_docling_pdf_models_are_detected_on_disk_only(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("DOCLING_ARTIFACTS_PATH", raising=False)
    assert not docling_pdf_models_present()
    snapshot = tmp_path / "models--docling-project--docling-layout-heron" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    assert docling_pdf_models_present()


SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"
SAMPLE_FILES = sorted(p.name for p in SAMPLES.iterdir() if p.suffix in SUPPORTED_EXTENSIONS)


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_every_sample_document_keeps_the_invariant(name):
    doc = convert((SAMPLES / name).read_bytes(), name)
    assert_spans_exact(doc)
    assert len(doc.text) > 2000
    if name.endswith((".docx", ".md", ".html", ".pdf")):
        assert len(doc.sections) >= 10 and doc.tables  # structure was found, not just text

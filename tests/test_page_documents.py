"""The Documents page under AppTest: listing, sections, tables, uploads, errors, removal."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from unittest import mock

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.documents.pdf import OFFLINE_NOTE
from core.library import DocumentLibrary
from corpora.documents import docx_bytes, pdf_bytes
from tests.docfactory import HTML, transcript
from tests.pages import page_path, shown, use_samples
from ui.resources import library

PAGE = page_path("documents")
HOSTILE = "![px](http://127.0.0.1:9/x.png) **bold** <img src=x onerror=alert(1)> [a](http://x) "


@dataclass
class FakeUpload:
    name: str
    data: bytes

    def getvalue(self) -> bytes:
        return self.data


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A fresh data folder whose library holds one sample (a DOCX) before the page starts."""
    yield from use_samples(tmp_path, monkeypatch, {"policy.docx": docx_bytes()})


def run_page(uploads: list[FakeUpload] | None = None, **state) -> AppTest:
    real = st.file_uploader

    def uploader(label, *args, key=None, **kwargs):
        if uploads and key == "documents_uploader_0":  # the first round only: then it clears
            return uploads
        return real(label, *args, key=key, **kwargs)

    at = AppTest.from_file(PAGE, default_timeout=60)
    for name, value in state.items():
        at.session_state[name] = value
    with mock.patch("streamlit.file_uploader", side_effect=uploader):
        at.run()
    assert not at.exception, at.exception
    return at


def markdown_text(at: AppTest) -> str:
    return "\n".join(shown(m.value) for m in at.markdown)


def outline(at: AppTest) -> str:
    """The Sections tab's tree, as the HTML its clickable component draws."""
    [tree] = at.get("bidi_component")
    return json.loads(tree.proto.json)["html"]


def entries(tree: str) -> list[tuple[int, str, str]]:
    """(level, title, facts) of each entry of the tree, as a reader sees them."""
    found = re.findall(r'aria-level="(\d)".*?<span class="cl-title[^"]*" title="[^"]*">(.*?)'
                       r'</span>.*?<span class="cl-facts">(.*?)</span>', tree)
    return [(int(level), title, facts) for level, title, facts in found]


def test_lists_documents_and_shows_sections_tables_and_text(data_dir):
    at = run_page()
    [picker] = at.selectbox
    assert picker.options == ["policy.docx  ·  DOCX  ·  sample"]  # from the samples folder
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Format"] == "DOCX" and metrics["Sections"] == "4" and metrics["Tables"] == "1"
    levels = [(level, title) for level, title, _ in entries(outline(at))]
    assert levels == [(1, "Home Insurance Policy"), (2, "Coverage"), (3, "Coverage limits"),
                      (2, "Exclusions")]
    [strip] = at.get("html")  # one view at a time: the sections (their strip) first
    assert "cl-chart" in strip.proto.body and "Coverage limits · chars" in strip.proto.body
    assert not at.dataframe and "cl-text" not in strip.proto.body
    at.session_state["documents_view"] = "Tables"
    at.run()
    assert "**Table 1: Coverage limits and deductibles**" in markdown_text(at)
    [frame] = at.dataframe
    assert list(frame.value.columns) == ["Cover", "Limit", "Deductible"]
    assert frame.value.iloc[1]["Cover"] == "Water | flood"
    at.session_state["documents_view"] = "Text"
    at.run()
    [text_html] = [h for h in at.get("html")]
    assert "Home Insurance Policy" in text_html.proto.body and "cl-table" in text_html.proto.body


def test_the_outline_is_a_tree_whose_entries_open_their_section(data_dir):
    doc = library().add(pdf_bytes(), "report.pdf")
    at = run_page(selected_doc_id=doc.doc_id)
    tree = outline(at)
    found = entries(tree)
    assert [(level, title) for level, title, _ in found] == [
        (1, "Field Report"), (2, "1. Site visit"), (3, "1.1 Measurements"),
        (2, "2. Findings part 2")]
    for (_, _, facts), section in zip(found, doc.sections, strict=True):
        assert re.fullmatch(f"{section.end - section.start:,} characters · pp?\\. [0-9–]+", facts)
    assert 'aria-selected="true"' not in tree  # nothing opened yet
    assert "Click a section to open its text and its place on the page." in [
        c.value for c in at.caption]
    at.session_state[f"documents_section_open_{doc.doc_id}"] = 3  # what a click on it sets
    at.run()
    assert not at.exception
    assert re.search(r'aria-selected="true" data-pick="3"', outline(at))
    assert any(shown(m.value).startswith("**2. Findings part 2** · level 2 · ")
               for m in at.markdown)
    opened = [h.proto.body for h in at.get("html") if "cl-text" in h.proto.body]
    assert opened and "2. Findings part 2" in opened[0] and "Site visit" not in opened[0]


def test_a_hostile_heading_is_escaped_in_the_outline(data_dir):
    hostile = "<img src=x onerror=alert(1)> **bold** [a](http://x)"
    doc = library().add(f"# {hostile}\n\nText.\n\n## Next\n\nMore.\n".encode(), "h.md")
    at = run_page(selected_doc_id=doc.doc_id)
    tree = outline(at)
    assert "<img" not in tree and "&lt;img src=x onerror=alert(1)&gt;" in tree
    at.session_state[f"documents_section_open_{doc.doc_id}"] = 0
    at.run()
    assert not at.exception
    assert not any(re.search(r"(?<!\\)<img", m.value) for m in at.markdown)
    assert any(shown(m.value).startswith(f"**{hostile}** · level 1") for m in at.markdown)


def test_upload_shows_one_result_per_file_and_keeps_earlier_documents(data_dir):
    at = run_page([FakeUpload("empty.txt", b""), FakeUpload("manual.html", HTML.encode()),
                   FakeUpload("fake.docx", b"%PDF-1.4 no")])
    errors = [shown(e.value) for e in at.error]
    assert errors == ["empty.txt is empty (0 bytes).",
                      "fake.docx is really a PDF file, not DOCX; rename it to .pdf and upload "
                      "it again."]
    [success] = at.success
    assert shown(success.value).startswith("manual.html: 4 sections, 1 table, ")
    at.run()  # the next click: the messages have been read
    assert not at.success and not at.error
    names = sorted(d.source_name for d in DocumentLibrary(data_dir / "documents").documents())
    assert names == ["manual.html", "policy.docx"]
    assert at.selectbox[0].value == next(
        d.doc_id for d in library().documents() if d.source_name == "manual.html")


def test_pdf_shows_its_route_note(data_dir):
    doc = library().add(pdf_bytes(), "report.pdf")
    at = run_page(selected_doc_id=doc.doc_id)
    assert {m.label: m.value for m in at.metric}["Pages"] == "2"
    assert any("Converted by **pdf-offline**" in c.value for c in at.caption)
    assert [shown(i.value) for i in at.info] == [OFFLINE_NOTE]


def test_remove_asks_for_confirmation_first(data_dir):
    at = run_page()
    at.button[0].click().run()
    assert "Remove **policy.docx** from the library?" in shown(at.warning[0].value)
    assert len(library().documents()) == 1
    next(b for b in at.button if b.label == "Yes, remove it").click().run()
    assert library().documents() == []
    assert [shown(s.value) for s in at.success] == ["Removed policy.docx."]
    assert "No documents yet" in at.info[0].value


def test_a_hostile_file_name_is_shown_as_text_on_documents(data_dir):
    kept = "![px](x.png) **bold** <b>"  # no slash: the library keeps the whole name
    text = b"# Title\n\nText.\n"
    at = run_page([FakeUpload(f"{HOSTILE}.md", text), FakeUpload(f"{kept}.txt", b""),
                   FakeUpload(f"{kept}.md", text + b"More.\n")])
    [success, _], [error] = at.success, at.error
    for value in (success.value, error.value):
        assert "![" not in value and "**" not in value and not re.search(r"(?<!\\)<img", value)
    assert shown(success.value).startswith(f"{HOSTILE}.md: 1 section, ")
    assert shown(error.value) == f"{kept}.txt is empty (0 bytes)."
    at.button[0].click().run()  # remove the (selected) hostile document: the confirmation
    [warning] = at.warning
    assert "![" not in warning.value
    assert shown(warning.value).startswith(f"Remove **{kept}.md** from")


def test_the_samples_can_be_removed_at_once_and_stay_removed(data_dir):
    at = run_page()
    assert library().sample_ids()
    at = run_page(uploads=[FakeUpload("guide.html", HTML.encode())])
    at.button(key="documents_remove_samples").click().run()
    assert not at.exception
    assert any("Removed 1 sample; they stay removed" in s.value for s in at.success)
    assert [d.source_name for d in library().documents()] == ["guide.html"]
    assert not [b for b in at.button if b.key == "documents_remove_samples"]  # none left
    library().ensure_samples(data_dir.parent / "samples")
    assert [d.source_name for d in DocumentLibrary(library().root).documents()] == ["guide.html"]


def test_pages_view_says_which_margin_line_numbers_were_left_out(data_dir):
    data, _ = transcript(pages=1)
    doc = library().add(data, "transcript.pdf")
    at = run_page(selected_doc_id=doc.doc_id, documents_view="Pages")
    assert any("Line numbers 1–25 in the margin left out" in shown(c.value) for c in at.caption)


def test_a_document_names_its_tables_and_finds_the_text_of_a_page():
    from core.documents.model import Block, Document, Section, Table

    text = "# Rates\nintro\n| a | b |\n| 1 | 2 |\nmore"
    table = text.index("| a")
    doc = Document(
        doc_id="d", source_name="d.pdf", format="pdf", route="text", text=text,
        sections=[Section(start=0, end=len(text), title="Rates", level=1, heading_start=2,
                          heading_end=7)],
        tables=[Table(start=table, end=table + 22, markdown=text[table:table + 22],
                      rows=[["a", "b"], ["1", "2"]]),
                Table(start=table, end=table + 22, markdown=text[table:table + 22],
                      rows=[["a", "b"]], caption="Rates by zone")],
        blocks=[Block(start=0, end=7, kind="heading", page=1),
                Block(start=8, end=13, kind="paragraph", page=1),
                Block(start=table, end=len(text), kind="paragraph", page=2)])
    assert doc.table_title(1) == "Table 1 · in Rates"
    assert doc.table_title(2) == "Rates by zone"
    assert doc.page_span(1) == (0, 13) and doc.page_span(2) == (table, len(text))
    assert doc.page_span(3) is None

"""The "Show on page" control under AppTest: on Compare, Documents and Assemble a chunk, a
section, a table or a source opens its page image with its own lines highlighted; documents
without pages get no control, and a slide deck says in one line that slides have no image."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import ui.page_view
from core.documents.model import Document, PageBox
from core.store import ChunkSetInfo, ChunkStore
from corpora.documents import docx_bytes, pptx_bytes
from tests.docfactory import chunk_document
from tests.pages import page_path, shown, use_samples
from ui.resources import library

REPORT = Path(__file__).resolve().parents[1] / "sample_docs" / "field_report.pdf"
QUESTION = "Where did dissolved oxygen fall in the early morning of the dry-weather round?"


@pytest.fixture
def report(tmp_path, monkeypatch) -> Iterator[Path]:
    yield from use_samples(tmp_path, monkeypatch, {REPORT.name: REPORT.read_bytes()})


@pytest.fixture
def drawn(monkeypatch) -> list[tuple[str, int, tuple[PageBox, ...]]]:
    """Every page image the control asks for: (document id, page, highlighted boxes)."""
    calls: list[tuple[str, int, tuple[PageBox, ...]]] = []
    real = ui.page_view.page_image

    def spy(doc_id: str, page: int, boxes: Any = (), *, whole: bool = True) -> bytes:
        calls.append((doc_id, page, tuple(boxes)))
        return real(doc_id, page, boxes, whole=whole)

    monkeypatch.setattr(ui.page_view, "page_image", spy)
    return calls


def run(page: str, **state: Any) -> AppTest:
    at = AppTest.from_file(page_path(page), default_timeout=120)
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def popovers(at: AppTest) -> dict[str, Any]:
    """The page's popovers by key: their proto (label, open)."""
    found: dict[str, Any] = {}

    def walk(node: Any) -> None:
        if getattr(node, "type", None) == "popover":
            found[node.proto.popover.id.split("-", 2)[-1]] = node
        children = getattr(node, "children", {})
        for child in children.values() if isinstance(children, dict) else children:
            walk(child)

    walk(at._tree)
    return found


def images_in(node: Any) -> int:
    children = getattr(node, "children", {})
    return (getattr(node, "type", None) == "image") + sum(
        images_in(c) for c in (children.values() if isinstance(children, dict) else children))


def test_a_compare_chunk_opens_on_its_page_with_its_lines(report, drawn) -> None:
    closed = run("compare", cmp_inspect_0=3)
    shut = popovers(closed)["cmp_page_0"]
    assert shut.proto.popover.label.startswith("Show on page · p")
    assert images_in(shut) == 0 and not drawn  # nothing drawn until opened

    at = run("compare", cmp_inspect_0=3, cmp_page_0=True)
    document = library().documents()[0]
    caption = next(c.value for c in at.caption if "highlighted" in c.value)
    chunks = chunk_document(document, "fixed", size=1000, overlap=0, unit="chars")
    target = chunks[2]
    first = target.pages[0]
    assert shown(caption).startswith(f"**p. {first} of 6** · field_report.pdf · ")
    assert images_in(popovers(at)["cmp_page_0"]) == 1
    assert drawn == [(document.doc_id, first,
                      tuple(b for b in target.boxes if b.page == first))]
    assert drawn[0][2]  # the chunk's own lines are highlighted


def test_documents_offers_sections_and_tables_on_their_page(report, drawn) -> None:
    document = library().documents()[0]
    at = run("documents", documents_section_page=True,
             **{f"documents_section_open_{document.doc_id}": 1})
    section = document.sections[1]
    assert images_in(popovers(at)["documents_section_page"]) == 1
    assert drawn[0][0] == document.doc_id and drawn[0][1] == min(
        b.page for b in document.provenance(section.start, section.end)[1])
    at = run("documents", documents_view="Tables", documents_table_page_1=True)
    assert document.tables and "documents_table_page_1" in popovers(at)
    assert drawn[-1][1] == document.tables[0].page


def test_a_document_without_pages_gets_no_control(tmp_path, monkeypatch) -> None:
    for _ in use_samples(tmp_path, monkeypatch, {"policy.docx": docx_bytes()}):
        at = run("documents")
        assert not popovers(at)
        assert "Click a section to open its text." in [c.value for c in at.caption]


def test_a_slide_deck_names_its_slides_without_an_image(tmp_path, monkeypatch) -> None:
    for _ in use_samples(tmp_path, monkeypatch, {"deck.pptx": pptx_bytes()}):
        deck = library().documents()[0]
        at = run("documents", **{f"documents_section_open_{deck.doc_id}": 0})
        assert not popovers(at)
        assert any(shown(c.value).startswith("From slide 1 of 2 (slides have no page image here)")
                   for c in at.caption)


def report_set() -> tuple[Document, ChunkStore]:
    """The report of the library chunked into the set "report"; the document and the store."""
    document = library().documents()[0]
    settings = {"size": 150, "overlap": 0, "unit": "tokens", "tables": True}
    store = ChunkStore()
    store.create_set(ChunkSetInfo(name="report", strategy="recursive", settings=settings))
    store.add_chunks("report", chunk_document(document, "recursive", **settings))
    return document, store


def test_an_assembled_source_opens_on_its_page(report, drawn) -> None:
    document, _ = report_set()
    at = run("assemble", assemble_question=QUESTION, assemble_limit=2)
    keys = [k for k in popovers(at) if k.startswith("assemble_page_a_")]
    assert len(keys) == 2 and not drawn
    at = run("assemble", assemble_question=QUESTION, assemble_limit=2, **{keys[0]: True})
    assert images_in(popovers(at)[keys[0]]) == 1
    doc_id, page, boxes = drawn[0]
    assert doc_id == document.doc_id and boxes and {b.page for b in boxes} == {page}
    assert any(shown(c.value).startswith(f"**p. {page} of 6** · field_report.pdf")
               for c in at.caption)


def test_the_citation_map_names_pages_with_the_characters_in_a_tooltip(report) -> None:
    _, store = report_set()
    at = run("assemble", assemble_question=QUESTION, assemble_limit=2)
    mapped = "\n".join(m.value for m in at.markdown if "#cite-a-1" in m.value)
    found = re.search(r'\[(pp?\. [\d, –]+)\]\(#cite-a-1 "characters ([\d,]+)–([\d,]+)"\)',
                      mapped)
    assert found, mapped
    start, end = (int(found.group(n).replace(",", "")) for n in (2, 3))
    assert f"spans {start:,}" not in mapped  # characters only in the tooltip
    pages = {p for c in store.get_chunks("report") if c.start < end and start < c.end
             for p in c.pages}
    assert found.group(1) in (f"p. {min(pages)}", f"pp. {min(pages)}–{max(pages)}",
                              "pp. " + ", ".join(map(str, sorted(pages))))
    source = [c for c in at.caption if "score " in c.value][0]
    assert found.group(1) in source.value and source.proto.help.startswith("characters ")

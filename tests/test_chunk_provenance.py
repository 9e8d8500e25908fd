"""Every chunk of a paginated document knows the pages and line boxes it was read from, and
exports, stored chunks, packs and assembled prompts carry them."""

from __future__ import annotations

import json
import random

import pytest

from core.assembly.model import page_label
from core.assembly.prompt import assemble_prompt
from core.documents import convert
from core.documents.model import Document
from core.operations.export import export_chunks
from core.operations.strategies import chunk
from core.retrieval.packs import merged_packs
from core.store.records import chunk_from_record, chunk_metadata

WORDS = ["alpha", "bravo", "charlie"]  # one word each page's text is made of


def three_pages() -> bytes:
    from fpdf import FPDF

    rng = random.Random(3)
    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", "", 11)
    for number, word in enumerate(WORDS, start=1):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 10, f"Part {number}", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        for _ in range(6):
            sentence = " ".join(f"{word}{rng.randint(1, 99)}" for _ in range(40)) + "."
            pdf.multi_cell(0, 6, sentence, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
    return bytes(pdf.output())


@pytest.fixture(scope="module")
def document() -> Document:
    return convert(three_pages(), "three.pdf")


def test_line_boxes_hold_their_text_and_stand_on_their_page(document: Document) -> None:
    assert document.boxes
    for box in document.boxes:
        text = document.text[box.start:box.end]
        assert text and text == text.strip()
        info = document.page_info[box.page - 1]
        assert 0 <= box.x0 < box.x1 <= info.width and 0 <= box.top < box.bottom <= info.height
        words = {w.rstrip("0123456789.") for w in text.split()} - {"Part"}
        assert words <= {WORDS[box.page - 1]}, (box.page, text)


@pytest.mark.parametrize("strategy", ["fixed", "recursive"])
def test_every_chunk_names_the_pages_its_words_are_on(document: Document, strategy: str
                                                      ) -> None:
    settings = {"size": 300, "overlap": 0, "unit": "chars"}
    chunks = chunk(document, strategy, settings)
    assert len({tuple(c.pages) for c in chunks}) >= 3
    for c in chunks:
        on = {n for n, word in enumerate(WORDS, start=1) if word in c.text}
        assert set(c.pages) == on, (c.pages, c.text[:80])
        assert {b.page for b in c.boxes} == on


def test_exports_store_records_packs_and_prompts_carry_the_pages(document: Document) -> None:
    chunks = chunk(document, "recursive", {"size": 300, "overlap": 0, "unit": "chars"})
    second = next(c for c in chunks if c.pages == [2])
    langchain = json.loads(export_chunks(document, chunks, "langchain"))
    found = next(d for d in langchain if d["id"] == second.id)["metadata"]
    assert (found["page"], found["page_label"], found["pages"]) == (1, "2", [2])
    llamaindex = json.loads(export_chunks(document, chunks, "llamaindex"))
    assert next(n for n in llamaindex if n["id_"] == second.id)["metadata"]["page_label"] == "2"
    rows = [json.loads(line) for line in export_chunks(document, chunks, "jsonl").splitlines()]
    row = next(r for r in rows if r["metadata"]["chunk_id"] == second.id)
    assert row["pages"] == [2] and row["boxes"][0]["page"] == 2
    stored = chunk_from_record(second.id, second.text, chunk_metadata(second))
    assert stored == second
    packs = merged_packs([(second, 0.9)], 1, {document.doc_id: chunks})
    assert packs[0].pages == [2]
    assembled = assemble_prompt("Which bravo?", packs, doc_names={document.doc_id: "three.pdf"})
    assert "Doc: three.pdf, p. 2" in assembled.prompt.user
    assert assembled.citations[0].pages == [2]
    assert json.loads(assembled.model_dump_json())["citations"][0]["pages"] == [2]


def test_page_labels() -> None:
    assert [page_label(p) for p in ([], [3], [3, 4, 5], [3, 7])] == [
        "", "p. 3", "pp. 3–5", "pp. 3, 7"]


def test_slides_are_the_pages_of_a_deck() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "sample_docs" / "onboarding_deck.pptx"
    deck = convert(path.read_bytes(), path.name)
    chunks = chunk(deck, "recursive", {"size": 200, "overlap": 0, "unit": "chars"})
    assert all(c.pages and set(c.pages) <= set(range(1, (deck.pages or 0) + 1)) for c in chunks)
    assert len({p for c in chunks for p in c.pages}) == deck.pages

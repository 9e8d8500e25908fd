"""A stretch of a document shown on its page: boxes in points become the right pixels, and the
highlight drawn on a real PDF's page image covers the chunk's words and nothing else."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pdfplumber
import pytest
from PIL import Image

from core.documents.model import Block, Document, PageBox
from core.documents.pdf.render import box_pixels
from core.library import DocumentLibrary
from core.operations.page_view import CONTEXT_SHARE, page_picture, span_pages
from core.operations.strategies import chunk

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "sample_docs" / "field_report.pdf"  # A4, its MediaBox inherited from the tree
FIXTURE = ROOT / "tests" / "fixtures" / "pdf" / "no-unicode-map.pdf"  # likewise


def _pixels(jpeg: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB")).astype(int)


def _amber(pixels: np.ndarray) -> np.ndarray:
    """Where the see-through amber lies on paper (white turns to about (255, 236, 175))."""
    return (pixels[..., 0] - pixels[..., 2] > 40) & (pixels[..., 0] > 200)


def test_a_box_in_points_maps_to_pixels_from_the_top_left_corner() -> None:
    box = PageBox(page=1, x0=72, top=100, x1=144, bottom=112)
    assert box_pixels(box, 2.0, pad=0) == (144, 200, 288, 224)
    assert box_pixels(box, 1.5, pad=2) == (105, 147, 219, 171)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[DocumentLibrary, Document]:
    library = DocumentLibrary(tmp_path_factory.mktemp("library"))
    return library, library.add(REPORT.read_bytes(), REPORT.name)


def test_the_highlight_covers_the_chunks_words_and_nothing_else(
        stored: tuple[DocumentLibrary, Document]) -> None:
    library, document = stored
    chunks = chunk(document, "recursive", {"size": 120, "overlap": 0, "unit": "tokens"})
    target = next(c for c in chunks if c.pages == [2] and len(c.boxes) >= 3)
    where = span_pages(document, [(target.start, target.end)])
    assert where is not None and where.pages == (2,) and where.drawable
    assert where.of_total(2) == f"p. 2 of {document.pages}"
    plain = _pixels(library.page_image(document.doc_id, 2))
    lit = _pixels(page_picture(library, document.doc_id, 2, where.boxes_on(2)))
    amber = _amber(lit)
    assert not _amber(plain).any()

    def lines(text: str, shortest: int = 20) -> list[str]:  # without Markdown marks
        return [re.sub(r"^[#.,;: ]+", "", line.strip()) for line in text.splitlines()
                if len(line.strip()) > shortest and not line.startswith("|")]

    chunk_lines = lines(target.text)
    other_lines = [line for c in chunks if c.pages == [2] and not set(c.boxes) & set(target.boxes)
                   for line in lines(c.text)]  # chunks sharing no line with the target
    assert chunk_lines and other_lines
    # the chunk's words, found on the page by another reader (pdfplumber), in its own frame
    with pdfplumber.open(REPORT) as pdf:
        page = pdf.pages[1]
        scale = lit.shape[1] / float(page.width)

        def where_on_page(words: str) -> dict[str, float]:
            found = page.search(r"\s+".join(map(re.escape, words.split())))
            assert found, words
            return found[0]

        def share_lit(line: str) -> float:
            hit = where_on_page(line[:40])
            x0, top = int(hit["x0"] * scale) + 2, int(hit["top"] * scale) + 2
            x1, bottom = int(hit["x1"] * scale) - 2, int(hit["bottom"] * scale) - 2
            return float(amber[top:bottom, x0:x1].mean())

        assert all(share_lit(line) > 0.4 for line in chunk_lines)
        assert all(share_lit(line) < 0.02 for line in other_lines)
        every = lines(target.text, 0)
        first, last = where_on_page(every[0][:40]), where_on_page(every[-1][-40:])
    rows = np.flatnonzero(amber.any(axis=1))
    assert abs(rows[0] - first["top"] * scale) <= 6
    assert abs(rows[-1] - last["bottom"] * scale) <= 6

    # and every amber pixel lies inside one of the chunk's boxes
    inside = np.zeros_like(amber)
    for box in where.boxes_on(2):
        left, top, right, bottom = box_pixels(box, scale)
        inside[max(top - 3, 0):bottom + 3, max(left - 3, 0):right + 3] = True
    assert not (amber & ~inside).any()


def test_boxes_of_a_fixture_pdf_land_on_its_ink(tmp_path: Path) -> None:
    """A PDF whose fonts have no Unicode map: every line box of the text holds ink, across its
    width (a page read in the wrong frame puts boxes between lines and past the margin)."""
    library = DocumentLibrary(tmp_path)
    document = library.add(FIXTURE.read_bytes(), FIXTURE.name)
    ink = _pixels(library.page_image(document.doc_id, 1)).sum(axis=2) < 300
    scale = ink.shape[1] / document.page_info[0].width
    lines = [b for b in document.boxes if b.page == 1]
    assert len(lines) > 10
    for box in lines:
        left, top, right, bottom = box_pixels(box, scale, pad=0)
        rows = ink[top:bottom, left:right].any(axis=1)
        columns = ink[top:bottom, left:right].any(axis=0)
        assert rows.mean() > 0.4, box
        assert columns[:20].any() and columns[-20:].any(), box


def test_only_paginated_originals_have_pages_and_only_pdfs_an_image() -> None:
    text = "Intro\n\nSlide two words\n\nSlide three words"
    blocks = [Block(start=0, end=5, kind="paragraph", page=1),
              Block(start=7, end=22, kind="paragraph", page=2),
              Block(start=24, end=41, kind="paragraph", page=3)]
    deck = Document(doc_id="d", source_name="deck.pptx", format="pptx", route="docling",
                    text=text, blocks=blocks, pages=3)
    where = span_pages(deck, [(7, 41)])
    assert where is not None and not where.drawable and where.pages == (2, 3)
    assert where.without_image() == "From slides 2–3 of 3 (slides have no page image here)."
    flat = Document(doc_id="f", source_name="notes.md", format="md", route="markdown",
                    text=text, blocks=[b.model_copy(update={"page": None}) for b in blocks])
    assert span_pages(flat, [(0, 5)]) is None


def test_without_boxes_the_page_is_shown_plain(
        stored: tuple[DocumentLibrary, Document]) -> None:
    library, document = stored
    plain = library.page_image(document.doc_id, 1)
    assert page_picture(library, document.doc_id, 1) == plain
    box = PageBox(page=1, x0=10, top=10, x1=50, bottom=20)
    assert _amber(_pixels(page_picture(library, document.doc_id, 1, [box]))).any()


def test_the_band_around_a_region_is_cut_from_the_page(
        stored: tuple[DocumentLibrary, Document]) -> None:
    library, document = stored
    info = document.page_info[0]
    box = PageBox(page=1, x0=100, top=400, x1=300, bottom=420)
    whole = _pixels(page_picture(library, document.doc_id, 1, [box]))
    band = _pixels(page_picture(library, document.doc_id, 1, [box], whole=False))
    scale = whole.shape[1] / info.width
    assert band.shape[1] == whole.shape[1]
    context = info.height * CONTEXT_SHARE
    assert abs(band.shape[0] - (20 + 2 * context) * scale) <= 2
    rows = np.flatnonzero(_amber(band).any(axis=1))
    assert abs(rows[0] - context * scale) <= 6 and abs(rows[-1] - (context + 20) * scale) <= 6
    top = round((400 - context) * scale)  # the band is that stretch of the highlighted page
    assert np.abs(band[5:-5] - whole[top + 5:top + band.shape[0] - 5]).mean() < 3

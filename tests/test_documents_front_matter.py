"""Covers, contents, lists of figures and indexes are front matter in every route (DOCX, HTML,
Markdown, plain text, PDF), marked one way (``Document.front_matter``): a chunk knows it is
front matter, no chunk straddles its edge, and retrieval leaves it out unless asked."""

from __future__ import annotations

import io

import pytest

from core.documents import convert
from core.documents.matter import find_front_matter
from core.documents.model import Block, Document, FrontMatter
from core.documents.plain_text import convert_text
from core.retrieval.front_matter import retrievable
from core.retrieval.retrieve import retrieve
from tests.docfactory import assert_spans_exact, chunk_document
from tests.retrieval_helpers import FakeStore

BODY = ("The utility runs four treatment works and about two thousand kilometres of mains. "
        "Reservoir levels recovered by late autumn, and hosepipe restrictions were lifted. ")
MARKDOWN = f"""# Harbour Water Handbook

Amara Okafor, Bruno Lindqvist and Chen Wei

## Table of contents

- [Introduction](#introduction)
- [Reservoirs](#reservoirs)
- [Treatment works](#treatment-works)

## Introduction

{BODY * 3}

## Reservoirs

{BODY * 3}

## Treatment works

{BODY * 3}

## Index

mains, 3

reservoirs, 5, 7

treatment works, 9
"""
TEXT = f"""Harbour Water Handbook
Harbourside Technical Press

Contents
Introduction . . . . . . . . . . 3
Reservoirs . . . . . . . . . . . 5
Treatment works . . . . . . . . 9

{BODY * 4}

List of figures
Figure 1 Reservoir levels . . . . . . 5
Figure 2 Night flows . . . . . . . . 6
Figure 3 Dosing at the intake . . . 9
"""


def docx_handbook() -> bytes:
    """A DOCX as Word writes a book: a title page, a contents list whose entries end in a tab
    and a page number, then the chapters."""
    import docx

    d = docx.Document()
    d.add_paragraph("Harbour Water Handbook", style="Title")
    d.add_paragraph("Amara Okafor, Bruno Lindqvist and Chen Wei")
    d.add_paragraph("Harbourside Technical Press")
    d.add_paragraph("Contents", style="TOC Heading")
    for name, page in [("Introduction", 3), ("Reservoirs", 5), ("Treatment works", 9)]:
        d.add_paragraph(f"{name}\t{page}")
    for name in ("Introduction", "Reservoirs", "Treatment works"):
        d.add_heading(name, 1)
        d.add_paragraph(BODY * 3)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


HTML = f"""<html><body><h1>Harbour Water Handbook</h1><p>Amara Okafor and Chen Wei</p>
<nav><h2>Contents</h2><ul><li><a href="#i">Introduction</a></li><li><a href="#r">Reservoirs</a>
</li><li><a href="#t">Treatment works</a></li></ul></nav>
<h2 id="i">Introduction</h2><p>{BODY * 3}</p><h2 id="r">Reservoirs</h2><p>{BODY * 3}</p>
<h2 id="t">Treatment works</h2><p>{BODY * 3}</p>
<h2>Index</h2><ul><li>mains, 3</li><li>reservoirs, 5, 7</li><li>treatment works, 9</li></ul>
</body></html>"""


def roles(doc: Document) -> list[tuple[str, str]]:
    return [(m.role, doc.text[m.start:m.end].split("\n")[0]) for m in doc.front_matter]


@pytest.fixture(scope="module")
def documents() -> dict[str, Document]:
    return {"docx": convert(docx_handbook(), "handbook.docx"),
            "html": convert(HTML.encode(), "handbook.html"),
            "md": convert(MARKDOWN.encode(), "handbook.md"),
            "txt": convert(TEXT.encode(), "handbook.txt")}


def test_every_route_marks_cover_contents_figures_and_index(documents) -> None:
    assert roles(documents["docx"]) == [("cover", "# Harbour Water Handbook"),
                                        ("contents", "## Contents")]
    assert roles(documents["html"]) == [("cover", "# Harbour Water Handbook"),
                                        ("contents", "## Contents"), ("index", "## Index")]
    assert roles(documents["md"]) == [("cover", "# Harbour Water Handbook"),
                                      ("contents", "## Table of contents"), ("index", "## Index")]
    assert roles(documents["txt"]) == [("cover", "Harbour Water Handbook"),
                                       ("contents", "Contents"), ("figures", "List of figures")]
    for doc in documents.values():
        assert_spans_exact(doc)
        body = doc.text.index("The utility runs")
        assert doc.matter_of(body, body + 200) is None  # the chapters are the body


@pytest.mark.parametrize("route", ["docx", "html", "md", "txt"])
def test_chunks_know_they_are_front_matter_and_never_straddle_its_edge(documents, route) -> None:
    doc = documents[route]
    for strategy in ("fixed", "recursive"):
        chunks = chunk_document(doc, strategy, size=400, overlap=0, unit="chars")
        for chunk in chunks:
            inside = [m for m in doc.front_matter if m.start < chunk.end and chunk.start < m.end]
            if chunk.front_matter is not None:
                assert inside and all(m.start <= chunk.start and chunk.end <= m.end
                                      for m in inside), chunk.text
            else:
                assert not inside, chunk.text
        assert {c.front_matter for c in chunks} >= {"contents", None}


def test_retrieval_leaves_front_matter_out_unless_asked(documents) -> None:
    doc = documents["md"]
    chunks = chunk_document(doc, "recursive", size=300, overlap=0, unit="chars")
    store = FakeStore({"book": chunks}, active="book")
    question = "introduction reservoirs treatment works mains"
    for ranking in ("vector", "bm25", "hybrid"):
        packs = retrieve(question, limit=10, ranking=ranking, store=store)  # type: ignore[arg-type]
        texts = [p.text for p in packs]
        assert texts and not any("[Reservoirs]" in t or "mains, 3" in t for t in texts), ranking
    everything = retrieve(question, limit=10, ranking="bm25", store=store,  # type: ignore[arg-type]
                          include_front_matter=True)
    assert any("mains, 3" in p.text for p in everything)
    assert [retrievable(c) for c in chunks] == [c.front_matter is None for c in chunks]
    assert all(retrievable(c, include_front_matter=True) for c in chunks)


def test_a_heading_named_index_over_prose_is_body_text() -> None:
    text = ("# Tuning\n\n## Index\n\nAn index speeds up lookups on a column, 3 times in our tests."
            "\n\nIt costs space on disk, and every insert updates it.\n")
    assert convert(text.encode(), "tuning.md").front_matter == []
    listing = "Contents\n\nNotes on the pumps at Ashford\n\nThe board met twice.\n"
    assert convert_text(listing).front_matter == []  # a title over prose is no listing


def test_a_wrapped_entry_stays_in_its_listing_and_a_long_preamble_is_no_cover() -> None:
    text = ("A long introduction that reads as running text and is certainly not a cover, "
            "because it says a great deal about the work of the board over the year.\n\n"
            "Contents\n1 Supply . . . . . . 3\n2 Leakage and pressure management across the "
            "network\nand the districts it serves . . . . . 5\n3 Quality . . . . . . 8\n\n"
            + BODY)
    found = convert_text(text).front_matter
    assert [m.role for m in found] == ["contents"]
    assert text[found[0].start:found[0].end].endswith("3 Quality . . . . . . 8")


def test_a_stretch_is_front_matter_when_most_of_it_is() -> None:
    text = "Contents\n\nA . . . . 1\n\nB . . . . 2\n\nC . . . . 3\n\n" + "body text " * 4
    blocks = [Block(kind="paragraph", start=0, end=len(text))]
    [contents] = find_front_matter(text, blocks)
    doc = Document(doc_id="d", source_name="t.txt", format="txt", route="text", text=text,
                   blocks=blocks, front_matter=[contents])
    assert doc.matter_of(0, contents.end) == "contents"
    assert doc.matter_of(0, contents.end + 12) == "contents"
    assert doc.matter_of(0, len(text)) is None  # most of it is body
    assert doc.matter_of(contents.end + 2, len(text)) is None
    assert FrontMatter(role="index", start=0, end=1).role == "index"


def test_the_mark_is_stored_with_the_chunk_and_read_from_sets_stored_before(documents) -> None:
    from core.store.records import chunk_from_record, chunk_metadata

    chunks = chunk_document(documents["md"], "recursive", size=300, overlap=0, unit="chars")
    contents = next(c for c in chunks if c.front_matter == "contents")
    meta = dict(chunk_metadata(contents))
    assert meta["front_matter"] == "contents"
    assert chunk_from_record(contents.id, contents.text, meta).front_matter == "contents"
    meta["page_role"] = meta.pop("front_matter")  # a PDF's chunk stored before every route
    assert chunk_from_record(contents.id, contents.text, meta).front_matter == "contents"

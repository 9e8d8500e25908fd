"""Books as a reader sees them (tests/fixtures/pdf/books, made by corpora.pdf_books): every
heading found at its level, chapters above their numbered sections whatever running headers
repeat their titles, no line of a cover taken for a heading, and no contents or index line
among the results of a retrieval."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from core.documents.model import ConvertedText
from core.documents.pdf import convert_pdf_offline
from corpora.pdf_score import (
    cover_headings,
    front_matter_results,
    heading_level_agreement,
    heading_recall,
    reference_headings,
    word_f1,
)

FOLDER = Path(__file__).resolve().parent / "fixtures" / "pdf" / "books"
BOOKS = ["field-guide", "annual-report"]


@cache
def converted(name: str) -> ConvertedText:
    return convert_pdf_offline((FOLDER / f"{name}.pdf").read_bytes(), f"{name}.pdf")


def reference(name: str) -> str:
    return (FOLDER / f"{name}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", BOOKS)
def test_every_heading_is_found_at_its_level_and_no_cover_line_is_one(name) -> None:
    book, ref = converted(name), reference(name)
    titles = [s.title for s in book.sections]
    assert heading_recall(titles, reference_headings(ref)) == 1.0
    assert heading_level_agreement([(s.title, s.level) for s in book.sections], ref) == 1.0
    assert cover_headings(titles, ref) == []
    assert word_f1(book.text, ref) >= 0.99


@pytest.mark.parametrize("name", BOOKS)
def test_no_contents_or_index_line_is_among_retrieval_results(name) -> None:
    assert front_matter_results(converted(name), reference(name)) == 0


def test_a_chapter_opens_its_numbered_sections_though_running_headers_repeat_its_title(
) -> None:
    book = converted("field-guide")
    document = book.document("guide", "field-guide.pdf", "pdf")
    deep = next(s for s in book.sections if s.title.startswith("3.3.2 "))
    assert document.heading_path(deep.start) == [
        "Chapter 3. Monitoring and response", "3.3 Exercises on paper",
        "3.3.2 Activating the manual logs"]
    # the running headers are taken out of the text (kept as the pages' facts): the title is
    # left in the contents and in its heading only
    assert [p.running[0] for p in book.page_info if p.number in (4, 5)] == [
        "Chapter 1. Securing the control network"] * 2
    assert book.text.count("Chapter 1. Securing the control network") == 2


def test_a_huge_chapter_number_is_the_start_of_its_heading_not_a_page_number() -> None:
    book = converted("annual-report")
    chapters = [s.title for s in book.sections if s.level == 1]
    assert chapters == ["Contents", "List of figures", "1 Supply and demand",
                        "2 Leakage and pressure", "3 Water quality", "4 Customers and billing"]
    assert [(p.number, p.role) for p in book.page_info if p.role] == [
        (1, "cover"), (2, "contents"), (3, "contents"), (4, "figures"), (17, "cover")]
    # each chapter's two-page running header ("2 Leakage and pressure") is out of the text
    assert book.text.count("Leakage and pressure") == 2
    assert [p.running for p in book.page_info if p.number in (9, 10)] == [
        ["2 Leakage and pressure", "9"], ["2 Leakage and pressure", "10"]]


def plain_chapters() -> bytes:
    """Chapters whose titles are set like the running text (10 pt regular) at the top of their
    first page, named by the running header of their other pages; sections in bold."""
    from fpdf import FPDF

    from corpora.pdf_layouts import paragraph

    rng = random.Random("plain")
    current = {"title": "", "first": 0}

    class Book(FPDF):
        def header(self) -> None:
            if current["title"] and self.page_no() != current["first"]:
                self.set_font("Helvetica", "", 8)
                self.cell(0, 5, f"{current['title']}   {self.page_no()}", align="L")
                self.ln(10)

    pdf = Book(format="A4")
    for number, title in enumerate(["Supply and demand", "Roles and duties"], start=1):
        pdf.add_page()
        current.update(title=f"Chapter {number}. {title}", first=pdf.page_no())
        pdf.set_font("Helvetica", "", 10)
        pdf.multi_cell(0, 5, current["title"], new_x="LMARGIN", new_y="NEXT")
        for section, name in enumerate(["Sources", "Findings", "Outlook"], start=1):
            pdf.ln(3)
            pdf.set_font("Helvetica", "B", 10)
            pdf.multi_cell(0, 5, f"{number}.{section} {name} for {title.lower()}",
                           new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("Helvetica", "", 10)
            for _ in range(4):
                pdf.multi_cell(0, 5, paragraph(rng, 8), new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
    return bytes(pdf.output())


def test_a_chapter_title_set_like_running_text_is_found_by_its_running_header() -> None:
    book = convert_pdf_offline(plain_chapters(), "plain.pdf")
    levels = [(s.level, s.title) for s in book.sections]
    assert levels[:2] == [(1, "Chapter 1. Supply and demand"),
                          (2, "1.1 Sources for supply and demand")]
    assert (1, "Chapter 2. Roles and duties") in levels
    assert book.text.count("Chapter 2. Roles and duties") == 1  # its running headers are out

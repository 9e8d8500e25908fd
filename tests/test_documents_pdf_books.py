"""Books as a reader sees them (tests/fixtures/pdf/books, made by corpora.pdf_books): every
heading found at its level, chapters above their numbered sections whatever running headers
repeat their titles, no line of a cover taken for a heading, and no contents or index line
among the results of a retrieval."""

from __future__ import annotations

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

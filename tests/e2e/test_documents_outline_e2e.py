"""In a real browser: a book's Sections tab is an indented tree of its chapters and sections
(its cover no part of it, its contents page marked as set apart); a click on an entry opens the
section's text and its place on the page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import ARTIFACTS, open_pdf_on_documents, wait_for_app

pytestmark = pytest.mark.e2e
WAIT = 60_000
BOOK = Path(__file__).resolve().parents[1] / "fixtures" / "pdf" / "books" / "field-guide.pdf"


def test_a_book_outline_opens_its_sections_in_the_text_and_on_the_page(page, start_app,
                                                                       tmp_path):
    open_pdf_on_documents(page, start_app, tmp_path, BOOK, 1400)

    tree = page.get_by_role("tree", name="Sections")
    chapters = tree.locator('[aria-level="1"]')
    expect(chapters).to_have_count(5, timeout=WAIT)  # contents, three chapters, index
    expect(chapters.nth(3)).to_contain_text("Chapter 3. Monitoring and response")
    expect(tree.locator('[aria-level="3"]').last).to_contain_text(
        "3.3.2 Activating the manual logs")
    expect(tree).not_to_contain_text("Amara Okafor")  # the cover's author list is no heading
    expect(chapters.first.locator(".cl-matter")).to_have_text("contents")
    expect(tree.get_by_role("treeitem").nth(1)).to_contain_text(re.compile(r"characters · pp?\. "))

    tree.get_by_role("treeitem").filter(has_text="3.3.2 Activating the manual logs").click()
    wait_for_app(page)
    main = page.get_by_test_id("stMain")
    expect(tree.locator('[aria-selected="true"]')).to_contain_text("3.3.2 Activating",
                                                                   timeout=WAIT)
    expect(main.get_by_text(re.compile(r"Chapter 3\. Monitoring and response › 3\.3 Exercises "
                                       r"on paper › 3\.3\.2"))).to_be_visible(timeout=WAIT)
    expect(main.locator(".cl-text").last).to_contain_text("3.3.2 Activating the manual logs",
                                                          timeout=WAIT)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "documents_sections_tree.png"), full_page=True)

    main.get_by_role("button", name=re.compile(r"Show on page · p\. 12")).click()
    expect(page.get_by_test_id("stPopoverBody").get_by_role("img").first).to_be_visible(
        timeout=WAIT)
    page.screenshot(path=str(ARTIFACTS / "documents_section_on_page.png"), full_page=True)
    expect(page.get_by_test_id("stException")).to_have_count(0)

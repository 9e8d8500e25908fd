"""In a real browser: upload a DOCX (plus a broken file) and see its sections and its table."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from corpora.documents import docx_bytes
from tests.e2e.browser import ARTIFACTS, wait_for_app

pytestmark = pytest.mark.e2e
WAIT = 60_000  # other test runs share the two cores: be patient


def test_upload_docx_and_see_sections_and_table(page, start_app):
    url = start_app()  # own data folder: the upload does not change the shared app's library
    page.goto(f"{url}/documents")
    wait_for_app(page)
    # the first run converts the sample documents before the page draws
    expect(page.get_by_role("heading", name="Documents")).to_be_visible(timeout=120_000)

    page.locator("input[type=file]").set_input_files([
        {"name": "policy.docx", "mimeType": "application/octet-stream", "buffer": docx_bytes()},
        {"name": "scan.pdf", "mimeType": "application/pdf", "buffer": b"not a pdf at all"},
    ])
    expect(page.get_by_text("policy.docx: 4 sections, 1 table, ")).to_be_visible(timeout=120_000)
    wait_for_app(page)
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text(
        "scan.pdf is not a valid PDF file", timeout=WAIT)
    picker = page.get_by_role("combobox", name="Document")
    expect(picker).to_have_value(re.compile("policy.docx"), timeout=WAIT)

    tree = page.get_by_role("tree", name="Sections")
    for title in ("Home Insurance Policy", "Coverage", "Coverage limits", "Exclusions"):
        expect(tree).to_contain_text(title, timeout=WAIT)
    expect(tree.locator('[aria-level="3"]')).to_contain_text("Coverage limits", timeout=WAIT)
    expect(page.locator(".cl-chart .cl-bar").first).to_be_visible(timeout=WAIT)  # the strip
    expect(page.get_by_test_id("stException")).to_have_count(0)

    page.get_by_text("Tables (1)", exact=True).click()
    wait_for_app(page)
    tables = page.get_by_test_id("stMain")
    caption = tables.get_by_text("Table 1: Coverage limits and deductibles")
    expect(caption).to_be_visible(timeout=WAIT)
    expect(tables.get_by_test_id("stDataFrame")).to_be_visible(timeout=WAIT)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "documents_tables_tab.png"), full_page=True)

    page.get_by_text("Text", exact=True).click()
    wait_for_app(page)
    table_mark = page.locator(".cl-text mark.cl-table")
    expect(table_mark).to_contain_text("| Cover", timeout=WAIT)
    expect(table_mark).to_contain_text("Water \\| flood", timeout=WAIT)
    expect(page.locator(".cl-text .cl-label").first).to_have_text("H1", timeout=WAIT)

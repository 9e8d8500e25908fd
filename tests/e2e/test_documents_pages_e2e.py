"""In a real browser: a real PDF's page image beside the text read from it, with the quality
note and the conversion time."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import ARTIFACTS, open_pdf_on_documents, wait_for_app

pytestmark = pytest.mark.e2e
WAIT = 60_000
PDF = Path(__file__).resolve().parents[1] / "golden" / "pdf" / "federal-register-2020-17221.pdf"


def test_page_image_beside_its_text(page, start_app, tmp_path):
    open_pdf_on_documents(page, start_app, tmp_path, PDF, 1500)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text(re.compile(r"Converted by pdf-offline in [0-9.]+ s"))).to_be_visible(
        timeout=WAIT)
    expect(main.get_by_text(re.compile("3 columns detected on 10 pages"))).to_be_visible(
        timeout=WAIT)

    main.get_by_text("Pages beside text", exact=True).click()
    wait_for_app(page)
    image = main.get_by_test_id("stImage").locator("img")
    expect(image).to_be_visible(timeout=WAIT)
    expect(main.locator(".cl-text")).to_contain_text("Proposed Rules", timeout=WAIT)

    number = main.get_by_test_id("stNumberInputField")
    number.fill("2")
    number.press("Enter")
    wait_for_app(page)
    expect(main.locator(".cl-text")).to_contain_text("Hatta International Airport", timeout=WAIT)
    expect(main.get_by_text(re.compile("Read as 3 columns"))).to_be_visible(timeout=WAIT)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "documents_pages_view.png"), full_page=True)

    # back to page 1: its image was drawn once and is not drawn again
    started = time.monotonic()
    number.fill("1")
    number.press("Enter")
    wait_for_app(page)
    expect(main.locator(".cl-text")).to_contain_text("Proposed Rules", timeout=WAIT)
    assert time.monotonic() - started < 5
    expect(page.get_by_test_id("stException")).to_have_count(0)

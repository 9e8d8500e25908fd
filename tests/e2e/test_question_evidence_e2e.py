"""Browser: a question written by hand gets its passages suggested and is added with one; the
set's passages are then found, its reference among them; an alternative is added."""

import re

import pytest
from playwright.sync_api import expect

from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK
from tests.e2e.browser import ARTIFACTS, pick, upload_markdown, wait_for_app

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)  # the app shares two cores with the other tests
WAIT = 120_000


def test_suggest_add_find_and_add_an_alternative(page, start_app, tmp_path):
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(tmp_path / "data")})
    upload_markdown(page, url, "claims_handbook.md", HANDBOOK)

    page.goto(f"{url}/questions")
    wait_for_app(page)
    page.get_by_text("Add a question by selecting its excerpt").click()
    pick(page, "stSelectbox", "Document", "claims_handbook.md")
    asked = page.get_by_label("Question", exact=True)
    asked.fill("When does someone call me back about my claim?")
    asked.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Suggest passages").click()
    wait_for_app(page)
    expect(page.get_by_text("Passage 1: characters")).to_be_visible(timeout=WAIT)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "questions_suggested_passages.png"), full_page=True)
    page.get_by_role("button", name="Add with passage 1").click()
    wait_for_app(page)
    expect(page.get_by_text("my questions · 1 question")).to_be_visible(timeout=WAIT)
    expect(page.get_by_text("Excerpt: Claims are reported by phone")).to_be_visible()

    page.get_by_label("Another excerpt that answers it").fill(
        "An adjuster calls back within two working days to arrange a visit.")
    page.get_by_role("button", name="Add alternative").click()
    wait_for_app(page)
    expect(page.get_by_text(re.compile("Alternative 1, characters"))).to_be_visible(timeout=WAIT)

    page.get_by_text("Find the passages that match each question").click()
    page.get_by_role("button", name="Find passages").click()
    wait_for_app(page)
    expect(page.get_by_text(re.compile("among them for 1 of the 1 with a reference"))) \
        .to_be_visible(timeout=WAIT)
    page.screenshot(path=str(ARTIFACTS / "questions_evidence_panel.png"), full_page=True)

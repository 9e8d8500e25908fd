"""Browser: build an LLM chunk set on the Chunk sets page (fake model), then retrieve from it on
Assemble — the LLM's table summaries and contextual prefixes are what gets embedded."""

import re

import pytest
from playwright.sync_api import expect

from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.e2e.browser import ARTIFACTS, guide_app_with_llm, pick, wait_for_app

pytestmark = pytest.mark.e2e


def test_an_llm_chunk_set_is_built_in_the_browser_and_retrieved_from(
        page, start_app, tmp_path, fake_llm):  # noqa: F811
    data = tmp_path / "data"
    url = guide_app_with_llm(start_app, data, fake_llm)
    page.goto(f"{url}/store")
    wait_for_app(page)
    expect(page.get_by_text("No chunk sets yet")).to_be_visible(timeout=120_000)
    page.get_by_test_id("stCheckbox").filter(has_text="Settings").click()
    wait_for_app(page)
    pick(page, "stSelectbox", "Strategy", "llm")
    name = page.get_by_role("textbox", name="Name")
    name.fill("guide by the model")
    name.press("Enter")
    wait_for_app(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "store_llm_form.png"), full_page=True)
    page.get_by_role("button", name="Create and ingest").click()
    expect(page.get_by_text("Chunk set “guide by the model”: stored ")).to_be_visible(
        timeout=180_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    # The guide's sections fill less than half a chunk each: one chunk, no boundary request.
    assert {"structure_analysis", "table_summary", "chunk_metadata"} <= set(fake_llm.phases)
    page.screenshot(path=str(ARTIFACTS / "store_llm_built.png"), full_page=True)

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Assemble").click()
    wait_for_app(page)
    question = page.get_by_role("textbox", name="Question")
    question.fill("What should an inspector check first?")
    question.press("Control+Enter")
    wait_for_app(page)
    expect(page.get_by_text("Packs kept", exact=True)).to_be_visible(timeout=120_000)
    user_prompt = page.get_by_test_id("stCode").nth(1)
    expect(user_prompt).to_contain_text(re.compile(r"Doc: \S+\.(md|docx|pdf|txt|html|csv)"))
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_role("heading", name="Sources").scroll_into_view_if_needed()

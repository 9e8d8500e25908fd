"""Browser, over a slow link: what a user picks or types while an earlier run's output is still
on its way to the page stays as they left it."""

import pytest
from playwright.sync_api import expect

from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.e2e.browser import ARTIFACTS, SLOW_LINK_JS, guide_app_with_llm, wait_for_app

pytestmark = pytest.mark.e2e


def test_a_name_typed_right_after_picking_a_strategy_is_kept(page, start_app, tmp_path,
                                                             fake_llm):  # noqa: F811
    page.add_init_script(SLOW_LINK_JS)
    url = guide_app_with_llm(start_app, tmp_path / "data", fake_llm)
    page.goto(f"{url}/store")
    wait_for_app(page)
    page.get_by_test_id("stCheckbox").filter(has_text="Settings").click()
    wait_for_app(page)
    page.evaluate("window.__slowLinkMs = 1500")
    page.get_by_role("combobox", name="Strategy", exact=True).click()
    page.get_by_role("option", name="llm", exact=True).click()
    name = page.get_by_role("textbox", name="Name")
    name.fill("mine")  # before the page has heard back from the strategy's run
    name.press("Enter")
    wait_for_app(page)
    page.evaluate("window.__slowLinkMs = 0")
    expect(name).to_have_value("mine")
    expect(page.get_by_role("combobox", name="Strategy", exact=True)).to_have_value("llm")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "store_slow_link_form.png"), full_page=True)
    page.get_by_role("button", name="Create and ingest").click()
    expect(page.get_by_text("Chunk set “mine”: stored ")).to_be_visible(timeout=300_000)
    assert "structure_analysis" in fake_llm.phases

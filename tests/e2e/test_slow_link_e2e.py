"""Browser, over a slow link: what a user picks or types while an earlier run's output is still
on its way to the page stays as they left it."""

import pytest
from playwright.sync_api import expect

from core.library import DocumentLibrary
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK
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


def test_a_document_picked_while_a_run_is_on_its_way_stays_picked(page, start_app, tmp_path,
                                                                  fake_llm):  # noqa: F811
    """The output of a run asked for before the pick must not put the old document back: a
    click made then (Run, here) would act on the document the user had left."""
    data = tmp_path / "data"
    DocumentLibrary(data / "documents").add(CLAIMS_HANDBOOK.encode(), "claims_handbook.md")
    page.add_init_script(SLOW_LINK_JS)
    page.goto(guide_app_with_llm(start_app, data, fake_llm) + "/structure")
    wait_for_app(page)
    field = page.get_by_role("combobox", name="Document", exact=True)
    first = field.input_value()
    other = next(name for name in ("claims_handbook.md  ·  MD", "field_guide.md  ·  MD")
                 if name != first)
    page.evaluate("window.__slowLinkMs = 2000")
    page.get_by_test_id("stCheckbox").filter(has_text="Metadata").click()  # a run on its way
    page.wait_for_timeout(500)
    field.click()
    page.get_by_role("option", name=other, exact=True).click()
    shown = []
    for _ in range(30):  # both runs' output lands within these 3 s
        shown.append(field.input_value())
        page.wait_for_timeout(100)
    assert first not in shown, f"the page put {first!r} back for a moment: {shown}"
    page.get_by_role("button", name="Run LLM chunking").click()
    wait_for_app(page)
    page.evaluate("window.__slowLinkMs = 0")
    expect(field).to_have_value(other)
    asked = [call.prompt for call in fake_llm.calls if call.phase == "structure_analysis"]
    assert asked and ("Claims handbook" in asked[-1]) == other.startswith("claims")

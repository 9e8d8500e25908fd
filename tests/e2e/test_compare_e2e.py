"""In a real browser: pick two configurations on Compare and see two coloured columns."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import ARTIFACTS, pick, wait_for_app

pytestmark = pytest.mark.e2e


def test_two_configurations_show_two_coloured_columns(page: Page, start_app) -> None:
    page.goto(f"{start_app()}/compare")  # own data folder: it keeps the inputs for the next visit
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Compare chunkings")).to_be_visible()
    # choose the second configuration explicitly: the recursive preset without tables
    pick(page, "stSelectbox", "Configuration 2", "recursive 500/50 (no tables)")
    columns = page.locator(".cl-text")
    expect(columns).to_have_count(2, timeout=120_000)
    for i in range(2):
        marks = columns.nth(i).locator("mark")
        assert marks.count() > 3
        background = marks.first.get_attribute("style") or ""
        assert "background" in background
    strip = page.locator(".cl-clickable").first
    expect(strip.get_by_text("2. recursive 500/50 (no tables)")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    strip.screenshot(path=str(ARTIFACTS / "compare_boundary_strip.png"))
    # a click on the second configuration's third chunk shows it in that column's inspector
    strip.locator('[data-pick="1:2"]').click()
    wait_for_app(page)
    expect(page.get_by_label("Inspect chunk").nth(1)).to_have_value("3")
    page.locator(".cl-text").first.scroll_into_view_if_needed()
    # the settings form shows the overlap and table options; the stats count split tables
    page.locator('[data-testid="stCheckbox"]').filter(has_text="Settings").nth(1).click()
    wait_for_app(page)
    for label in ("overlap mode", "table split", "table max tokens"):
        expect(page.locator("p:visible").filter(has_text=label).first).to_be_visible()
    expect(page.get_by_text("tables split by rows").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "compare_settings_and_stats.png"), full_page=True)


def test_a_configuration_switched_to_another_strategy_says_so_in_its_picker(
        page: Page, start_app) -> None:
    """The picker names the configuration it became, not only the preset it started from (the
    browser keeps a picker's old label unless it is a new picker)."""
    page.goto(f"{start_app()}/compare")
    wait_for_app(page)
    page.get_by_test_id("stRadio").get_by_text("4", exact=True).click()
    wait_for_app(page)
    picker = page.get_by_role("combobox", name="Configuration 4")
    expect(picker).to_have_value("recursive 500/50 by section")
    page.locator('[data-testid="stCheckbox"]').filter(has_text="Settings").nth(3).click()
    wait_for_app(page)
    pick(page, "stSelectbox", "Strategy", "llm")
    expect(picker).to_have_value("llm 500 · from recursive 500/50 by section")
    page.screenshot(path=str(ARTIFACTS / "compare_strategy_switched.png"))
    pick(page, "stSelectbox", "Configuration 4", "semantic")  # a preset again starts from it
    expect(page.get_by_role("combobox", name="Strategy")).to_have_value("semantic")


def switch_away_and_back(page: Page) -> None:
    page.get_by_role("link", name="Documents").click()
    wait_for_app(page)
    page.get_by_role("link", name="Compare").click()
    wait_for_app(page)


def test_edited_configurations_survive_a_page_switch(page: Page, start_app) -> None:
    # an app of its own: configuration 2 stays the untouched default, as a new user has it.
    # Three rounds: a restore that races the browser's first draw fails only now and then.
    page.goto(f"{start_app()}/compare")
    wait_for_app(page)
    settings = page.locator('[data-testid="stCheckbox"]').filter(has_text="Settings").first
    strip = page.locator(".cl-clickable").first
    size = page.get_by_label("size", exact=True).first
    settings.click()
    wait_for_app(page)
    for typed in ("300", "350", "400"):
        size.fill(typed)
        size.press("Enter")
        wait_for_app(page)
        settings.click()  # closed before leaving
        wait_for_app(page)
        switch_away_and_back(page)
        # the strip's rows name both configurations as they were left
        expect(strip.get_by_text("1. fixed 1000 chars (edited)", exact=True)).to_be_visible()
        expect(strip.get_by_text("2. recursive 500/50", exact=True)).to_be_visible()
        expect(page.get_by_text(f"fixed · size {typed} · overlap 0")).to_be_visible()
        settings.click()  # opened again, the field shows what was typed
        wait_for_app(page)
        expect(size).to_have_value(typed)
    page.screenshot(path=str(ARTIFACTS / "compare_after_page_switch.png"), full_page=True)


def test_a_closed_hand_edit_panel_keeps_its_inputs_across_a_page_switch(page: Page,
                                                                        start_app) -> None:
    page.goto(f"{start_app()}/compare")
    wait_for_app(page)
    panel = page.get_by_test_id("stExpander").filter(has_text="Edit chunks by hand")
    panel.get_by_text("Edit chunks by hand").click()
    wait_for_app(page)
    chunk = page.get_by_label("Chunk", exact=True)
    chunk.fill("3")
    chunk.press("Enter")
    wait_for_app(page)
    panel.get_by_text("Edit chunks by hand").click()  # closed before leaving
    wait_for_app(page)
    switch_away_and_back(page)
    panel.get_by_text("Edit chunks by hand").click()
    wait_for_app(page)
    expect(chunk).to_have_value("3")


def _compare_as_left(page: Page) -> None:
    expect(page.get_by_role("combobox", name="Document")).to_have_value(
        "meeting_transcript.txt  ·  TXT  ·  sample")
    expect(page.get_by_test_id("stRadio").get_by_role("radio", name="3")).to_be_checked()
    expect(page.get_by_role("combobox", name="Configuration 2")).to_have_value("semantic")
    strip = page.locator(".cl-clickable").first
    expect(strip.get_by_text("1. fixed 1000 chars · hand-edited", exact=True)).to_be_visible()
    expect(strip.get_by_text("3. semantic", exact=True)).to_be_visible()


def test_inputs_survive_a_reload_and_a_restart(page: Page, start_app, tmp_path) -> None:
    """The data folder keeps the user's Compare inputs: a reload or a new server finds them."""
    data = {"CHUNKLAB_DATA_DIR": str(tmp_path / "data")}
    page.goto(f"{start_app(env=data)}/compare")
    wait_for_app(page)
    pick(page, "stSelectbox", "Document", "meeting_transcript.txt  ·  TXT  ·  sample")
    page.get_by_test_id("stRadio").get_by_text("3", exact=True).click()
    wait_for_app(page)
    pick(page, "stSelectbox", "Configuration 2", "semantic")
    panel = page.get_by_test_id("stExpander").filter(has_text="Edit chunks by hand")
    panel.get_by_text("Edit chunks by hand").click()
    wait_for_app(page)
    page.get_by_role("button", name="Split here").click()
    wait_for_app(page)
    _compare_as_left(page)
    page.reload()
    wait_for_app(page)
    _compare_as_left(page)
    page.goto(f"{start_app(env=data)}/compare")  # another server on the same data folder
    wait_for_app(page)
    _compare_as_left(page)
    expect(page.get_by_role("button", name="Undo")).to_be_visible()  # the panel is open
    page.screenshot(path=str(ARTIFACTS / "compare_after_restart.png"), full_page=True)

"""In a real browser: split a chunk by hand on Compare, see the chunks and badges change, undo,
split again and save the result as a named configuration."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import ARTIFACTS, wait_for_app

pytestmark = pytest.mark.e2e
BADGE = re.compile(r"(cut words|cut sentences|table rows split|headings left alone|"
                   r"over the size|empty chunks|offsets wrong|text not in any chunk): [\d,]+")


def _first_column(page: Page):
    return page.locator('[data-testid="stColumn"]').filter(has=page.locator(".cl-text")).first


def _chunks(page: Page) -> int:
    return page.locator(".cl-text").first.locator(".cl-label").count()


def _badges(page: Page) -> list[str]:
    texts = _first_column(page).get_by_role("button").all_inner_texts()
    return sorted(m.group(0) for t in texts if (m := BADGE.search(t)))


def test_split_undo_and_save_a_hand_edit(page: Page, app_url: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(f"{app_url}/compare")
    wait_for_app(page)
    panel = page.get_by_test_id("stExpander").filter(has_text="Edit chunks by hand")
    expect(panel).to_be_visible(timeout=180_000)
    wait_for_app(page)
    expect(page.get_by_role("button", name="Split here")).to_have_count(0)  # drawn when opened
    panel.get_by_text("Edit chunks by hand").click()
    wait_for_app(page)
    before_chunks, before_badges = _chunks(page), _badges(page)
    assert before_chunks > 1 and before_badges  # fixed windows cut words: badges are shown

    page.get_by_role("button", name="Split here").click()
    wait_for_app(page)
    expect(page.get_by_text("1. split chunk 1 at character").first).to_be_visible()
    strip = page.locator(".cl-clickable").first  # its rows name the configurations
    expect(strip.get_by_text("1. fixed 1000 chars · hand-edited")).to_be_visible()
    assert _chunks(page) == before_chunks + 1
    assert _badges(page) != before_badges  # the new boundary is checked too
    _first_column(page).get_by_role("button", name=BADGE).first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "compare_hand_edit_badges.png"))

    page.get_by_role("button", name="Undo").click()
    wait_for_app(page)
    assert _chunks(page) == before_chunks and _badges(page) == before_badges
    expect(page.get_by_text("1. fixed 1000 chars · hand-edited")).to_have_count(0)

    page.get_by_role("button", name="Split here").click()
    wait_for_app(page)
    page.get_by_label("Save as configuration named").fill("hand split")
    page.get_by_label("Save as configuration named").press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Save configuration").click()
    wait_for_app(page)
    expect(page.get_by_text("Saved “hand split”").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "compare_hand_edits.png"), full_page=True)

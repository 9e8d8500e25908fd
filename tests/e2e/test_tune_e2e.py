"""Browser: tune on a shipped question set, read the recommendation and the front, download the
report and open it offline, save the winner as a preset, click a point of the Pareto plot to open
it in Compare beside the best, and evaluate the saved preset: it retrieves as the tune measured
it; a reload shows the last result again."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import (
    ARTIFACTS,
    alert_text,
    download_report,
    open_page,
    open_report_offline,
    pick,
    wait_for_app,
)

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)  # the app shares two cores with the other tests


def test_tune_save_and_open_a_point_in_compare(page, browser, start_app, tmp_path):
    url = start_app()
    open_page(page, f"{url}/tune", "Tune")
    pick(page, "stSelectbox", "Question set", "technical_handbook")
    trials = page.get_by_role("spinbutton", name="Trials")
    trials.fill("4")
    trials.press("Enter")
    wait_for_app(page)

    page.get_by_role("button", name="Run tune").click()
    expect(page.get_by_role("heading", name="Recommendation")).to_be_visible(timeout=600_000)
    wait_for_app(page)
    sentence = page.get_by_test_id("stAlertContentSuccess").filter(
        has_text="held-back questions")
    expect(sentence).to_contain_text("held-back questions")
    # "small-to-big (…), top-2: recall 1.00 …": the winner's label ends with its retrieval
    retrieval = sentence.inner_text().split(": recall")[0].rsplit(", ", 1)[1]
    expect(page.get_by_text("Budget: no answer model is configured: 2,000 tokens").first
           ).to_be_visible()
    # the Pareto front (the probability-best chart sits folded in an expander)
    plot = page.locator(".js-plotly-plot").filter(has_text="recommended (the knee)")
    expect(plot).to_be_visible()
    expect(plot).to_contain_text("recommended (the knee)")
    expect(plot).to_contain_text("budget 2,000 tokens")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    ARTIFACTS.mkdir(exist_ok=True)
    page.get_by_role("heading", name="Recommendation").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "tune_recommendation.png"))
    plot.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "tune_pareto.png"))
    report = download_report(page, tmp_path)
    assert report.name == "tune-technical_handbook.html"
    open_report_offline(browser, report, "Tune on technical_handbook", alert_text(sentence),
                        "report_download_tune.png")

    # one click saves the winner as a preset
    page.get_by_role("textbox", name="Preset name").fill("tuned in the browser")
    page.get_by_role("button", name="Save as preset").click()
    wait_for_app(page)
    expect(page.get_by_text("Saved “tuned in the browser”")).to_be_visible()

    # a click on a point of the plot opens Compare with the best and that configuration
    points = plot.locator(".scatterlayer .trace").nth(1).locator("path.point")
    expect(points.first).to_be_attached()
    plot.scroll_into_view_if_needed()
    box = points.first.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.get_by_role("heading", name="Compare chunkings")).to_be_visible(timeout=120_000)
    wait_for_app(page)
    strip = page.locator(".cl-clickable").first
    expect(strip).to_contain_text("1. ")
    expect(strip).to_contain_text("2. ")
    expect(page.locator(".cl-text")).to_have_count(2, timeout=120_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "tune_opened_in_compare.png"), full_page=True)

    # back on Tune the result is still there, and the old click opens nothing again
    page.get_by_role("link", name="Tune").click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Recommendation")).to_be_visible()
    page.wait_for_timeout(1500)
    expect(page.get_by_role("heading", name="Recommendation")).to_be_visible()
    expect(page.get_by_role("heading", name="Compare chunkings")).to_have_count(0)
    expect(page.get_by_role("combobox", name="Question set")).to_have_value(
        re.compile("technical_handbook"))  # the inputs survive the page switch

    # the preset is evaluated as the tune measured it: with its own retrieval
    page.get_by_role("link", name="Evaluate").click()
    wait_for_app(page)
    pick(page, "stSelectbox", "Question set", "technical_handbook")
    pick(page, "stMultiSelect", "Configurations (2–4)", "tuned in the browser")
    page.keyboard.press("Escape")
    page.mouse.move(5, 5)  # off the help icon the closed list leaves under the pointer
    wait_for_app(page)
    expect(page.get_by_text(f"tuned in the browser retrieves {retrieval}")).to_be_visible()
    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page)
    row = page.get_by_test_id("stTable").locator("tr", has_text="tuned in the browser")
    expect(row).to_contain_text("ok", timeout=180_000)
    expect(row).to_contain_text(retrieval)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    row.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "tune_preset_evaluated.png"))

    # a reload of Tune keeps the inputs and shows the last result for them
    open_page(page, f"{url}/tune", "Tune")
    page.reload()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Recommendation")).to_be_visible(timeout=180_000)
    expect(page.get_by_role("spinbutton", name="Trials")).to_have_value("4")
    expect(page.get_by_text("read back from its study")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "tune_after_reload.png"))

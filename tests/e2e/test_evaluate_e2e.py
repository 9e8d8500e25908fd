"""Browser: run two chunkings on one shipped question set and see the metrics side by side."""

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import ARTIFACTS, open_page, pick, wait_for_app

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)  # the app shares two cores with the other tests


def test_two_configurations_on_one_sample_set(page, app_url):
    open_page(page, f"{app_url}/evaluate", "Evaluate")
    pick(page, "stSelectbox", "Question set", "insurance_policy")
    configs = page.get_by_test_id("stMultiSelect").filter(has_text="Configurations")
    expect(configs).to_contain_text("fixed 1000 chars")
    expect(configs).to_contain_text("recursive 500/50")

    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page)
    expect(page.get_by_text("Metrics (percent of the question set")).to_be_visible(timeout=180_000)
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible()
    expect(page.get_by_text("Table questions")).to_be_visible()
    expect(page.get_by_test_id("stMetric").first).to_contain_text("Baseline: fixed 1000 chars")
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    expect(page.locator(".cl-text mark").first).to_be_attached()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    ARTIFACTS.mkdir(exist_ok=True)
    for target, shot in ((page.get_by_role("heading", name="Integrity checks"),
                          "evaluate_integrity"),
                         (page.get_by_role("heading", name="Table questions"),
                          "evaluate_ac"),
                         (page.locator(".cl-text").first, "evaluate_drilldown")):
        target.scroll_into_view_if_needed()
        expect(target).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / f"{shot}.png"))


def test_three_configurations_say_which_is_best(page, app_url):
    open_page(page, f"{app_url}/evaluate", "Evaluate")
    pick(page, "stSelectbox", "Question set", "product_manual")
    pick(page, "stMultiSelect", "Configurations (2–4)", "fixed 500 tokens")
    page.get_by_test_id("stRadio").filter(has_text="Ranking").get_by_text(
        "bm25", exact=True).click()
    wait_for_app(page)
    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page)
    sentence = page.get_by_text("of resamples of the 19 questions")
    expect(sentence).to_be_visible(timeout=180_000)
    page.get_by_text("Probability of being best").click()
    chart = page.locator(".js-plotly-plot").filter(has_text="% of resamples")
    expect(chart).to_be_visible()
    for name in ("fixed 1000 chars", "recursive 500/50", "fixed 500 tokens"):
        expect(chart).to_contain_text(name)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    ARTIFACTS.mkdir(exist_ok=True)
    chart.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "evaluate_best.png"))

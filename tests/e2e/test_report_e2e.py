"""Browser: a report written by ``python -m core eval --report`` opens from file:// with the
network off and shows its inputs, every configuration, the charts drawn, the filters working
and a question that opens to its chunks with the reference marked; Evaluate's "Download report"
gives the report of the results it shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Route, expect

from tests.e2e.browser import ARTIFACTS, ROOT, open_page, pick, wait_for_app
from tests.report_helpers import outside_references

pytestmark = pytest.mark.e2e
CONFIGURATIONS = ("fixed 1000 chars", "recursive 500/50")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    path = folder / "evaluation.html"
    argv = [sys.executable, "-m", "core", "eval",
            "--questions", str(ROOT / "sample_docs" / "questions" / "product_manual.csv"),
            "--docs", str(ROOT / "sample_docs"), "--rank", "bm25", "--report", str(path)]
    for name in CONFIGURATIONS:
        argv += ["--preset", name]
    subprocess.run(argv, cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "CHUNKLAB_DATA_DIR": str(folder / "data")})
    return path


def test_the_report_opens_offline_with_everything_in_it(browser: Browser, report: Path):
    context = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
    asked: list[str] = []

    def only_the_file(route: Route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", only_the_file)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(report.as_uri())

    inputs = page.locator("#inputs")
    expect(inputs).to_contain_text("product_manual.csv")
    expect(inputs).to_contain_text("product_manual.html")
    for name in CONFIGURATIONS:
        expect(inputs.get_by_role("cell", name=name, exact=True)).to_be_visible()
    expect(page.locator("#verdict .verdict").first).to_contain_text("recall")
    charts = page.locator(".plot-container")
    expect(charts.first).to_be_visible()
    expect(page.locator("#metrics .plot-container svg.main-svg").first).to_be_attached()
    expect(page.locator("#metrics g.point").first).to_be_attached()  # the bars were drawn

    rows = page.locator("#questions details.q")
    expect(rows).to_have_count(19)
    counter = page.locator("#questions .filters .count")
    expect(counter).to_have_text("19 of 19 shown")
    page.get_by_role("button", name="Missed by all").click()
    missed = page.locator('#questions details.q[data-state="missed"]').count()
    expect(counter).to_have_text(f"{missed} of 19 shown")
    page.get_by_role("button", name="All", exact=True).click()
    page.get_by_placeholder("Find words").fill("heat up")
    expect(counter).not_to_have_text("19 of 19 shown")
    page.get_by_placeholder("Find words").fill("")

    row = page.locator('#questions details.q[data-state="found"]').first
    row.locator("summary").click()
    expect(row.locator(".ref")).to_be_visible()
    for name in CONFIGURATIONS:
        expect(row.locator(".side h4", has_text=name)).to_be_visible()
    expect(row.locator(".hit.touch mark").first).to_be_visible()
    assert row.locator(".hit").count() >= 2
    expect(page.locator("footer")).to_contain_text("Size:")

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report_top.png"))
    row.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "report_question_open.png"))
    context.close()
    assert asked == [] and errors == []


def test_evaluate_downloads_the_report_of_what_it_shows(page, app_url, tmp_path):
    open_page(page, f"{app_url}/evaluate", "Evaluate")
    pick(page, "stSelectbox", "Question set", "insurance_policy")
    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page)
    expect(page.get_by_text("Metrics (percent of the question set")).to_be_visible(
        timeout=180_000)
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="Download report").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "evaluation-insurance_policy.html"
    text = saved.read_text(encoding="utf-8")
    assert outside_references(text) == []
    for name in ("insurance_policy", *CONFIGURATIONS):
        assert name in text
    assert text.count('<details class="q"') > 0

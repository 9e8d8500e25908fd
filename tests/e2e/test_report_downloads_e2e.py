"""Browser: after a small run on Answers (two prompt variants, the fake LLM) and on Tune, each
page's "Download report" gives a file that opens on its own with the network off, titled for
its run and stating the verdict the page showed. One app serves both: Answers needs the fake
LLM in its environment, which the shared app has not."""

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.e2e.browser import ARTIFACTS, open_page, pick, two_variants_on_the_manual, type_number
from tests.e2e.browser import wait_for_app as wait
from tests.report_helpers import outside_references

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)  # the app shares two cores with the other tests


def _download(page: Page, folder: Path) -> Path:
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="Download report").click()
    saved = folder / download.value.suggested_filename
    download.value.save_as(saved)
    return saved


def _sentence(alert: Locator) -> str:
    """The text of an alert, without its icon's name."""
    return alert.get_by_test_id("stMarkdownContainer").inner_text().strip()


def _open_offline(browser: Browser, report: Path, title: str, verdict: str, shot: str) -> None:
    """Open ``report`` from disk with the network off: its ``title``, the ``verdict`` sentence,
    no script error, nothing outside itself referenced."""
    assert outside_references(report.read_text(encoding="utf-8")) == []
    context = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(report.as_uri())
    expect(page).to_have_title(title)
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    expect(page.locator("#verdict .verdict").first).to_contain_text(verdict)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / shot))
    context.close()
    assert errors == []


def test_answers_and_tune_reports_open_with_their_verdicts(
        page, browser, start_app, tmp_path, fake_llm):  # noqa: F811
    url = two_variants_on_the_manual(page, start_app, tmp_path / "data", fake_llm, 2)
    page.get_by_role("button", name="Run", exact=True).click()
    shown = page.get_by_test_id("stAlertContentInfo").filter(has_text="no cites")
    expect(shown).to_be_visible(timeout=180_000)  # "No difference between default and no …"
    wait(page)
    answers = _download(page, tmp_path)
    assert answers.name == "answers-product_manual.html"
    _open_offline(browser, answers, "Answers on product_manual", _sentence(shown),
                  "report_download_answers.png")

    open_page(page, f"{url}/tune", "Tune")
    pick(page, "stSelectbox", "Question set", "product_manual")
    type_number(page, "Trials", 2)
    page.get_by_role("button", name="Run tune").click()
    expect(page.get_by_role("heading", name="Recommendation")).to_be_visible(timeout=180_000)
    wait(page)
    sentence = _sentence(page.get_by_test_id("stAlertContentSuccess"))
    tune = _download(page, tmp_path)
    assert tune.name == "tune-product_manual.html"
    _open_offline(browser, tune, "Tune on product_manual", sentence, "report_download_tune.png")

"""Browser: a configuration that cannot be evaluated (a chunk set without the question set's
document) is reported in its own row; the other two configurations' results are shown and the
progress bar is gone. Then the map of one of them, with the drill-down's question: a click on
the chunk it retrieved first opens that chunk in its document, its reference marked."""

import pytest
from playwright.sync_api import expect

from core.store import ChunkStore
from tests.e2e.browser import ARTIFACTS, TRACES, click_point, open_page, pick, wait_for_app
from tests.retrieval_helpers import handbook_set

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)


def test_a_failed_configuration_keeps_the_others(page, start_app, tmp_path):
    data = tmp_path / "data"
    handbook_set(ChunkStore(data / "chroma"), "handbook only")
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data)})
    open_page(page, f"{url}/evaluate")
    pick(page, "stSelectbox", "Question set", "insurance_policy")
    pick(page, "stMultiSelect", "Configurations (2–4)", "chunk set: handbook only")
    page.mouse.move(5, 5)  # off the help icon the closed list leaves under the pointer
    page.get_by_test_id("stRadio").filter(has_text="Ranking").get_by_text("bm25").click()
    wait_for_app(page)

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "evaluate_controls.png"))
    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page)
    warning = page.get_by_text("1 of 3 configurations failed; the results of the other 2 are "
                               "kept.")
    expect(warning).to_be_visible(timeout=180_000)
    rows = page.get_by_test_id("stTable")
    expect(rows).to_contain_text("holds no chunk of insurance_policy.docx")
    expect(rows.locator("tr", has_text="chunk set: handbook only")).to_contain_text("failed")
    expect(rows.locator("tr", has_text="recursive 500/50")).to_contain_text("ok")
    expect(page.get_by_text("Metrics (percent of the question set")).to_be_visible()
    expect(page.get_by_role("heading", name="Is the difference real?")).to_be_visible()
    expect(page.get_by_test_id("stProgress")).to_have_count(0)  # the bar ended
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    warning.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "evaluate_failed_configuration.png"))

    page.get_by_text("Draw the map").click()
    wait_for_app(page)
    plot = page.locator(".js-plotly-plot").last
    expect(plot).to_be_visible()
    names = page.evaluate(TRACES.replace("querySelector('.js-plotly-plot')",
                                         "querySelectorAll('.js-plotly-plot')[1]"))
    assert {"retrieved (rank)", "reference excerpt", "question"} <= set(names)
    plot.scroll_into_view_if_needed()
    click_point(page, names.index("retrieved (rank)"), 0, plot=1)
    wait_for_app(page)
    expect(page.get_by_text("Chunk in insurance_policy.docx")).to_be_visible()
    expect(page.get_by_text("retrieved at rank 1")).to_be_visible()
    opened = page.locator(".cl-text mark.cl-map-chunk").first
    expect(opened).to_be_attached()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.mouse.move(5, 5)
    plot.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "evaluate_map.png"))

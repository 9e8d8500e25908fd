"""Browser: the Structure page runs LLM chunking against the fake server and draws the result."""

import json

import pytest
from playwright.sync_api import expect

from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.e2e.browser import ARTIFACTS, guide_app_with_llm, pick, wait_for_app
from tests.fakellm_slips import slipping_llm  # noqa: F401  (fixture)

pytestmark = pytest.mark.e2e


def run_structure_on_the_guide(page, url: str) -> None:
    """Open Structure, pick the field guide and press Run LLM chunking."""
    page.goto(f"{url}/structure")
    wait_for_app(page)
    run = page.get_by_role("button", name="Run LLM chunking")
    expect(run).to_be_enabled(timeout=180_000)
    pick(page, "stSelectbox", "Document", "field_guide.md  ·  MD")
    run.click()
    wait_for_app(page)


def test_structure_page_runs_the_llm_pipeline(page, start_app, tmp_path, fake_llm):  # noqa: F811
    data = tmp_path / "data"
    url = guide_app_with_llm(start_app, data, fake_llm)
    run_structure_on_the_guide(page, url)
    expect(page.get_by_text("The LLM's sections")).to_be_visible(timeout=120_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    marks = page.locator(".cl-text mark")
    expect(marks.first).to_be_attached(timeout=120_000)
    assert marks.count() >= 4
    titles = [marks.nth(i).get_attribute("title") or "" for i in range(marks.count())]
    assert any(t.startswith("section break: ") for t in titles)
    assert not any("moved" in t for t in titles)  # anchors land on their block exactly
    expect(page.locator(".cl-text mark.cl-table").first).to_be_attached()
    requests = page.get_by_test_id("stMetric").filter(has_text="Requests")
    expect(requests).to_contain_text(str(len(fake_llm.requests)), timeout=60_000)
    # The guide's sections fill less than half a chunk each: one chunk, no boundary request.
    assert {"structure_analysis", "table_summary"} <= set(fake_llm.phases)
    page.get_by_text("The LLM's boundaries").scroll_into_view_if_needed()


def test_structure_page_repairs_a_slipping_model_in_tolerant_mode(
        page, start_app, tmp_path, slipping_llm):  # noqa: F811
    data = tmp_path / "data"
    url = guide_app_with_llm(start_app, data, slipping_llm)
    page.set_viewport_size({"width": 1400, "height": 1800})
    run_structure_on_the_guide(page, url)
    expect(page.get_by_text("phase 1 (structure analysis) failed: line")).to_be_visible(
        timeout=120_000)
    page.get_by_text("tolerant (repair and warn)").click()
    wait_for_app(page)
    page.get_by_role("button", name="Run LLM chunking").click()
    wait_for_app(page)
    expect(page.get_by_text("The LLM's sections")).to_be_visible(timeout=120_000)
    expect(page.get_by_text("Done with", exact=False)).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_text("Warnings (").click()
    page.wait_for_timeout(500)
    page.screenshot(path=str(tmp_path / "structure_tolerant.png"), full_page=True)


def test_compare_lists_the_repairs_of_a_tolerant_llm_column(
        page, start_app, tmp_path, slipping_llm):  # noqa: F811
    data = tmp_path / "data"
    data.mkdir()
    (data / "chunk_presets.json").write_text(json.dumps(
        {"llm tolerant": ["llm", {"size": 500, "parsing": "tolerant"}]}))
    url = guide_app_with_llm(start_app, data, slipping_llm)
    page.set_viewport_size({"width": 1400, "height": 1600})
    page.goto(f"{url}/compare")
    wait_for_app(page)
    pick(page, "stSelectbox", "Document", "field_guide.md  ·  MD")
    pick(page, "stSelectbox", "Configuration 2", "llm tolerant")
    expect(page.get_by_text("Done with", exact=False)).to_be_visible(timeout=120_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_text("Warnings (").click()
    page.wait_for_timeout(500)
    page.get_by_text("Done with", exact=False).scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "compare_tolerant_llm.png"))


def test_settings_page_tests_the_connection(page, start_app, fake_llm):  # noqa: F811
    fake_llm.serve_llama(n_ctx=4096, slots=2, n_params=1_700_000_000)
    url = start_app(env={"LLM_BASE_URL": fake_llm.base_url, "LLM_MODEL": "fake"})
    page.goto(f"{url}/settings")
    wait_for_app(page)
    page.get_by_role("button", name="Test connection").click()
    wait_for_app(page)
    expect(page.get_by_text("Connected: fake answered in")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("now fit what the server reports")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert fake_llm.phases == ["connection_test"]
    page.get_by_text("now fit what the server reports").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "settings_tested.png"))
    page.get_by_text("Which models work").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "settings_server_facts.png"))

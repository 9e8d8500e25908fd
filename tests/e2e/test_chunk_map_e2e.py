"""Browser: the map of a chunk set on the Chunk sets page — a question lands on it with what it
retrieved, and clicking a point opens that chunk in its document."""

import pytest
from playwright.sync_api import expect

from core.library import DocumentLibrary
from core.store import ChunkStore
from tests.e2e.browser import ARTIFACTS, TRACES, click_point, wait_for_app
from tests.retrieval_helpers import HANDBOOK, SAMPLES, handbook_set

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)
QUESTION = "How many coordinator failures does a cluster with five coordinators tolerate?"


def test_a_click_on_the_map_opens_the_chunk_in_its_document(page, start_app, tmp_path):
    data = tmp_path / "data"
    handbook_set(ChunkStore(data / "chroma"), "handbook recursive 200")
    DocumentLibrary(data / "documents").add((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data)})
    page.goto(f"{url}/store")
    wait_for_app(page)
    page.get_by_text("Draw a map").click()
    wait_for_app(page)
    expect(page.locator(".js-plotly-plot")).to_be_visible()
    question = page.get_by_label("Question (optional)")
    question.fill(QUESTION)
    question.press("Enter")
    wait_for_app(page)
    expect(page.get_by_text("◆ what it retrieved (#rank), coloured as its chunk")).to_be_visible()
    names = page.evaluate(TRACES)
    assert names == ["chunks", HANDBOOK, "retrieved (rank)", "question"]
    page.locator(".js-plotly-plot").scroll_into_view_if_needed()

    click_point(page, names.index("retrieved (rank)"), 0)  # the best hit
    wait_for_app(page)
    expect(page.get_by_text(f"Chunk in {HANDBOOK}")).to_be_visible()
    expect(page.get_by_text("retrieved at rank 1")).to_be_visible()
    chunk = page.locator(".cl-text mark.cl-map-chunk").first
    expect(chunk).to_contain_text("five")  # the passage that answers the question
    expect(page.get_by_test_id("stException")).to_have_count(0)
    ARTIFACTS.mkdir(exist_ok=True)
    page.mouse.move(5, 5)  # the hover label off the map
    page.locator(".js-plotly-plot").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "chunk_map_store.png"))
    chunk.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "chunk_map_store_opened.png"))

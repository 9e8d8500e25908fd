"""In a real browser: on Assemble, the answer's citation leads to its source, and the source
opens on its PDF page with the lines it was read from highlighted."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect

from core.library import DocumentLibrary
from core.store import ChunkSetInfo, ChunkStore
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import chunk_document
from tests.e2e.browser import ARTIFACTS, wait_for_app
from tests.retrieval_helpers import SAMPLES

pytestmark = pytest.mark.e2e
WAIT = 120_000
REPORT = "field_report.pdf"
QUESTION = "Where did dissolved oxygen fall in the early morning of the dry-weather round?"


def test_a_citation_opens_its_page_with_the_region_highlighted(page, start_app, tmp_path,
                                                               fake_llm):  # noqa: F811
    data = tmp_path / "data"
    document = DocumentLibrary(data / "documents").add((SAMPLES / REPORT).read_bytes(), REPORT)
    settings = {"size": 150, "overlap": 0, "unit": "tokens", "tables": True}
    store = ChunkStore(data / "chroma")
    store.create_set(ChunkSetInfo(name="report", strategy="recursive", settings=settings))
    store.add_chunks("report", chunk_document(document, "recursive", **settings))
    fake_llm.respond(lambda request: "Oxygen fell at Kiln Reach [¹].")
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data), "LLM_BASE_URL": fake_llm.base_url,
                         "LLM_MODEL": "fake"})
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{url}/assemble")
    wait_for_app(page)
    question = page.get_by_label("Question")
    expect(question).to_be_visible(timeout=WAIT)
    question.fill(QUESTION)
    question.press("Control+Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Ask the LLM").click()
    wait_for_app(page)

    # the answer's marker leads to its source, which names its pages
    page.get_by_test_id("stMarkdown").locator('a[href="#cite-a-1"]', has_text="¹").last.click()
    source = page.locator("#cite-a-1")
    expect(source).to_be_attached(timeout=WAIT)
    show = page.get_by_role("button", name="Show on page").first
    expect(show).to_contain_text("p.")
    show.click()
    wait_for_app(page)
    popover = page.get_by_test_id("stPopoverBody")
    expect(popover.get_by_text("of 6")).to_be_visible(timeout=WAIT)
    expect(popover).to_contain_text(REPORT)
    expect(popover).to_contain_text("highlighted")
    image = popover.get_by_test_id("stImage").locator("img")

    def amber_rows() -> tuple[np.ndarray, int]:
        """Rows of the image as the browser shows it that hold the amber region; its height."""
        expect(image).to_be_visible(timeout=WAIT)
        page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                               arg=image.element_handle())
        shot = np.asarray(Image.open(io.BytesIO(image.screenshot())).convert("RGB")).astype(int)
        amber = (shot[..., 0] - shot[..., 2] > 40) & (shot[..., 0] > 200)
        return np.flatnonzero(amber.any(axis=1)), shot.shape[0]

    # first the band of the page around the region, the region in its middle
    rows, height = amber_rows()
    assert len(rows) > 10 and 0.2 * height < rows[0] and rows[-1] < 0.8 * height
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "assemble_show_on_page.png"))

    # then the whole page: taller, the region a small part of it
    popover.get_by_text("Whole page").click()
    wait_for_app(page)
    expect(popover).to_contain_text("highlighted")
    whole_rows, whole_height = amber_rows()
    assert whole_height > 1.3 * height and whole_rows[-1] - whole_rows[0] < 0.3 * whole_height
    page.screenshot(path=str(ARTIFACTS / "assemble_show_on_page_whole.png"))
    expect(page.get_by_test_id("stException")).to_have_count(0)

"""Helpers the browser tests share: where screenshots go, waiting for Streamlit to finish,
opening a page, choosing an option, typing a number, a PDF opened on Documents, an app whose
library holds the guide and whose LLM is a fake server, and clicking a point of a Plotly
chart."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from core.library import DocumentLibrary
from fakes.llm import FakeLLM
from tests.docfactory import GUIDE_MARKDOWN

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def wait_for_app(page: Page, timeout_ms: int = 120_000) -> None:
    """Wait until Streamlit has finished the current run: script idle, no spinner, no skeleton —
    seen twice, 300 ms apart, so a rerun the run asked for (the first visit of a page URL reruns
    once in the router) is waited for too even when it starts late on a loaded machine."""
    page.wait_for_selector('[data-testid="stApp"]')
    for _ in range(2):
        page.wait_for_timeout(300)  # a rerun triggered just now may not have started yet
        page.wait_for_function(
            """() => {
                const app = document.querySelector('[data-testid="stApp"]');
                return app && app.getAttribute('data-test-script-state') === 'notRunning'
                    && !document.querySelector('[data-testid="stStatusWidget"]')
                    && !document.querySelector('[data-testid="stSkeleton"]');
            }""",
            timeout=timeout_ms,
        )


def open_page(page: Page, url: str, heading: str | None = None) -> None:
    """Go to ``url``, wait for the app, and see the page's ``heading`` when one is given."""
    page.goto(url)
    wait_for_app(page)
    if heading is not None:
        expect(page.get_by_role("heading", name=heading)).to_be_visible()


def pick(page: Page, widget: str, label: str, option: str) -> None:
    """Choose ``option`` in the ``widget`` (a Streamlit test id such as ``stSelectbox``)
    labelled ``label``. Typing filters the list, so the option is drawn even when the list is
    long, and opens the list again if a rerun closed it right after the click."""
    select = page.get_by_test_id(widget).filter(has_text=label)
    select.click()
    select.get_by_role("combobox").fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_app(page)


def open_pdf_on_documents(page: Page, start_app: Callable[..., str], data: Path, pdf: Path,
                          width: int) -> None:
    """An app whose library holds ``pdf`` (its data folder ``data``), Documents open on it in a
    window ``width`` pixels wide."""
    DocumentLibrary(data / "documents").add(pdf.read_bytes(), pdf.name)
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data)})
    page.set_viewport_size({"width": width, "height": 1100})
    page.goto(f"{url}/documents")
    wait_for_app(page)
    page.get_by_role("combobox", name="Document").click()
    page.get_by_role("option", name=re.compile(re.escape(pdf.stem))).click()
    wait_for_app(page)


def type_number(page: Page, label: str, value: int) -> None:
    """Type ``value`` into the number input labelled ``label`` and wait for the rerun."""
    box = page.get_by_role("spinbutton", name=label)
    box.fill(str(value))
    box.press("Enter")
    wait_for_app(page)


def guide_app_with_llm(start_app: Callable[..., str], data: Path, llm: FakeLLM) -> str:
    """Start an app on ``data`` whose library holds the field guide and whose endpoint is the
    fake ``llm``; its URL."""
    DocumentLibrary(data / "documents").add(GUIDE_MARKDOWN.encode(), "field_guide.md")
    return start_app(env={"CHUNKLAB_DATA_DIR": str(data), "LLM_BASE_URL": llm.base_url,
                          "LLM_MODEL": "fake"})


# Where a trace's point is drawn, in page pixels: Plotly's own axis maps, read in the browser.
POINT_XY = """([trace, point, which]) => {
    const plot = document.querySelectorAll('.js-plotly-plot')[which];
    const layout = plot._fullLayout, data = plot._fullData[trace];
    const box = plot.getBoundingClientRect();
    return [box.left + layout._size.l + layout.xaxis.l2p(data.x[point]),
            box.top + layout._size.t + layout.yaxis.l2p(data.y[point])];
}"""
TRACES = "() => document.querySelector('.js-plotly-plot')._fullData.map(t => t.name)"


def click_point(page: Page, trace: int, point: int, plot: int = 0) -> None:
    """Click point ``point`` of trace ``trace`` of the ``plot``-th Plotly chart on the page."""
    x, y = page.evaluate(POINT_XY, [trace, point, plot])
    page.mouse.move(x, y)
    page.wait_for_timeout(300)  # hover first, as a hand does: Plotly picks the point it hovers
    page.mouse.click(x, y)

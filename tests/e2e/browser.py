"""Helpers the browser tests share: where screenshots go, waiting for Streamlit to finish,
opening a page, choosing an option, typing a number, a PDF opened on Documents, apps whose LLM
is a fake server (Answers open on two prompt variants; a library holding the guide), and
clicking a point of a Plotly chart."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

from core.library import DocumentLibrary
from core.prompts.library import PromptLibrary
from fakes.llm import FakeLLM
from tests.answer_variants import no_citation_text, quote_first_passage
from tests.docfactory import GUIDE_MARKDOWN
from tests.report_helpers import outside_references

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


# Installed in every page of the browser tests (conftest's ``page``). It counts, on one clock,
# the rerun requests the browser sends (a BackMsg whose first byte is ``rerun_script``'s tag:
# field 11, length-delimited) and the runs the server reports finished (a ForwardMsg's field 6,
# ``script_finished``, other than 2, "ended early for a rerun" that the script asked for), the
# latter marked drawn two frames after the report came in. The page's own "running" flag is
# no clock: a run that starts and ends between two frames never shows it, and a first visit
# was seen showing it off for a moment between two runs no request asked for.
RUNS_JS = """(() => {
  const runs = window.__chunklabRuns = {asked: 0, drawn: 0, tick: 0};
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    const first = ArrayBuffer.isView(data) ? data[0] : new Uint8Array(data)[0];
    if (first === 0x5a) runs.asked = ++runs.tick;
    if (!this.__chunklabHeard) {
      this.__chunklabHeard = true;
      this.addEventListener('message', (event) => {
        if (event.data instanceof ArrayBuffer && finishedRun(new Uint8Array(event.data))) {
          const finished = ++runs.tick;
          requestAnimationFrame(() => requestAnimationFrame(() => {
            runs.drawn = Math.max(runs.drawn, finished);
          }));
        }
      });
    }
    return send.call(this, data);
  };
  function finishedRun(bytes) {  // the top-level fields of a ForwardMsg
    let at = 0;
    const varint = () => {
      let value = 0, shift = 0, byte;
      do { byte = bytes[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; }
      while (byte & 0x80 && at < bytes.length);
      return value;
    };
    while (at < bytes.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag % 8;
      if (wire === 0) { const value = varint(); if (field === 6) return value !== 2; }
      else if (wire === 2) { const length = varint(); at += length; }
      else if (wire === 1) at += 8;
      else if (wire === 5) at += 4;
      else return false;
    }
    return false;
  }
})();"""
ASKED = "() => window.__chunklabRuns.asked"


# A slow link: every message from the server reaches the page's handlers
# ``window.__slowLinkMs`` later (in order), as on a distant or busy server, so a run's output
# can arrive after the user has already acted on the page again. Installed by a test that
# needs it, before it opens the page.
SLOW_LINK_JS = """(() => {
  const Socket = window.WebSocket;
  window.__slowLinkMs = 0;
  function SlowSocket(url, protocols) {
    const ws = protocols === undefined ? new Socket(url) : new Socket(url, protocols);
    const late = (handler) => function (event) {
      const ms = window.__slowLinkMs;
      if (!ms) return handler.call(this, event);
      setTimeout(() => handler.call(ws, event), ms);
    };
    const listen = ws.addEventListener.bind(ws);
    ws.addEventListener = (type, handler, options) =>
      listen(type, type === 'message' ? late(handler) : handler, options);
    let onmessage = null;
    Object.defineProperty(ws, 'onmessage', {
      get() { return onmessage; },
      set(handler) { onmessage = handler; listen('message', late((e) => handler.call(ws, e))); },
    });
    return ws;
  }
  SlowSocket.prototype = Socket.prototype;
  for (const state of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) {
    SlowSocket[state] = Socket[state];
  }
  window.WebSocket = SlowSocket;
})();"""


def wait_for_app(page: Page, timeout_ms: int = 300_000) -> None:
    """Wait until every run the browser has asked for is over and drawn: the server reported
    a run finished after the last request, the page has drawn it and shows the app idle, and
    no spinner or skeleton is left. The first visit of a fresh data folder converts the
    sample documents: on a machine busy with other work that run alone can take minutes."""
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            const runs = window.__chunklabRuns;
            return app && runs && app.getAttribute('data-test-script-state') === 'notRunning'
                && runs.drawn > runs.asked
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
    """Choose ``option`` in the ``widget`` (``stSelectbox`` or ``stMultiSelect``) labelled
    ``label`` as a hand does — open the list, type to filter it, click the option — then wait
    for the run it asks for and see the option chosen.

    A run landing while the list is open redraws it and can swallow the click: the browser
    then asked for no run, the list still shows the old choice, and the choice is made again.
    A choice the browser took is never made twice: if the page drops it, this fails."""
    field = page.get_by_role("combobox", name=label, exact=True)
    box = page.get_by_test_id(widget).filter(has=field)
    for _ in range(3):
        wait_for_app(page)
        if widget == "stSelectbox" and field.input_value() == option:
            return  # already chosen: choosing it again asks for nothing
        asked = page.evaluate(ASKED)
        box.click()
        field.fill(option)
        page.get_by_role("option", name=option, exact=True).click()
        if widget == "stMultiSelect":
            page.keyboard.press("Escape")
        if page.evaluate(ASKED) > asked:
            break
    else:
        raise AssertionError(f"{label}: clicking {option!r} three times asked for no run")
    wait_for_app(page)
    if widget == "stSelectbox":
        expect(field).to_have_value(option)
    else:
        expect(box.get_by_text(option, exact=True)).to_be_visible()


def open_pdf_on_documents(page: Page, start_app: Callable[..., str], data: Path, pdf: Path,
                          width: int) -> None:
    """An app whose library holds ``pdf`` (its data folder ``data``), Documents open on it in a
    window ``width`` pixels wide."""
    DocumentLibrary(data / "documents").add(pdf.read_bytes(), pdf.name)
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data)})
    page.set_viewport_size({"width": width, "height": 1100})
    page.goto(f"{url}/documents")
    wait_for_app(page)
    pick(page, "stSelectbox", "Document", f"{pdf.name}  ·  PDF")


def upload_markdown(page: Page, url: str, name: str, text: str) -> None:
    """Upload the Markdown ``text`` as ``name`` on Documents, as a hand does, and wait until it
    is converted."""
    page.goto(f"{url}/documents")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Documents")).to_be_visible(timeout=120_000)
    page.locator("input[type=file]").set_input_files([{
        "name": name, "mimeType": "text/markdown", "buffer": text.encode()}])
    expect(page.get_by_text(re.compile(re.escape(name) + ": .* sections"))).to_be_visible(
        timeout=120_000)


def type_number(page: Page, label: str, value: int) -> None:
    """Type ``value`` into the number input labelled ``label`` and wait for the rerun."""
    box = page.get_by_role("spinbutton", name=label)
    box.fill(str(value))
    box.press("Enter")
    wait_for_app(page)


def two_variants_on_the_manual(page: Page, start_app: Callable[..., str], data: Path,
                               llm: FakeLLM, questions: int) -> str:
    """Start an app on ``data`` whose endpoint is the fake ``llm`` quoting the first passage,
    with a variant of the answer prompt that never cites; open Answers on the shipped product
    manual's set, its first ``questions`` asked under the shipped prompt and that variant.
    The app's URL."""
    PromptLibrary(data / "prompts").save_variant("rag_system", "no cites", no_citation_text())
    llm.respond(quote_first_passage)
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data), "LLM_BASE_URL": llm.base_url,
                         "LLM_MODEL": "fake"})
    open_page(page, f"{url}/answers", "Answers")
    pick(page, "stSelectbox", "Question set", "product_manual")
    type_number(page, "Questions (0: all)", questions)
    return url


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


def download_report(page: Page, folder: Path) -> Path:
    """Click the page's "Download report" and save the file in ``folder``."""
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="Download report").click()
    saved = folder / download.value.suggested_filename
    download.value.save_as(saved)
    return saved


def alert_text(alert: Locator) -> str:
    """The text of an alert, without its icon's name."""
    return alert.get_by_test_id("stMarkdownContainer").inner_text().strip()


def open_report_offline(browser: Browser, report: Path, title: str, verdict: str,
                        shot: str) -> None:
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

"""How long the map of 5,000 chunks takes to draw: on the server, in headless Chromium, and in
the running app. The target: under 2 s warm.

The chunks are real: the shipped samples and the benchmark corpus cut into small recursive
chunks (5,000 of them), embedded with MiniLM (cached after the first run).

1. Server, per rerun of a page showing the map: the PCA and points (held by the page's cache,
   so paid once per chunk set), then the figure and its JSON (what ``st.plotly_chart`` sends),
   for the plain map and with a question, its retrieved chunks and references on it.
2. Browser: the same figure JSON drawn by plotly.js (the copy Plotly ships) in headless
   Chromium, from ``Plotly.newPlot`` to the next painted frame; beside it the same figure in
   SVG, and a WebGL plot of one point: the fixed cost of a WebGL plot in this browser (software
   rendering, no GPU), which the map's 5,000 points add little to. The first draw of a page is
   cold; the rest are warm.
3. App (``--app``): a chunk set of those 5,000 chunks on the Chunk sets page, from the click on
   "Draw a map" to the map painted and the script run over; the first time computes the map,
   the next ones are warm. References: the same for a set of 100 chunks, and the same page
   without the map.

    .venv/bin/python -m bench.bench_chunk_map [--rounds 5] [--app]

Needs Playwright and ``/usr/bin/chromium`` (``CHROMIUM_PATH`` to change it). The machine is
shared: read the ratios to the 2 s target rather than the milliseconds alone.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import numpy as np
import plotly
import plotly.graph_objects as go
import plotly.io
from playwright.sync_api import Page, sync_playwright

from bench.quick import add_quick
from corpora.benchmark import FOLDER as BENCHMARK_CORPUS

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
POINTS = 5_000
TARGET_S = 2.0
SET_NAME = "map bench"
SMALL_SET, SMALL = "map bench (small)", 100  # the reference: a map of a few chunks
DRAW = """async (figure) => {
    const div = document.getElementById('map');
    Plotly.purge(div);
    const started = performance.now();
    await Plotly.newPlot(div, figure.data, figure.layout);
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    return performance.now() - started;
}"""


def _chunks(points: int):
    from core.chunking.chunk import Chunk
    from core.operations.questions.sets import load_from_folder, load_shipped, shipped_sets
    from core.operations.strategies import chunk

    shipped = load_shipped(shipped_sets(), "shipped")
    documents = dict(shipped.documents)
    if points > len(documents) * 100:  # the samples alone are too few
        corpus = load_from_folder(BENCHMARK_CORPUS / "questions.csv", BENCHMARK_CORPUS)
        documents |= corpus.documents
    chunks: list[Chunk] = []
    for document in documents.values():
        chunks += chunk(document, "recursive",
                        {"size": 24, "overlap": 0, "unit": "tokens", "tables": True})
    if len(chunks) < points:
        raise SystemExit(f"only {len(chunks)} chunks; make them smaller")
    return chunks[:points], {d.doc_id: d.source_name for d in documents.values()}, documents


def _median_ms(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def _as_svg(figure_json: str) -> str:
    spec = json.loads(figure_json)
    for trace in spec["data"]:
        trace["type"] = "scatter"
    return json.dumps(spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--app", action="store_true", help="also time the map in the app")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.rounds = 1
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-map-"))
    from core.embeddings import embed
    from core.operations.chunk_map import MapQuestion, ReferenceMark, build_map
    from core.store.views import embedding_text
    from ui.chunk_map import map_figure

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    chunks, names, documents = _chunks(300 if args.quick else POINTS)
    started = time.perf_counter()
    vectors = embed([embedding_text(c) for c in chunks])
    print(f"{len(chunks):,} chunks of {len(names)} documents (recursive, 24 tokens); "
          f"vectors in {time.perf_counter() - started:.1f} s (cached after the first run)")

    chunk_map = build_map(chunks, vectors, names)
    rng = np.random.default_rng(0)
    hits = rng.choice(len(chunks), 10, replace=False)
    question = MapQuestion("a question", 0.0, 0.0, {int(i): n for n, i in enumerate(hits, 1)},
                           (ReferenceMark(chunks[0].doc_id, 0, 10, 0.1, 0.1),),
                           frozenset(int(i) for i in hits[:3]))
    serial = {}
    print(f"\nserver, median of {args.rounds} (ms)")
    print(f"  PCA and points (once per chunk set, then cached)  "
          f"{_median_ms(lambda: build_map(chunks, vectors, names), args.rounds):7.0f}")
    for label, colour, placed in (("by document", "document", None),
                                  ("by section", "section", None),
                                  ("by document, with a question", "document", question)):
        def work(colour=colour, placed=placed) -> str:
            return plotly.io.to_json(map_figure(chunk_map, colour, placed), validate=False)

        serial[label] = work()
        print(f"  figure + JSON, {label:31} {_median_ms(work, args.rounds):7.0f}   "
              f"({len(serial[label]) / 1e6:.2f} MB)")

    print(f"\nheadless Chromium, plotly.js {plotly.__version__}: ms from newPlot to the next "
          "painted frame (first = cold, then the median of the warm ones)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_content('<div id="map" style="width:1200px;height:560px"></div>')
        page.add_script_tag(path=str(PLOTLY_JS))
        one = plotly.io.to_json(go.Figure(go.Scattergl(x=[0], y=[0])), validate=False)
        references = {"one point (reference)": one}
        for label, spec in {**references, **serial}.items():
            kinds = [("WebGL", spec)] + ([] if label in references else [("SVG", _as_svg(spec))])
            for kind, figure_json in kinds:
                figure = json.loads(figure_json)
                times = [float(page.evaluate(DRAW, figure)) for _ in range(args.rounds + 1)]
                warm = statistics.median(times[1:])
                print(f"  {label:31} {kind:6} cold {times[0]:6.0f}   warm {warm:6.0f}   "
                      f"warm / 2 s target {warm / 1000 / TARGET_S:.2f}")
        browser.close()
    if args.app:
        _app_rounds(chunks, args.rounds)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _app_rounds(chunks, rounds: int) -> None:
    from core.store import ChunkSetInfo, ChunkStore

    store = ChunkStore()
    sets = {SET_NAME: chunks, SMALL_SET: chunks[:SMALL]}
    for name, members in sets.items():
        if not store.has_set(name):
            store.create_set(ChunkSetInfo(name=name, strategy="recursive",
                                          settings={"size": 24}))
            store.add_chunks(name, members)
    port = _free_port()
    log = open(Path(tempfile.mkdtemp()) / "streamlit.log", "wb")  # noqa: SIM115
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true",
         "--browser.gatherUsageStats", "false"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(f"{url}/store")
            _idle(page)
            print("\napp, Chunk sets page: ms from the click on 'Draw a map' to the map painted "
                  "and the run over, warm (the map computed once before; median); reference: "
                  "the same page without the map (the click that hides it, to the run over)")
            for name, members in sets.items():
                started = time.perf_counter()
                _pick_set(page, name)
                cold = time.perf_counter() - started
                times, without = [], []
                for _ in range(rounds):
                    on, off = _toggle_map(page)
                    times.append(on)
                    without.append(off)
                warm = statistics.median(times)
                print(f"  {len(members):>6,} chunks: warm {warm:6.0f}   warm / 2 s target "
                      f"{warm / 1000 / TARGET_S:.2f}   page without the map "
                      f"{statistics.median(without):5.0f}   (first map, computed: about "
                      f"{cold:.0f} s)", flush=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


def _pick_set(page: Page, name: str) -> None:
    """Show the map of ``name`` (the map is drawn once to reach its set picker, then hidden)."""
    toggle = page.get_by_text("Draw a map")
    if not page.locator(".js-plotly-plot").count():
        toggle.click()
        _idle(page)
    page.get_by_test_id("stSelectbox").filter(has_text="Chunk set").click()
    page.get_by_role("option", name=name, exact=True).click()
    _idle(page)
    page.locator(".js-plotly-plot").wait_for()
    toggle.click()
    _idle(page)


def _idle(page: Page) -> None:
    for _ in range(2):
        page.wait_for_timeout(300)
        page.wait_for_function("""() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                && !document.querySelector('[data-testid="stStatusWidget"]');
        }""", timeout=600_000)


def _toggle_map(page: Page) -> tuple[float, float]:
    """(ms to turn the map on until it is painted, ms to turn it off until the run is over)."""
    toggle = page.get_by_text("Draw a map")
    on = _timed_click(page, toggle, """() => {
        const plot = document.querySelector('.js-plotly-plot');
        return plot && plot._fullData && plot._fullData.length; }""")
    off = _timed_click(page, toggle, "() => !document.querySelector('.js-plotly-plot')")
    return on, off


def _timed_click(page: Page, target, done: str) -> float:
    """ms from a click on ``target`` until ``done`` holds, the script run is over and a frame
    is painted."""
    page.evaluate("""() => { window.__clicked = 0;
        document.addEventListener('click', () => { window.__clicked = performance.now(); },
                                  {capture: true, once: true}); }""")
    target.click()
    page.wait_for_function(f"""() => ({done})() && document.querySelector('[data-testid="stApp"]')
        .getAttribute('data-test-script-state') === 'notRunning'""", timeout=600_000)
    return float(page.evaluate("""() => new Promise((done) => requestAnimationFrame(
        () => requestAnimationFrame(() => done(performance.now() - window.__clicked))))"""))


if __name__ == "__main__":
    main()

"""How fast the app answers a click: the real app in headless Chromium, warm, on the samples.

Starts ``streamlit run app.py`` on a port and a data folder of its own (a chunk set of the
samples is ingested first, so Assemble has something to retrieve from), and a bare Streamlit
page (one button, one line of text) beside it as the reference: the cost of a rerun on this
machine right now. Each interaction is timed from the browser's input event to the end of the
script run the event started (Streamlit's ``data-test-script-state`` back to ``notRunning``), so
the figures leave out Playwright's own overhead. Prints p50 / p95 per interaction and their
ratio to the reference's p50.

    python -m bench.bench_ui [--rounds 12]

Needs Playwright and ``/usr/bin/chromium`` (``CHROMIUM_PATH`` to change it). The machine is
shared: run the reference in the same run, and read the ratios rather than the milliseconds.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, Playwright, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench.quick import add_quick

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
BARE_PAGE = """import streamlit as st
st.title("Reference")
if st.button("Rerun"):
    st.write("clicked")
st.write("A bare page: one button and a line of text.")
"""
QUICK_DOCS = ("technical_handbook.md", "insurance_policy.docx")  # the two the bench switches
# Installed in the page: when the user last clicked or typed, and when a run last finished.
PROBE = """() => {
    if (window.__bench) return;
    window.__bench = {input: 0, finished: 0};
    const note = () => { window.__bench.input = performance.now(); };
    for (const kind of ['click', 'keydown', 'change']) document.addEventListener(kind, note, true);
    new MutationObserver((records) => {
        // a run may start and end between two callbacks: read the old values too
        const mine = records.filter((r) => r.target.getAttribute('data-testid') === 'stApp');
        const ran = mine.some((r) => r.oldValue !== 'notRunning');
        const app = document.querySelector('[data-testid="stApp"]');
        if (ran && app.getAttribute('data-test-script-state') === 'notRunning')
            window.__bench.finished = performance.now();
    }).observe(document.body, {subtree: true, attributes: true, attributeOldValue: true,
                               attributeFilter: ['data-test-script-state']});
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(script: Path, data: Path, extra: dict[str, str] | None = None) -> Iterator[str]:
    """``streamlit run script`` on a free port (no model server, no Chroma server unless
    ``extra`` environment names one); yields its URL."""
    port = _free_port()
    env = {**os.environ, "CHUNKLAB_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    for name in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "CHROMA_HOST"):
        env.pop(name, None)
    env |= extra or {}
    log = open(data / f"{script.stem}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.address",
         "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"{script.name} did not start; see {log.name}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


def idle(page: Page, timeout_ms: int = 180_000) -> None:
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                && !document.querySelector('[data-testid="stSkeleton"]');
        }""", timeout=timeout_ms)


UNSEEN_MS = 10_000  # a warm run ends well within this; a run not seen to end by then is left out


def timed(page: Page, action: Callable[[], None]) -> float | None:
    """Milliseconds from the action's last input event to the end of the run it started (None
    when no run was seen to end: the sample is left out). A run is missed when the browser
    draws its start and end in one update (the script state never shows "running"), which
    happens to the quickest runs, mostly the bare page's."""
    page.evaluate(PROBE)
    page.evaluate("() => { window.__bench.input = 0; window.__bench.finished = 0; }")
    action()
    try:
        page.wait_for_function(
            "() => window.__bench.input > 0 && window.__bench.finished > window.__bench.input",
            timeout=UNSEEN_MS)
    except PlaywrightTimeout:
        return None
    page.wait_for_timeout(150)  # a second run (st.rerun) would start now
    idle(page)
    return float(page.evaluate("() => window.__bench.finished - window.__bench.input"))


def pick(page: Page, label: str, option: str | re.Pattern[str]) -> None:
    page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first.click()
    page.get_by_role("option", name=option, exact=isinstance(option, str)).first.click()


def document_option(file_name: str) -> re.Pattern[str]:
    """A document picker's option by its file name, whatever follows it (its format, and
    "sample" for a shipped one)."""
    return re.compile(rf"^{re.escape(file_name)}\s+·")  # an option's name collapses spaces


def goto(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('[data-testid="stApp"]')
    page.wait_for_timeout(500)
    idle(page)


def nav(page: Page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()


ATTEMPTS_PER_ROUND = 3  # a run not seen to end is tried again, up to this many times a round


def measure(page: Page, rounds: int, steps: list[Callable[[], None]]) -> list[float]:
    """Run the steps in turn (they alternate between two states) and time each, until
    ``rounds`` runs were seen to end or ``ATTEMPTS_PER_ROUND × rounds`` were tried (the quickest
    runs, the bare page's most of all, are often not seen: see ``timed``)."""
    steps[0]()  # warm: the first of each is not timed
    idle(page)
    times: list[float] = []
    for n in range(rounds * ATTEMPTS_PER_ROUND):
        if len(times) == rounds:
            break
        elapsed = timed(page, steps[(n + 1) % len(steps)])
        if elapsed is not None:
            times.append(elapsed)
    return times


def browser_page(pw: Playwright) -> tuple[Browser, Page]:
    """Chromium and a page as the browser benches drive them (1500 × 1000, long waits)."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    page = browser.new_context(viewport={"width": 1500, "height": 1000}).new_page()
    page.set_default_timeout(180_000)
    return browser, page


def reference_rerun(page: Page, bare: str, rounds: int) -> list[float]:
    """The bare page's rerun, timed: what any click costs on this machine right now."""
    goto(page, bare)
    button = page.get_by_role("button", name="Rerun")
    return measure(page, rounds, [lambda: button.click(), lambda: button.click()])


def bench(app: str, bare: str, rounds: int) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {}
    with sync_playwright() as pw:
        browser, page = browser_page(pw)
        results["reference: bare page rerun"] = reference_rerun(page, bare, rounds)

        goto(page, app)
        for title in ("Documents", "Compare", "Prompts", "Assemble", "Home"):  # warm every page
            nav(page, title)
            idle(page)
        results["page switch (Documents ⇄ Compare)"] = measure(
            page, rounds, [lambda: nav(page, "Documents"), lambda: nav(page, "Compare")])

        nav(page, "Compare")
        idle(page)
        results["Compare: change one configuration"] = measure(page, rounds, [
            lambda: pick(page, "Configuration 2", "recursive 500/50 (no tables)"),
            lambda: pick(page, "Configuration 2", "recursive 500/50")])

        nav(page, "Documents")
        idle(page)
        results["Documents: switch document"] = measure(page, rounds, [
            lambda: pick(page, "Document", document_option("technical_handbook.md")),
            lambda: pick(page, "Document", document_option("insurance_policy.docx"))])

        nav(page, "Prompts")
        idle(page)
        titles = page_titles(page)
        results["Prompts: switch template"] = measure(page, rounds, [
            lambda: pick(page, "Template", titles[1]), lambda: pick(page, "Template", titles[2])])

        nav(page, "Assemble")
        idle(page)
        questions = ["What is the dwelling limit?", "How long is the warranty?",
                     "Who attended the meeting?"]
        box = page.get_by_label("Question")

        def ask(text: str) -> Callable[[], None]:
            def step() -> None:
                box.fill(text)
                box.press("Control+Enter")
            return step

        results["Assemble: new question"] = measure(page, rounds,
                                                    [ask(q) for q in questions])
        browser.close()
    return results


def page_titles(page: Page) -> list[str]:
    """The template titles the Prompts page offers (its selectbox's options)."""
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Template").first.click()
    options = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    return [o.strip() for o in options]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.rounds = 1
    with tempfile.TemporaryDirectory(prefix="bench-ui-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        bare_script = Path(tmp) / "bare.py"
        bare_script.write_text(BARE_PAGE, encoding="utf-8")
        env = {**os.environ, "CHUNKLAB_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
        docs = [str(p) for p in sorted((ROOT / "sample_docs").iterdir())
                if p.is_file() and p.suffix != ".py"
                and (not args.quick or p.name in QUICK_DOCS)]
        subprocess.run([sys.executable, "-m", "core", "ingest", *docs, "--chunk-set", "bench",
                        "--strategy", "recursive"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        with serve(bare_script, data) as bare, serve(ROOT / "app.py", data) as app:
            results = bench(app, bare, args.rounds)
    seen = results["reference: bare page rerun"]
    reference = statistics.median(seen) if seen else None  # no ratios without a reference
    print(f"{'interaction':40} {'p50 ms':>8} {'p95 ms':>8} {'p50 / ref':>10}  (n={args.rounds})")
    for name, times in results.items():
        if not times:
            print(f"{name:40} {'–':>8} {'–':>8} {'–':>10}  (not seen to end)")
            continue
        p50, p95 = statistics.median(times), percentile(times, 0.95)
        ratio = f"{p50 / reference:10.1f}" if reference else f"{'–':>10}"
        print(f"{name:40} {p50:8.0f} {p95:8.0f} {ratio}"
              + (f"  ({args.rounds - len(times)} not seen to end)" if len(times) < args.rounds
                 else ""))


if __name__ == "__main__":
    main()

"""How long "Show on page" takes: drawing a PDF page and a chunk's highlight, cold and warm, and
opening the control in the real app (headless Chromium, warm) against a bare page's rerun.

1. Core, on the sample field report: each page drawn from the PDF the first time (pdfium, in a
   worker process), a chunk's lines highlighted on it (the band around them and the whole
   page; drawn once, then held by the page's cache), and the drawn page read back from disk.
2. Browser (skipped with ``--no-browser``): Compare on the report, the inspector's chunk on
   its page; opening and closing the popover is timed from the click to the end of the run
   it starts, as ``bench_ui`` times every interaction.

    python -m bench.bench_page_view [--rounds 8] [--no-browser]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.bench_ui import (
    BARE_PAGE,
    browser_page,
    goto,
    idle,
    measure,
    nav,
    reference_rerun,
    serve,
)
from bench.quick import add_quick
from core.library import DocumentLibrary
from core.operations.page_view import page_picture, span_pages
from core.operations.strategies import chunk

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "sample_docs" / "field_report.pdf"


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def core_figures(data: Path) -> dict[str, list[float]]:
    library = DocumentLibrary(data / "documents")
    document = library.add(REPORT.read_bytes(), REPORT.name)
    chunks = chunk(document, "recursive", {"size": 200, "overlap": 0, "unit": "tokens"})
    figures: dict[str, list[float]] = {"page drawn from the PDF (cold)": [],
                                       "page read back (drawn before)": [],
                                       "chunk highlighted, band": [],
                                       "chunk highlighted, whole page": []}
    drawn: set[int] = set()
    for c in chunks:
        where = span_pages(document, [(c.start, c.end)])
        if where is None or not where.boxes:
            continue
        page = where.pages[0]
        started = time.perf_counter()
        library.page_image(document.doc_id, page)
        figures["page read back (drawn before)" if page in drawn
                else "page drawn from the PDF (cold)"].append(_ms(started))
        drawn.add(page)
        for whole, name in ((False, "band"), (True, "whole page")):
            started = time.perf_counter()
            page_picture(library, document.doc_id, page, where.boxes_on(page), whole=whole)
            figures[f"chunk highlighted, {name}"].append(_ms(started))
    return figures


def browser_figures(data: Path, rounds: int, tmp: Path) -> dict[str, list[float]]:
    bare_script = tmp / "bare.py"
    bare_script.write_text(BARE_PAGE, encoding="utf-8")
    results: dict[str, list[float]] = {}
    with serve(bare_script, data) as bare, serve(ROOT / "app.py", data) as app, \
            sync_playwright() as pw:
        browser, page = browser_page(pw)
        results["reference: bare page rerun"] = reference_rerun(page, bare, rounds)
        goto(page, app)
        nav(page, "Compare")
        idle(page)
        show = page.get_by_role("button", name="Show on page").first
        results["Compare: open / close Show on page"] = measure(
            page, rounds, [lambda: show.click(), lambda: show.click()])
        browser.close()
    return results


def report(title: str, figures: dict[str, list[float]]) -> None:
    print(f"{title:44} {'n':>3} {'median ms':>10} {'max ms':>8}")
    for name, values in figures.items():
        if values:
            print(f"{name:44} {len(values):3} {statistics.median(values):10.0f} "
                  f"{max(values):8.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--no-browser", action="store_true")
    add_quick(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-page-view-") as name:
        tmp = Path(name)
        data = tmp / "data"
        data.mkdir()
        report("core (field_report.pdf, 6 pages)", core_figures(data))
        if not args.no_browser:
            rounds = 1 if args.quick else args.rounds
            report("browser (warm, click to end of run)", browser_figures(data, rounds, tmp))


if __name__ == "__main__":
    main()

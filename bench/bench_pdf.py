"""The offline PDF route on every PDF of a folder, beside plain pdfplumber text.

    .venv/bin/python -m bench.bench_pdf [FOLDER ...]     # default: tests/golden/pdf

For each PDF: unmappable characters left as ``(cid:N)``, doubled-glyph words
("EENNFFOORRCCEEDD"), headings (sections) and tables found, seconds, and the route's quality
note. When ``<name>.md`` lies beside a PDF it is taken as the reference conversion: word-level F1
of the text against it (ours and plain pdfplumber's), the share of its headings found as
sections, the share found at their level, and, where it has pipe tables, the cell-level F1 of
the tables found against them; where it fences its front matter (cover, contents, index), the
section titles that are cover lines ("cover", none should be) and the retrieval results that
hold a line of its contents or index ("fm": the document chunked recursively, each reference
heading asked as a question with BM25, five results each; none should).
Make reference material with ``python -m bench.pdf_heldout OUT_DIR``.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from pathlib import Path

import core  # noqa: F401  (offline environment)
from bench.quick import add_quick
from core.documents.pdf import convert_pdf_offline
from corpora.pdf_score import (
    RESULTS,
    cover_headings,
    doubled_glyph_words,
    front_matter_lines,
    front_matter_results,
    heading_level_agreement,
    heading_recall,
    reference_headings,
    reference_tables,
    table_cell_f1,
    unmapped,
    word_f1,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "tests" / "golden" / "pdf"


def plain_text(data: bytes) -> str:
    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return "\n".join(page.extract_text() or "" for page in pdf.pages)


def _pct(value: float | None) -> str:
    return "   –" if value is None else f"{value:4.2f}"


def _count(value: int | None) -> str:
    return "–" if value is None else str(value)


def bench(folder: Path, limit: int | None = None) -> None:
    print(f"\n{folder}")
    print(f"{'pdf':42} {'what':10} {'cid':>5} {'dbl':>5} {'head':>5} {'tabl':>5} {'sec':>6}"
          f" {'F1':>5} {'headR':>5} {'level':>5} {'cells':>5} {'cover':>5} {'fm':>4}")
    f1s, recalls, cells, levels = [], [], [], []
    covers, hits = [], []
    for path in sorted(folder.glob("*.pdf"))[:limit]:
        data = path.read_bytes()
        ref_path = path.with_suffix(".md")
        reference = ref_path.read_text() if ref_path.exists() else None
        started = time.perf_counter()
        plain = plain_text(data)
        plain_seconds = time.perf_counter() - started
        started = time.perf_counter()
        ours = convert_pdf_offline(data, path.name)
        seconds = time.perf_counter() - started
        f1 = word_f1(ours.text, reference) if reference is not None else None
        recall = (heading_recall([s.title for s in ours.sections], reference_headings(reference))
                  if reference is not None else None)
        if f1 is not None:
            f1s.append(f1)
        if recall is not None:
            recalls.append(recall)
        level = (heading_level_agreement([(s.title, s.level) for s in ours.sections],
                                         reference) if reference is not None else None)
        if level is not None:
            levels.append(level)
        cell = (table_cell_f1([t.rows for t in ours.tables], reference_tables(reference))
                if reference is not None else None)
        if cell is not None:
            cells.append(cell)
        cover = (len(cover_headings([s.title for s in ours.sections], reference))
                 if reference is not None and front_matter_lines(reference) else None)
        hit = front_matter_results(ours, reference) if reference is not None else None
        if cover is not None:
            covers.append(cover)
        if hit is not None:
            hits.append(hit)
        name = path.name[:42]
        print(f"{name:42} {'pdfplumber':10} {unmapped(plain):5} "
              f"{len(doubled_glyph_words(plain)):5} {'':>5} {'':>5} {plain_seconds:6.2f} "
              f"{_pct(word_f1(plain, reference) if reference is not None else None):>5}")
        print(f"{'':42} {'ours':10} {unmapped(ours.text):5} "
              f"{len(doubled_glyph_words(ours.text)):5} {len(ours.sections):5} "
              f"{len(ours.tables):5} {seconds:6.2f} {_pct(f1):>5} {_pct(recall):>5}"
              f" {_pct(level):>5} {_pct(cell):>5} {_count(cover):>5} {_count(hit):>4}")
        if ours.quality is not None:
            print(f"{'':42}   {ours.quality.summary()}")
    if f1s:
        print(f"mean word F1 {statistics.mean(f1s):.3f} (min {min(f1s):.3f}); "
              f"mean heading recall {statistics.mean(recalls):.3f} (min {min(recalls):.3f})"
              + (f"; headings at their level {statistics.mean(levels):.3f}" if levels else "")
              + (f"; mean table cell F1 {statistics.mean(cells):.3f}" if cells else "")
              + (f"; cover lines as headings {sum(covers)}" if covers else "")
              + (f"; front-matter lines among {RESULTS} results a heading {sum(hits)}"
                 if hits else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[DEFAULT])
    add_quick(parser)
    args = parser.parse_args()
    for folder in args.folders:
        bench(folder, 1 if args.quick else None)


if __name__ == "__main__":
    main()

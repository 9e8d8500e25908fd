"""Conversion time per sample document: ours against the plain library call underneath.

From the repository root:

    .venv/bin/python -m bench.bench_convert [--repeat 5]

"ours" is ``core.documents.convert`` end to end (upload checks, conversion, our own text with
exact spans, the pydantic Document). The reference is what a caller would do without us:
docling's ``convert`` + ``export_to_markdown`` for the docling formats and Markdown, pdfplumber's
``extract_text`` on every page for PDF, a UTF-8 decode for TXT. Median of ``--repeat`` warm
runs each; the one-time cost of importing docling and building its converter is printed apart.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import core  # noqa: F401  (offline environment)
from bench.quick import add_quick
from core.documents import SUPPORTED_EXTENSIONS, convert

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_docs"


def reference(path: Path) -> tuple[str, Callable[[bytes], object]]:
    """(name, function) of the plain library call a caller would use for this file."""
    suffix = path.suffix.lower()
    if suffix == ".txt":
        return "utf-8 decode", lambda data: data.decode("utf-8")
    if suffix == ".pdf":
        import pdfplumber

        def plumber(data: bytes) -> str:
            with pdfplumber.open(io.BytesIO(data)) as pdf:
                return "\n".join(page.extract_text() or "" for page in pdf.pages)

        return "pdfplumber text", plumber
    from docling.datamodel.base_models import DocumentStream

    converter = _docling()

    def docling(data: bytes) -> str:
        stream = DocumentStream(name=path.name, stream=io.BytesIO(data))
        return converter.convert(stream).document.export_to_markdown()

    return "docling + markdown", docling


_CONVERTER = None


def _docling():
    global _CONVERTER
    if _CONVERTER is None:
        from docling.document_converter import DocumentConverter

        _CONVERTER = DocumentConverter()
    return _CONVERTER


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-bench-"))

    files = sorted(p for p in SAMPLES.iterdir()
                   if p.is_file() and p.suffix.lower() in SUPPORTED_EXTENSIONS
                   and (not args.quick or p.suffix in (".md", ".docx")))
    start = time.perf_counter()
    import docling.document_converter  # noqa: F401

    imported = time.perf_counter()
    convert((SAMPLES / "insurance_policy.docx").read_bytes(), "insurance_policy.docx")
    first = time.perf_counter()
    print(f"one-time: import docling {1000 * (imported - start):.0f} ms, first DOCX conversion "
          f"(builds the converter) {1000 * (first - imported):.0f} ms\n")

    header = (f"{'document':<26} {'route':<12} {'KiB':>6} {'chars':>7} {'sect':>5} {'tabs':>5} "
              f"{'ours ms':>8} {'ref ms':>8} {'ours/ref':>8}  reference")
    print(header)
    print("-" * len(header))
    for path in files:
        data = path.read_bytes()
        doc = convert(data, path.name)  # warm-up
        ours = median_ms(lambda: convert(data, path.name), args.repeat)  # noqa: B023
        ref_name, ref_fn = reference(path)
        ref_fn(data)  # warm-up
        ref = median_ms(lambda: ref_fn(data), args.repeat)  # noqa: B023
        print(f"{path.name:<26} {doc.route:<12} {len(data) / 1024:>6.1f} {len(doc.text):>7,} "
              f"{len(doc.sections):>5} {len(doc.tables):>5} {ours:>8.1f} {ref:>8.1f} "
              f"{ours / ref:>8.2f}  {ref_name}")
    print(f"\nmedian of {args.repeat} warm runs per cell; machine: {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

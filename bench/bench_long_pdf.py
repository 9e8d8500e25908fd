"""A long PDF converted beside pdfium's bare text extraction of the same file: seconds and peak
memory for each length.

From the repository root, with a folder of PDFs to take pages from:

    .venv/bin/python -m bench.bench_long_pdf FOLDER [--pages 400 2000]

Each long PDF is made at run time (a temporary file, never kept) by joining the pages of the
PDFs in FOLDER with pypdfium2, one file after another: each file's pages are copied anew while
the copies stay under :data:`DISTINCT_BYTES` of sources, then the same pages are imported again
sharing their objects, so the PDF stays under the upload limit. Each measurement runs in a
fresh Python process that prints its own peak resident memory (VmHWM):

- ``pdfium text``: every page's text with pypdfium2 (``get_text_range``), the floor;
- ``ours, in process``: :func:`core.documents.pdf.convert_pdf_offline`;
- ``ours, as the app``: :func:`core.documents.convert` (checks, the conversion worker with its
  time limit per page batch, the Document); its worker's peak is printed apart.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.quick import add_quick

WHAT = {"pdfium": "pdfium text", "offline": "ours, in process", "app": "ours, as the app"}
DISTINCT_BYTES = 40 * 2**20  # sources copied anew up to this much; then pages share objects

MEASURE = r"""
import json, resource, sys, time
from pathlib import Path

def peak(pid="self"):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0

what, path = sys.argv[1], sys.argv[2]
data = Path(path).read_bytes()
started = time.perf_counter()
worker = None
if what == "pdfium":
    import pypdfium2
    document = pypdfium2.PdfDocument(data)
    chars = 0
    for page in document:
        textpage = page.get_textpage()
        chars += len(textpage.get_text_range())
        textpage.close()
        page.close()
elif what == "offline":
    import core
    from core.documents.pdf import convert_pdf_offline
    chars = len(convert_pdf_offline(data, "long.pdf").text)
else:
    import core
    from core.documents import convert
    chars = len(convert(data, "long.pdf").text)
seconds = time.perf_counter() - started
if what == "app":
    from core.documents.worker import shutdown
    shutdown()
    worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "peak": peak(), "chars": chars, "worker": worker}))
"""


def build(folder: Path, pages: int) -> bytes:
    """A PDF of ``pages`` pages taken in turn from the PDFs in ``folder``."""
    import pypdfium2

    sources = [(path, pypdfium2.PdfDocument(path)) for path in sorted(folder.glob("*.pdf"))]
    sources = [(path, doc) for path, doc in sources if len(doc)]
    if not sources:
        raise SystemExit(f"no PDF with pages in {folder}")
    out = pypdfium2.PdfDocument.new()
    copied = 0
    while len(out) < pages:
        for path, doc in sources:
            left = pages - len(out)
            if left <= 0:
                break
            indices = list(range(min(len(doc), left)))
            if copied + path.stat().st_size > DISTINCT_BYTES:
                # once is enough: the rest repeat this file's pages, sharing their objects
                indices = [i % len(doc) for i in range(left)]
            else:
                copied += path.stat().st_size
            out.import_pages(doc, indices, len(out))
    with tempfile.TemporaryFile() as buffer:
        out.save(buffer)
        buffer.seek(0)
        return buffer.read()


def measure(what: str, path: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", MEASURE, what, str(path)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a folder of PDFs to take pages from")
    parser.add_argument("--pages", type=int, nargs="+", default=[400, 2000])
    parser.add_argument("--what", nargs="+", choices=list(WHAT), default=list(WHAT),
                        help="which measurements (default: all three)")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.pages = [10]
    print(f"{'pages':>6} {'MB':>6}  {'what':18} {'seconds':>8} {'s/page':>7} {'peak MiB':>9}"
          f" {'worker MiB':>10} {'characters':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for pages in args.pages:
            path = Path(tmp) / f"long-{pages}.pdf"
            path.write_bytes(build(args.folder, pages))
            size = path.stat().st_size / 2**20
            for what in args.what:
                label = WHAT[what]
                r = measure(what, path)
                if "error" in r:
                    print(f"{pages:6} {size:6.1f}  {label:18} {r['error']}")
                    continue
                worker = f"{r['worker'] / 2**20:10.0f}" if r.get("worker") else f"{'':>10}"
                print(f"{pages:6} {size:6.1f}  {label:18} {r['seconds']:8.1f}"
                      f" {r['seconds'] / pages:7.3f} {r['peak'] / 2**20:9.0f} {worker}"
                      f" {int(r['chars']):11,}", flush=True)


if __name__ == "__main__":
    main()

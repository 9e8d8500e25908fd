"""Memory of a long-lived process (the app) after many uploads: what it keeps, and what holds it.

From the repository root:

    .venv/bin/python -m bench.bench_upload_memory [--uploads 20]

Adds ``--uploads`` documents to a fresh library the way the Documents page does (the shipped
samples, then generated DOCX/XLSX/HTML files of growing size, every one different), then drops
the library as a closed session's resources are dropped and collects garbage. Prints the
resident memory (VmRSS) of this process and of its conversion workers at each step, its peak
(VmHWM), and the largest Python allocations still held (tracemalloc). Reference: the same run
when conversion happened in this process kept ~1.1 GB after 20 uploads.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench.quick import add_quick

ROOT = Path(__file__).resolve().parent.parent


def _status(pid: int | str = "self") -> dict[str, int]:
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) * 1024
    except FileNotFoundError:
        pass
    return out


def _children_rss() -> int:
    total = 0
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        children = (task / "children").read_text().split()
        total += sum(_status(child).get("VmRSS", 0) for child in children)
    return total


def _line(step: str, started: float) -> None:
    me = _status()
    print(f"{step:38} {time.perf_counter() - started:7.1f} s  RSS {me['VmRSS'] / 2**20:7.0f} MiB"
          f"  peak {me['VmHWM'] / 2**20:7.0f} MiB  workers {_children_rss() / 2**20:6.0f} MiB",
          flush=True)


def uploads(count: int) -> list[tuple[str, bytes]]:
    from corpora.hostile import deep_html, paragraphs_docx, xlsx_rows

    files = [(p.name, p.read_bytes()) for p in sorted((ROOT / "sample_docs").iterdir())
             if p.is_file() and p.suffix != ".py"]
    n = 0
    while len(files) < count:
        n += 1
        kind = n % 3
        if kind == 0:
            files.append((f"book{n}.xlsx", xlsx_rows(1000 * n)))
        elif kind == 1:
            files.append((f"long{n}.docx", paragraphs_docx(1000 * n)))
        else:
            files.append((f"page{n}.html", deep_html(20 + n)))
    return files[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=20)
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.uploads = 2
    os.environ["CHUNKLAB_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-memory-")
    files = uploads(args.uploads)
    tracemalloc.start(5)
    started = time.perf_counter()
    from core.documents.worker import shutdown
    from core.library import DocumentLibrary

    library = DocumentLibrary(Path(os.environ["CHUNKLAB_DATA_DIR"]) / "documents")
    _line("start", started)
    for i, (name, data) in enumerate(files, 1):
        library.add(data, name)
        if i % 5 == 0:
            _line(f"after {i} uploads", started)
    del library  # a closed session: the app drops what it cached for it
    gc.collect()
    _line("library dropped, gc", started)
    shutdown()
    _line("idle workers ended", started)
    snapshot = tracemalloc.take_snapshot()
    print("largest Python allocations still held:")
    for stat in snapshot.statistics("filename")[:6]:
        print(f"  {stat.size / 2**20:7.1f} MiB  {stat.traceback[0].filename}")


if __name__ == "__main__":
    main()

"""LLM chunking wall time at concurrency 1 and 4 against the fake server (fixed latency).

From the repository root (the fake server is ``fakes.llm``):

    .venv/bin/python -m bench.bench_llm [--latency 0.2] [--docs technical_handbook.md ...]

All sample documents go through the whole pipeline (structure, boundaries, metadata, prefixes,
table summaries) with the cache off, so both runs send the same requests; each request waits
``--latency`` seconds on the server. The reference is the same pipeline at concurrency 1, in the
same run. Target: at least 3.5x faster at concurrency 4.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.quick import add_quick
from core.documents import SUPPORTED_EXTENSIONS, convert
from core.errors import ChunkLabError
from core.operations.strategies import RunOptions, run_llm
from fakes.llm import FakeLLM

ROOT = Path(__file__).resolve().parent.parent
TARGET = 3.5


def load_samples(names: list[str] | None) -> list:
    documents = []
    for path in sorted((ROOT / "sample_docs").iterdir()):
        if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
            continue
        if names and path.name not in names:
            continue
        try:
            documents.append(convert(path.read_bytes(), path.name))
        except ChunkLabError as err:
            print(f"skipped {path.name}: {err}")
    return documents


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per request")
    parser.add_argument("--docs", nargs="*", help="sample file names (default: all)")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.latency, args.docs = 0.01, ["meeting_transcript.txt"]
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-bench-"))
    documents = load_samples(args.docs)
    print(f"documents: {', '.join(d.source_name for d in documents)}")
    fake = FakeLLM(latency=args.latency).start()
    rows = []
    try:
        for concurrency in (1, 4):
            settings = fake.settings(concurrency=concurrency, timeout=60)
            before = len(fake.requests)
            started = time.perf_counter()
            runs = run_llm(documents, {"cache": False}, RunOptions(llm=settings))
            wall = time.perf_counter() - started
            usage = runs[0].usage  # the whole run's, shared by every document
            chunks = sum(len(r.chunks) for r in runs)
            rows.append((concurrency, len(fake.requests) - before, usage.tokens, chunks, wall))
    finally:
        fake.stop()
    print(f"fake server latency {args.latency * 1000:.0f} ms per request, cache off\n")
    print(f"{'concurrency':>11} {'requests':>9} {'tokens':>9} {'chunks':>7} {'wall s':>8}")
    for concurrency, requests, tokens, chunks, wall in rows:
        print(f"{concurrency:>11} {requests:>9} {tokens:>9} {chunks:>7} {wall:>8.2f}")
    ratio = rows[0][4] / rows[1][4]
    verdict = "meets" if ratio >= TARGET else "misses"
    print(f"\nspeed-up at concurrency 4: {ratio:.2f}x ({verdict} the {TARGET}x target)")
    return 0 if ratio >= TARGET or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())

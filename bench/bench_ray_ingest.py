"""Ingest on this machine against ingest on a local Ray head, side by side (needs the ``cluster``
extra: ``pip install -e .[cluster]``).

From the repository root:

    .venv/bin/python -m bench.bench_ray_ingest [--docs 500] [--sentences 40] [--cpus 2] [--quick]

A generated corpus of small Markdown documents (headings and prose) is converted and chunked
(recursive, 200 tokens) two ways, each figure in documents per second:

- *convert + chunk*: only the part Ray takes over, through the workers port, locally and as Ray
  tasks on a local head this process starts (``ray.init(num_cpus=CPUS)``, shut down at the end);
- *whole ingest*: ``python -m core ingest`` in a fresh process and data folder (cold caches),
  without and with ``RAY_ADDRESS`` set to that head: conversion and chunking plus embedding
  (MiniLM, in the ingesting process both times: it stays where the set's embedder is) and the
  Chroma write, as the summary times it.

On paper, with N nodes of C cores: conversion and chunking are independent per document, so the
convert + chunk rate grows with N×C until this process (the driver, which receives the chunks)
or the network is the limit; Ray's cost per task (a few ms to schedule, the document's bytes out
and its chunks back) matters only for documents smaller than that. The whole ingest's rate is
bounded by the embedder: MiniLM on this machine stays one machine's rate however many nodes
convert; an embedding endpoint scales on its own side (``concurrency``).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.corpora.prose import prose
from bench.quick import add_quick
from core.operations.ingest.run import Source, sources_from_paths
from core.operations.ingest.task import ChunkTask
from core.operations.ingest.workers import LocalWorkers, RayWorkers, TaskLost, Workers
from core.operations.ingest.workers.on_ray import CORE
from core.operations.strategies import RunOptions

SETTINGS = {"size": 200, "overlap": 0, "unit": "tokens"}


def corpus(folder: Path, docs: int, sentences: int) -> list[Source]:
    rng = random.Random(7)
    for n in range(docs):
        parts = [f"# Report {n}"]
        for section in range(3):
            parts += [f"## Part {section + 1}", prose(sentences // 3, rng)]
        (folder / f"report_{n:04d}.md").write_text("\n\n".join(parts), encoding="utf-8")
    return sources_from_paths([folder])


def chunk_rate(workers: Workers, sources: list[Source]) -> tuple[float, int]:
    task = ChunkTask("recursive", SETTINGS, RunOptions())
    start = time.perf_counter()
    chunks = sum(len(made.chunks) for _, made in workers.run(task, sources)
                 if not isinstance(made, TaskLost))
    return len(sources) / (time.perf_counter() - start), chunks


def ingest_rate(folder: Path, data: Path, ray_address: str | None) -> tuple[float, str]:
    """``python -m core ingest`` in a fresh process and data folder (nothing cached): documents
    per second as its summary reports them, and the summary."""
    env = {**os.environ, "CHUNKLAB_DATA_DIR": str(data)}
    env.pop("RAY_ADDRESS", None)
    if ray_address:
        env["RAY_ADDRESS"] = ray_address
    command = [sys.executable, "-m", "core", "ingest", str(folder), "--chunk-set", "bench",
               "--strategy", "recursive", "--size", str(SETTINGS["size"]), "--overlap", "0"]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    found = re.search(r"stored ([\d,]+) documents .* in ([\d.]+) s", out)
    assert found, out
    return int(found[1].replace(",", "")) / float(found[2]), out.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--sentences", type=int, default=40, help="per document")
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 2,
                        help="CPUs the Ray head offers")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.docs, args.sentences, args.cpus = 24, 6, 1
    os.environ.pop("CHROMA_HOST", None)
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a local head: no token to hand round
    work = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    (work / "docs").mkdir()
    sources = corpus(work / "docs", args.docs, args.sentences)
    import ray

    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
             runtime_env={"py_modules": [str(CORE)], "excludes": ["__pycache__", "*.pyc"]})
    try:
        on_ray = RayWorkers(ray.get_runtime_context().gcs_address)  # joins this head
        local = LocalWorkers()
        chunk_rate(on_ray, sources[:20])  # Ray's workers start and import core once
        address = ray.get_runtime_context().gcs_address
        rows = []
        for label, workers, where in (("this process", local, None),
                                      (f"Ray head, {args.cpus} CPUs", on_ray, address)):
            rate, chunks = chunk_rate(workers, sources)
            whole, summary = ingest_rate(work / "docs", work / f"data-{len(rows)}", where)
            print(summary)
            rows.append((label, rate, whole, chunks))
        print(f"{args.docs} documents of {args.sentences} sentences, recursive 200 tokens, "
              f"{rows[0][3]} chunks; this machine has {os.cpu_count()} CPUs")
        print(f"{'where':<22}{'convert+chunk docs/s':>22}{'whole ingest docs/s':>22}")
        for label, rate, whole, _ in rows:
            print(f"{label:<22}{rate:>22.1f}{whole:>22.1f}")
    finally:
        ray.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Ingest on this machine against ingest on a local Ray head, side by side (needs the ``cluster``
extra: ``pip install -e .[cluster]``).

From the repository root:

    .venv/bin/python -m bench.bench_ray_ingest [--docs 500] [--sentences 40] [--cpus 2]

A generated corpus of small Markdown documents (headings and prose) is converted and chunked
(recursive, 200 tokens) two ways, each figure in documents per second:

- *convert + chunk*: only the part Ray takes over, through the workers port, locally and as Ray
  tasks on a head started here (``ray start --head --num-cpus CPUS``, stopped at the end);
- *whole ingest*: the same plus embedding (MiniLM, here in both cases: it stays where the set's
  embedder is) and the Chroma write, each run in a fresh data folder (a cold vector cache).

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
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_embeddings import prose
from core.operations.chunk_task import ChunkTask
from core.operations.ingest import Source, ingest, sources_from_paths
from core.operations.strategies import RunOptions
from core.operations.workers import LocalWorkers, RayWorkers, TaskLost, Workers

SETTINGS = {"size": 200, "overlap": 0, "unit": "tokens"}


def corpus(folder: Path, docs: int, sentences: int) -> list[Source]:
    rng = random.Random(7)
    for n in range(docs):
        parts = [f"# Report {n}"]
        for section in range(3):
            parts += [f"## Part {section + 1}", prose(sentences // 3, rng)]
        (folder / f"report_{n:04d}.md").write_text("\n\n".join(parts), encoding="utf-8")
    return sources_from_paths([folder])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_head(cpus: int, temp: str) -> tuple[subprocess.Popen, str]:
    """``ray start --head`` in a process group of its own (ended by its id)."""
    port = _free_port()
    command = [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block",
               f"--port={port}", f"--num-cpus={cpus}", "--include-dashboard=false",
               f"--temp-dir={temp}", "--disable-usage-stats"]
    head = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return head, f"127.0.0.1:{port}"
        except OSError:
            if head.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("ray start --head did not start") from None
            time.sleep(0.5)


def chunk_rate(workers: Workers, sources: list[Source]) -> tuple[float, int]:
    task = ChunkTask("recursive", SETTINGS, RunOptions())
    start = time.perf_counter()
    chunks = sum(len(made.chunks) for _, made in workers.run(task, sources)
                 if not isinstance(made, TaskLost))
    return len(sources) / (time.perf_counter() - start), chunks


def ingest_rate(workers: Workers, sources: list[Source], data: Path) -> float:
    os.environ["CHUNKLAB_DATA_DIR"] = str(data)
    summary = ingest(sources, "bench", "recursive", SETTINGS, workers=workers)
    return summary.documents / summary.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--sentences", type=int, default=40, help="per document")
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 2,
                        help="CPUs the Ray head offers")
    args = parser.parse_args()
    os.environ.pop("CHROMA_HOST", None)
    work = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay short
    (work / "docs").mkdir()
    sources = corpus(work / "docs", args.docs, args.sentences)
    head, address = start_head(args.cpus, temp)
    try:
        on_ray = RayWorkers(address)
        local = LocalWorkers()
        chunk_rate(on_ray, sources[:20])  # Ray's workers start and import core once
        rows = []
        for label, workers in (("this process", local), (f"Ray head, {args.cpus} CPUs", on_ray)):
            rate, chunks = chunk_rate(workers, sources)
            whole = ingest_rate(workers, sources, work / label.split(",")[0].replace(" ", "-"))
            rows.append((label, rate, whole, chunks))
        print(f"{args.docs} documents of {args.sentences} sentences, recursive 200 tokens, "
              f"{rows[0][3]} chunks; this machine has {os.cpu_count()} CPUs")
        print(f"{'where':<22}{'convert+chunk docs/s':>22}{'whole ingest docs/s':>22}")
        for label, rate, whole, _ in rows:
            print(f"{label:<22}{rate:>22.1f}{whole:>22.1f}")
    finally:
        import ray

        ray.shutdown()
        os.killpg(head.pid, signal.SIGTERM)
        head.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Chunk store throughput and query latency at 1k and 10k chunks of synthetic prose.

From the repository root (the prose generator is ``bench.corpora.prose``):

    .venv/bin/python -m bench.bench_store [--sizes 1000 10000] [--queries 200] [--words 60]

Per size: ingest chunks/s with a cold embedding cache (embedding + Chroma write, what a new
chunk set costs), the same chunks into a second set with a warm cache (Chroma write only, what
re-processing costs for unchanged text); query latency p50/p95 over distinct questions with
the question's embedding included (what a user waits for), then the same questions again
(embedding cached: Chroma search only) unfiltered and with a ``chunk_type`` filter, side by side
with an exact numpy search over the same vectors, and HNSW recall@10 against that exact search.
The reference for the first column, interleaved with it: other distinct questions whose vector
is also written to the embedding cache's SQLite file, as queries did before (the write cost as
much as the model run).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time

import numpy as np

from bench.corpora.prose import prose
from bench.quick import add_quick
from core.chunking.chunk import Chunk
from core.embeddings import embed
from core.store import ChunkSetInfo, ChunkStore
from core.store.views import embedding_text


def synthetic_chunks(count: int, words: int, rng: random.Random) -> list[Chunk]:
    chunks = []
    for i in range(count):
        text = " ".join(prose(words // 9 + 1, rng).split()[:words]) + f" Ref {i}."
        chunks.append(Chunk(
            id=f"c{i:06d}", doc_id=f"doc{i // 50:05d}", strategy="bench", config={},
            start=0, end=len(text), text=text, tokens=words,
            chunk_type="table" if i % 20 == 0 else "text", heading_path=["Bench", f"S{i % 7}"],
        ))
    return chunks


def percentiles(samples: list[float]) -> tuple[float, float]:
    p50, p95 = np.percentile(np.array(samples) * 1000, [50, 95])
    return float(p50), float(p95)


def run_size(store: ChunkStore, size: int, words: int, queries: int) -> dict[str, float]:
    rng = random.Random(size)
    chunks = synthetic_chunks(size, words, rng)
    cold, warm = f"bench-{size}-cold", f"bench-{size}-warm"
    for name in (cold, warm):
        store.create_set(ChunkSetInfo(name=name, strategy="bench"))
    start = time.perf_counter()
    store.add_chunks(cold, chunks)
    cold_rate = size / (time.perf_counter() - start)
    start = time.perf_counter()
    store.add_chunks(warm, chunks)
    warm_rate = size / (time.perf_counter() - start)

    questions = [prose(1, rng).strip() + f" (q{i})" for i in range(queries)]
    vectors = embed([embedding_text(c) for c in chunks])
    latency, search, filtered, exact, recall, persisted = [], [], [], [], [], []
    for n, question in enumerate(questions):
        start = time.perf_counter()
        embed([f"{question} (persisted {n})"])
        store.query(cold, f"{question} (persisted {n})", 10)
        persisted.append(time.perf_counter() - start)
        start = time.perf_counter()
        hits = store.query(cold, question, 10)
        latency.append(time.perf_counter() - start)
        start = time.perf_counter()
        store.query(cold, question, 10)
        search.append(time.perf_counter() - start)
        start = time.perf_counter()
        store.query(cold, question, 10, where={"chunk_type": "table"})
        filtered.append(time.perf_counter() - start)
        start = time.perf_counter()
        scores = vectors @ embed([question])[0]
        best = np.argpartition(-scores, 10)[:10]
        exact.append(time.perf_counter() - start)
        truth = {chunks[i].id for i in best}
        recall.append(len(truth & {c.id for c, _ in hits}) / 10)
    return {
        "cold": cold_rate, "warm": warm_rate,
        **dict(zip(("p50", "p95"), percentiles(latency), strict=True)),
        **dict(zip(("s50", "s95"), percentiles(search), strict=True)),
        **dict(zip(("f50", "f95"), percentiles(filtered), strict=True)),
        **dict(zip(("e50", "e95"), percentiles(exact), strict=True)),
        **dict(zip(("w50", "w95"), percentiles(persisted), strict=True)),
        "recall": float(np.mean(recall)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--words", type=int, default=60, help="words per synthetic chunk")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.queries = [50], 5
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-bench-"))
    os.environ.pop("CHROMA_HOST", None)
    store = ChunkStore()
    embed(["warm up the model"])
    print(f"embedded Chroma at {store.location}; {args.words} words per chunk; "
          f"{args.queries} distinct questions, k=10; cores: {os.cpu_count()}")
    print(f"{'':7} {'ingest chunks/s':>27} {'query ms, p50 / p95':>63}")
    header = ("chunks", "cold", "warm", "with embedding", "search only", "search filtered",
              "numpy exact", "recall@10", "written (before)")
    print("{:>7} {:>13} {:>13} {:>15} {:>15} {:>15} {:>15} {:>9} {:>17}".format(*header))
    for size in args.sizes:
        r = run_size(store, size, args.words, args.queries)
        pairs = [f"{r[a]:6.1f} / {r[b]:5.1f}" for a, b in
                 (("p50", "p95"), ("s50", "s95"), ("f50", "f95"), ("e50", "e95"))]
        print(f"{size:7d} {r['cold']:13.1f} {r['warm']:13.1f} "
              + " ".join(f"{p:>15}" for p in pairs) + f" {r['recall']:9.2f}"
              + f" {r['w50']:8.1f} / {r['w95']:5.1f}")


if __name__ == "__main__":
    main()

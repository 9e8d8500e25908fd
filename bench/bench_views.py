"""What reading long chunks in windows costs: embedding views and embed time.

Chunks the sample documents with recursive 500/50 and embeds, uncached, once the views a chunk
had when a long text chunk was embedded truncated (one view, MiniLM reading its first 256 word
pieces) and once the views it has now (overlapping windows that read every word). Table views
are the same in both.

Usage, from the repository root:

    .venv/bin/python -m bench.bench_views [--rounds 3] [--quick]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.quick import add_quick
from core.chunking.chunk import Chunk
from core.documents import convert
from core.embeddings import embed
from core.operations.presets import preset
from core.operations.strategies import chunk
from core.store.views import chunk_views, embedding_text, embedding_views

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"


def _chunks(documents: int | None) -> list[Chunk]:
    settings = preset("recursive 500/50")
    out: list[Chunk] = []
    paths = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.suffix != ".py")
    for path in paths[:documents]:
        document = convert(path.read_bytes(), path.name)
        out += chunk(document, settings.strategy, settings.settings)
    return out


def _timed(texts: list[str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        embed(texts, use_cache=False, persist=False)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.rounds = 1
    chunks = _chunks(1 if args.quick else None)
    now = [text for c in chunks for text in embedding_views(c)]
    before = [text for c in chunks for text in
              (embedding_views(c) if c.chunk_type == "table" else [embedding_text(c)])]
    reads = [chunk_views(c) for c in chunks]
    windowed = sum(r.windowed for r in reads)
    print(f"{len(chunks)} chunks ({windowed} read in windows)")
    for label, texts in (("truncated", before), ("windows", now)):
        print(f"{label:>10}: {len(texts):5d} views, embedded in {_timed(texts, args.rounds):.2f} s")


if __name__ == "__main__":
    main()

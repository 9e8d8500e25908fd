"""How long a tune takes on a ~1.5 MB corpus with ~500 questions, run as a user runs it
(``python -m core tune``, a new process, a fresh data folder: nothing chunked or embedded yet),
and what it found against the built-in presets.

The corpus is the benchmark corpus (``bench/corpus``) written with more seeds — the same kinds
of documents with other facts and phrasings, each copy its own documents — until the text
reaches ``--mb``, plus the sample documents and their question sets; ``--questions`` of all
their questions are kept, the same share of each document's (seeded). With ``--corpus-only``
the corpus alone is used as it ships (0.42 MB, 270 questions).

Usage, from the repository root:

    .venv/bin/python -m bench.bench_tune [--mb 1.5] [--questions 500] [--trials 16]
        [--objective recall] [--budget N] [--keep DIR] [--corpus-only] [--resume-check]

Prints the machine's load before and after (the machine may be shared), the wall-clock time
and CPU time of the run, the split, the share of trials served from cache, the front, the
recommendation and the best built-in preset. ``--resume-check`` runs the same command again
with ``--resume`` (everything cached) and prints its time too.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.corpus import make_corpus
from core.documents import convert

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_docs"
SEEDS = range(make_corpus.SEED, make_corpus.SEED + 50)


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def build(folder: Path, megabytes: float, questions: int, corpus_only: bool) -> tuple[int, int]:
    """Write the documents and ``questions.csv`` into ``folder``; (characters, questions)."""
    rows: list[dict[str, str]] = []
    size = 0
    if corpus_only:
        for path in (ROOT / "bench" / "corpus").iterdir():
            if path.suffix in (".md", ".txt"):
                shutil.copy(path, folder / path.name)
                size += len(convert(path.read_bytes(), path.name).text)
        rows = _rows((ROOT / "bench" / "corpus" / "questions.csv").read_bytes())
    else:
        for path in sorted(SAMPLES.iterdir()):
            if path.is_file() and path.suffix != ".py":
                shutil.copy(path, folder / path.name)
                size += len(convert(path.read_bytes(), path.name).text)
        for path in sorted((SAMPLES / "questions").glob("*.csv")):
            rows += _rows(path.read_bytes())
        for seed in SEEDS:
            if size >= megabytes * 1_000_000:
                break
            files = make_corpus.build(seed)
            renamed = {}
            for name, data in files.items():
                if name == make_corpus.QUESTIONS or size >= megabytes * 1_000_000:
                    continue
                stem, suffix = name.rsplit(".", 1)
                renamed[name] = f"{stem}-{seed}.{suffix}"
                (folder / renamed[name]).write_bytes(data)
                size += len(convert(data, renamed[name]).text)
            rows += [row | {"corpus_id": renamed[row["corpus_id"]]}
                     for row in _rows(files[make_corpus.QUESTIONS]) if row["corpus_id"] in renamed]
    if len(rows) > questions:
        rng = random.Random(0)
        by_doc: dict[str, list[dict[str, str]]] = {}
        for row in rows:
            by_doc.setdefault(row["corpus_id"], []).append(row)
        share = questions / len(rows)
        rows = [row for doc in sorted(by_doc) for row in
                rng.sample(by_doc[doc], max(1, round(len(by_doc[doc]) * share)))]
    with (folder / "questions.csv").open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=["question", "references", "corpus_id", "kind"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return size, len(rows)


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float, dict]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, check=True, stdout=subprocess.PIPE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, json.loads(done.stdout)


def _point(p: dict) -> str:
    held = p.get("held_back") or {}
    return (f"{p['label'][:70]:70} search recall {p['recall']:.3f} IoU {p['iou']:.3f} "
            f"{p['tokens']:7,.0f} tok | held back " + (
                f"recall {held['recall']:.3f} IoU {held['iou']:.3f} {held['tokens']:7,.0f} tok"
                if held else "-"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.5)
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--objective", default="recall")
    parser.add_argument("--budget", type=int)
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    parser.add_argument("--corpus-only", action="store_true")
    parser.add_argument("--resume-check", action="store_true")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="chunklab-tune-corpus-"))
    folder.mkdir(parents=True, exist_ok=True)
    size, count = build(folder, args.mb, args.questions, args.corpus_only)
    print(f"corpus: {size / 1e6:.2f} MB of text in {len(list(folder.glob('*'))) - 1} "
          f"documents, {count} questions ({folder})")
    data = tempfile.mkdtemp(prefix="chunklab-tune-data-")
    env = {**os.environ, "CHUNKLAB_DATA_DIR": data}
    argv = [sys.executable, "-m", "core", "tune", "--questions", str(folder / "questions.csv"),
            "--docs", str(folder), "--trials", str(args.trials), "--objective", args.objective,
            "--quiet", *(["--budget", str(args.budget)] if args.budget else [])]
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores: above 2 the machine is "
          "shared)")
    wall, cpu, out = _run(argv, env)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(f"{args.trials} trials: {wall:.0f} s wall clock ({wall / 60:.1f} min), {cpu:.0f} s CPU "
          f"(user + system of the process); the tune's own clock: {out['seconds']:.0f} s")
    split = out["split"]
    print(f"split: {split['search']} search questions, {split['held_back']} held back "
          f"(seed {split['seed']}, by document)")
    cache = out["cache"]
    print(f"cache: {cache['served']} of {cache['trials']} trials served ({cache['share']:.0%}); "
          f"chunked nothing new {cache['chunked_nothing_new']}, embedded nothing new "
          f"{cache['embedded_nothing_new']}")
    print("front:")
    for p in out["pareto"]:
        print("  " + _point(p))
    rec = out["recommended"]
    if rec:
        print("recommended: " + rec["sentence"])
        for line in rec["evidence"]:
            print("  " + line)
    print("all trials (search part):")
    for p in out["all_trials"]:
        print(f"  {p['trial']:2d} {p['seconds']:6.1f} s {'cache' if p['from_cache'] else '     '} "
              + _point(p))
    if args.resume_check:
        wall, cpu, again = _run([*argv, "--resume"], env)
        print(f"again with --resume: {wall:.0f} s wall clock, {cpu:.0f} s CPU; cache "
              f"{again['cache']['share']:.0%}")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()

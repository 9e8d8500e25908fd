"""How long a tune takes on a ~1.5 MB corpus with ~500 questions, run as a user runs it
(``python -m core tune``, a new process, a fresh data folder: nothing chunked or embedded yet),
and what it found against the built-in presets.

The corpus is the benchmark corpus (``corpora/benchmark``) written with more seeds — the same kinds
of documents with other facts and phrasings, each copy its own documents — until the text
reaches ``--mb``, plus the sample documents and their question sets; ``--questions`` of all
their questions are kept, the same share of each document's (seeded). With ``--set corpus``
the corpus alone is used as it ships (0.42 MB, 270 questions), with ``--set samples`` the
sample documents and their question sets (0.12 MB, 152 questions).

Usage, from the repository root:

    .venv/bin/python -m bench.bench_tune [--mb 1.5] [--questions 500] [--trials 16]
        [--objective recall] [--budget N|none] [--min-recall R] [--keep DIR]
        [--set mixed|samples|corpus] [--resume-check] [--presets]

Prints the machine's load before and after (the machine may be shared), the wall-clock time
and CPU time of the run, the split, the share of trials served from cache, the front, the
recommendation and its evidence. ``--presets`` scores every built-in preset on the held-back
questions beside the recommendation (the check that the tune finds one at least as good);
``--resume-check`` runs the same command again with ``--resume`` (everything cached) and prints
its time too.
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

from bench.quick import add_quick
from core.documents import convert
from core.evaluation.stats import compare_paired, format_p
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.presets import BUILTIN_PRESETS
from core.operations.questions.sets import load_from_folder
from core.operations.tune.report import Figures
from core.operations.tune.run import split_questions
from corpora.benchmark import FOLDER as BENCHMARK_CORPUS
from corpora.benchmark import make_corpus

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_docs"
SEEDS = range(make_corpus.SEED, make_corpus.SEED + 50)


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def build(folder: Path, megabytes: float, questions: int, kind: str,
          samples: tuple[str, ...] = ()) -> tuple[int, int]:
    """Write the documents and ``questions.csv`` into ``folder``; (characters, questions).
    ``samples``: the stems of the sample documents to take (none given: all)."""
    rows: list[dict[str, str]] = []
    size = 0
    if kind == "corpus":
        for path in (BENCHMARK_CORPUS).iterdir():
            if path.suffix in (".md", ".txt"):
                shutil.copy(path, folder / path.name)
                size += len(convert(path.read_bytes(), path.name).text)
        rows = _rows((BENCHMARK_CORPUS / "questions.csv").read_bytes())
    else:
        for path in sorted(SAMPLES.iterdir()):
            if path.is_file() and path.suffix != ".py" and path.stem in (samples or path.stem):
                shutil.copy(path, folder / path.name)
                size += len(convert(path.read_bytes(), path.name).text)
        for path in sorted((SAMPLES / "questions").glob("*.csv")):
            if path.stem in (samples or path.stem):
                rows += _rows(path.read_bytes())
        for seed in SEEDS:
            if kind == "samples" or size >= megabytes * 1_000_000:
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


def _presets_on_held_back(folder: Path, out: dict) -> None:
    """Every built-in preset as Evaluate runs it (its own ranking, else vector; top 5) on the
    held-back questions, beside the recommendation, with the sign test of each against it."""
    loaded = load_from_folder(folder / "questions.csv", folder)
    split = split_questions(loaded.questions, out["split"]["held_back_share"],
                            out["split"]["seed"])
    config = out["recommended"]["configuration"]
    best = Candidate(config["label"], config["strategy"], config["settings"],
                     ranking=config["ranking"], merge_adjacent=config["merge_adjacent"])
    [mine] = evaluate(split.held_back, loaded.documents, [best], ranking=config["ranking"],
                      retrieval=Retrieval(k=config["k"], budget=config["budget"]))
    objective = out["objective"]
    figures = Figures.of(mine, objective)
    print(f"held back ({figures.questions} questions), {objective}; B = the recommendation:")
    print(f"  {'recommended: ' + best.label:78.78} {figures.objective:.3f} "
          f"[{figures.objective_ci[0]:.3f}, {figures.objective_ci[1]:.3f}] "
          f"{figures.tokens:7,.0f} tok")
    for name, preset in BUILTIN_PRESETS.items():
        [result] = evaluate(split.held_back, loaded.documents, [preset.candidate()],
                            ranking=preset.ranking or "vector")
        theirs = Figures.of(result, objective)
        c = compare_paired(objective, name, list(theirs.values), best.label,
                           list(figures.values))
        verdict = ("tie" if not c.significant else "recommendation better"
                   if c.wins > c.losses else "preset better")
        print(f"  {name:78.78} {theirs.objective:.3f} [{theirs.objective_ci[0]:.3f}, "
              f"{theirs.objective_ci[1]:.3f}] {theirs.tokens:7,.0f} tok  B {c.wins}-{c.losses} "
              f"({c.ties} ties) {format_p(c.p_value)}: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.5)
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--objective", default="recall")
    parser.add_argument("--budget", help="tokens per question, or none (default: the tune's)")
    parser.add_argument("--min-recall", type=float)
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    parser.add_argument("--set", choices=("mixed", "samples", "corpus"), default="mixed",
                        help="mixed: --mb of corpus copies and the samples (default); samples: "
                        "the sample documents and their sets; corpus: corpora/benchmark as it "
                        "ships")
    parser.add_argument("--resume-check", action="store_true")
    parser.add_argument("--presets", action="store_true",
                        help="also score every built-in preset on the held-back questions and "
                        "compare each with the recommendation")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.mb, args.questions, args.trials, args.set = 0, 24, 2, "samples"
    folder = args.keep or Path(tempfile.mkdtemp(prefix="chunklab-tune-corpus-"))
    folder.mkdir(parents=True, exist_ok=True)
    size, count = build(folder, args.mb, args.questions, args.set,  # quick: no converter
                        ("technical_handbook", "meeting_transcript") if args.quick else ())
    print(f"corpus: {size / 1e6:.2f} MB of text in {len(list(folder.glob('*'))) - 1} "
          f"documents, {count} questions ({folder})")
    data = tempfile.mkdtemp(prefix="chunklab-tune-data-")
    env = {**os.environ, "CHUNKLAB_DATA_DIR": data}
    argv = [sys.executable, "-m", "core", "tune", "--questions", str(folder / "questions.csv"),
            "--docs", str(folder), "--trials", str(args.trials), "--objective", args.objective,
            "--quiet", *(["--budget", str(args.budget)] if args.budget else []),
            *(["--min-recall", str(args.min_recall)] if args.min_recall else [])]
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
    print(f"budget: {out['budget']['source']}")
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
    if args.presets and rec:
        os.environ["CHUNKLAB_DATA_DIR"] = data  # the tune's caches
        _presets_on_held_back(folder, out)
    if args.resume_check:
        wall, cpu, again = _run([*argv, "--resume"], env)
        print(f"again with --resume: {wall:.0f} s wall clock, {cpu:.0f} s CPU; cache "
              f"{again['cache']['share']:.0%}")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()

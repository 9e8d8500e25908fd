"""How long an evaluation takes on a ~1.5 MB corpus with ~500 questions (issue 7's budget:
minutes on 2 cores), cold (fresh data folder: nothing embedded yet) and warm (results cached).

The corpus is the eight samples copied until the documents the questions ask about (the only
ones an evaluation chunks and embeds) reach the target size; each copy replaces "the" and "and"
with copy-specific words of the same length, so offsets stay valid and the chunk texts differ
between copies (the embedding cache cannot hide the work).

Or a folder of documents with a question CSV (Chroma's format) instead of the samples. With
``--profile`` the cold run is profiled and the functions that take the most time are printed.
Last, the model's work in the cold run (texts, word pieces, floating-point operations) and the
least time any fp32 run of it could take on this machine, from onnxruntime's matmul peak.

Usage, from the repository root:

    .venv/bin/python -m bench.bench_evaluation [--mb 1.5] [--questions 500]
        [--docs FOLDER --csv QUESTIONS.csv] [--preset NAME ...] [--rank hybrid] [--profile]
        [--config 'recursive {"size": 200, "overlap": 0}' ...]

``--config`` is a strategy and its settings (JSON), for a configuration no preset names.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import re
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.quick import add_quick
from bench.scoring.ceilings import flops_per_text, onnxruntime_matmul_peak_gflops
from core.embeddings import MAX_WORD_PIECES, encoder
from core.evaluation.questions import Question, QuestionSet
from core.operations.evaluation import Candidate, CandidateResult, evaluate
from core.operations.presets import preset
from core.operations.questions.sets import load_from_folder
from core.operations.strategies import validated_config

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_docs"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _variant(text: str, copy: int) -> str:
    if copy == 0:
        return text
    a, b = LETTERS[copy % 26], LETTERS[(copy // 26) % 26]
    text = re.sub(r"\bthe\b", f"t{a}{b}", text)
    return re.sub(r"\band\b", f"a{b}{a}", text)


def build(target_chars: int, max_questions: int, csvs: list[Path] | None = None):
    """Questions and the documents they ask about, those documents ``target_chars`` or more."""
    tried = target_chars
    while True:
        question_set, documents = _copies(tried, max_questions, csvs)
        used = {q.corpus_id for q in question_set.questions}
        documents = {cid: d for cid, d in documents.items() if cid in used}
        size = sum(len(d.text) for d in documents.values())
        if size >= target_chars:
            return question_set, documents
        tried = int(tried * target_chars / size) + 10_000


def _copies(target_chars: int, max_questions: int, csvs: list[Path] | None):
    base = [load_from_folder(p, SAMPLES)
            for p in csvs or sorted((SAMPLES / "questions").glob("*.csv"))]
    documents, questions, size, copy = {}, [], 0, 0
    while size < target_chars:
        for loaded in base:
            question_set = loaded.questions
            for corpus_id, doc in loaded.documents.items():
                cid = f"{copy}:{corpus_id}"
                text = _variant(doc.text, copy)
                documents[cid] = doc.model_copy(update={"text": text, "doc_id": f"{copy}-{cid}"})
                size += len(text)
                for q in question_set.questions:
                    refs = tuple(replace(r, content=text[r.start:r.end]) for r in q.references)
                    questions.append(Question(q.row, q.question, cid, refs, q.kind))
        copy += 1
    step = max(1, len(questions) // max_questions)
    return QuestionSet("bench", tuple(questions[::step][:max_questions])), documents


def _profile(function):
    """Run ``function`` under cProfile; return its result and the top of the profile."""
    profiler = cProfile.Profile()
    result = profiler.runcall(function)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(14)
    stats.sort_stats("cumulative").print_stats(18)
    return result, out.getvalue()


def _config(text: str) -> Candidate:
    strategy, _, settings = text.partition(" ")
    validated_config(strategy, json.loads(settings or "{}"))
    return Candidate(text, strategy, json.loads(settings or "{}"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=1.5)
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--docs", type=Path, help="a folder of documents (with --csv)")
    parser.add_argument("--csv", type=Path, help="a question set about the --docs folder")
    parser.add_argument("--preset", action="append",
                        help="configurations to run (default: fixed 1000 chars, recursive 500/50)")
    parser.add_argument("--config", action="append", default=[],
                        help='a strategy and its settings: recursive {"size": 200, "overlap": 0}')
    parser.add_argument("--rank", default="vector", choices=("vector", "bm25", "hybrid"))
    parser.add_argument("--profile", action="store_true", help="profile the cold run")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.mb, args.questions = 0.03, 12
    os.environ["CHUNKLAB_DATA_DIR"] = tempfile.mkdtemp(prefix="chunklab-bench-eval-")
    if args.docs and args.csv:
        loaded = load_from_folder(args.csv, args.docs)
        question_set, documents = loaded.questions, loaded.documents
    else:
        question_set, documents = build(  # quick: the Markdown sample alone, no converter
            int(args.mb * 1_000_000), args.questions,
            [SAMPLES / "questions" / "technical_handbook.csv"] if args.quick else None)
    used = {q.corpus_id for q in question_set.questions}
    documents = {cid: d for cid, d in documents.items() if cid in used}
    chars = sum(len(d.text) for d in documents.values())
    print(f"corpus: {len(documents)} documents, {chars / 1e6:.2f} M characters; "
          f"{len(question_set.questions)} questions")
    names = args.preset or ([] if args.config else ["fixed 1000 chars", "recursive 500/50"])
    configs = [preset(name).candidate() for name in names] + [_config(c) for c in args.config]
    timings = []
    work = _ModelWork()
    for label in ("cold", "warm (cached results)"):
        started = time.perf_counter()

        def run() -> list[CandidateResult]:
            return evaluate(question_set, documents, configs, ranking=args.rank).require_all()

        if args.profile and label == "cold":
            results, profile = _profile(run)
        else:
            results, profile = run(), ""
        timings.append(time.perf_counter() - started)
        summary = ", ".join(f"{r.candidate.label}: recall {r.metrics.overall.recall:.3f}, "
                            f"{sum(r.chunk_counts.values())} chunks" for r in results)
        print(f"{label:>22}: {timings[-1]:7.1f} s for {len(configs)} configurations ({summary})")
        print(profile, end="")
    print(f"warm / cold: {timings[1] / timings[0]:.4f}")
    peak = onnxruntime_matmul_peak_gflops(MAX_WORD_PIECES)
    print(f"model work of the cold run: {work.texts} texts, {work.pieces / 1e6:.2f} M word pieces "
          f"(padding included), {work.flops / 1e12:.2f} TFLOP; at onnxruntime's fp32 matmul peak "
          f"here ({peak:.0f} GFLOP/s, measured now) that is {work.flops / peak / 1e9:.1f} s "
          f"at the least")


class _ModelWork:
    """Texts, word pieces and floating-point operations of every model run (counted by wrapping
    the embedder's batch runner)."""

    def __init__(self) -> None:
        self.texts = self.pieces = 0
        self.flops = 0.0
        self.lock = threading.Lock()
        run_batch = encoder._Runner._run_batch

        def counted(runner: encoder._Runner, ids: list[list[int]]) -> np.ndarray:
            length = max(len(row) for row in ids)
            with self.lock:
                self.texts += len(ids)
                self.pieces += len(ids) * length
                self.flops += len(ids) * flops_per_text(length)
            return run_batch(runner, ids)

        encoder._Runner._run_batch = counted  # type: ignore[method-assign]

if __name__ == "__main__":
    main()

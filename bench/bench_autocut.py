"""Autocut against a fixed k at equal mean tokens retrieved per question.

A fixed k and autocut spend different amounts of text, so comparing their recall at the same
k says nothing. Here the fixed k runs along a curve of k (mean tokens per question, recall,
IoU); each autocut setting (jumps × window, the window being the k it cuts) gives one point,
and it is set beside the fixed-k curve read at the same mean tokens (linear between the two
nearest k). A positive Δ means autocut gets more for the same text. (Recall grows concavely
with k, so the straight line between two k lies a little under the fixed-k curve and flatters
autocut's Δrecall; IoU falls convexly, so the line flatters fixed k's IoU.)

No tuning on held-out data: the default number of jumps
(:data:`core.retrieval.autocut.DEFAULT_JUMPS`) is chosen on the DEV data only — the shipped
question sets (``sample_docs/questions``, 152 questions over 8 documents) — as the setting
with the best recall gain at equal tokens there (IoU gain breaking ties); the TEST data — the
benchmark corpus (``corpora/benchmark``, 270 questions over 3 other documents) — only reports.

Usage, from the repository root (the first run embeds the chunks: a few minutes on 2 cores):

    .venv/bin/python -m bench.bench_autocut [--only vector]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import dataclass

from bench.quick import add_quick
from core.documents.model import Document
from core.evaluation.metrics import Summary
from core.evaluation.questions import QuestionSet
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.presets import BUILTIN_PRESETS, SMALL_TO_BIG
from core.operations.questions.sets import load_from_folder, load_shipped, shipped_sets
from core.retrieval.modes import DEFAULT_JUMPS, RankMode
from corpora.benchmark import FOLDER as BENCHMARK_CORPUS

CORPUS = BENCHMARK_CORPUS
TOKENS = {"unit": "tokens", "tables": True}
CONFIGURATIONS: list[tuple[Candidate, RankMode]] = [
    (Candidate("recursive 200/0", "recursive", {"size": 200, "overlap": 0, **TOKENS}), "vector"),
    (Candidate("recursive 200/0", "recursive", {"size": 200, "overlap": 0, **TOKENS}), "hybrid"),
    (BUILTIN_PRESETS[SMALL_TO_BIG].candidate(), "hybrid"),
]
FIXED_K = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20)
JUMPS = (1, 2, 3)
WINDOWS = (5, 10, 20)
Data = tuple[QuestionSet, dict[str, Document]]


@dataclass(frozen=True)
class Point:
    tokens: float
    recall: float
    iou: float

    @classmethod
    def of(cls, summary: Summary) -> Point:
        return cls(summary.mean_tokens, summary.recall, summary.iou)


def fixed_at(curve: list[Point], tokens: float) -> Point | None:
    """The fixed-k curve read at ``tokens`` (linear between the nearest k on each side); None
    outside the curve."""
    for low, high in zip(curve, curve[1:], strict=False):
        if low.tokens <= tokens <= high.tokens:
            share = (tokens - low.tokens) / (high.tokens - low.tokens or 1.0)
            return Point(tokens, low.recall + share * (high.recall - low.recall),
                         low.iou + share * (high.iou - low.iou))
    return None


def measure(candidate: Candidate, ranking: RankMode, data: Data, k: int,
            autocut: int | None = None) -> Point:
    questions, documents = data
    [result] = evaluate(questions, documents, [candidate], ranking=ranking,
                        retrieval=Retrieval(k=k, autocut=autocut)).require_all()
    return Point.of(result.metrics.overall)


def _cells(point: Point) -> str:
    return f"{point.tokens:7.0f} {100 * point.recall:6.1f} {100 * point.iou:6.2f}"


def run_split(candidate: Candidate, ranking: RankMode, name: str,
              data: Data) -> dict[tuple[int, int], tuple[float, float] | None]:
    """Print the fixed-k curve and every autocut setting beside it; the gains (Δ recall,
    Δ IoU in points) per (jumps, window)."""
    curve = [measure(candidate, ranking, data, k) for k in FIXED_K]
    print(f"  {name}: {len(data[0].questions)} questions")
    print(f"    {'retrieval':28} {'tokens':>7} {'recall':>6} {'IoU':>6}   fixed k at the same "
          f"tokens: {'recall':>6} {'IoU':>6}   {'Δrecall':>7} {'ΔIoU':>6}")
    for k, point in zip(FIXED_K, curve, strict=True):
        print(f"    {f'top-{k}':28} {_cells(point)}")
    gains: dict[tuple[int, int], tuple[float, float] | None] = {}
    for window in WINDOWS:
        for jumps in JUMPS:
            point = measure(candidate, ranking, data, window, jumps)
            label = f"autocut {jumps} jump{'s' if jumps > 1 else ''} of top-{window}"
            same = fixed_at(curve, point.tokens)
            if same is None:
                gains[jumps, window] = None
                print(f"    {label:28} {_cells(point)}   (outside the fixed-k curve)")
                continue
            gain = (100 * (point.recall - same.recall), 100 * (point.iou - same.iou))
            gains[jumps, window] = gain
            print(f"    {label:28} {_cells(point)}   {'':22}{100 * same.recall:6.1f} "
                  f"{100 * same.iou:6.2f}   {gain[0]:+7.1f} {gain[1]:+6.2f}", flush=True)
    return gains


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="configurations whose label or ranking contains this")
    add_quick(parser)
    args = parser.parse_args()
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-autocut-"))
    shipped = load_shipped(shipped_sets()[:1] if args.quick else shipped_sets(), "shipped")
    splits = {"DEV (shipped question sets)": (shipped.questions, shipped.documents)}
    if not args.quick:
        corpus = load_from_folder(CORPUS / "questions.csv", CORPUS)
        splits["TEST (corpora/benchmark)"] = (corpus.questions, corpus.documents)
    print("mean tokens retrieved per question, recall % and IoU % (character level, each "
          "question in its own document); Δ = autocut − fixed k read at autocut's tokens")
    dev_gains: dict[tuple[int, int], list[float]] = {}
    for candidate, ranking in CONFIGURATIONS[:1] if args.quick else CONFIGURATIONS:
        label = f"{candidate.label}, {candidate.ranking or ranking}"
        if args.only and args.only not in label:
            continue
        started = time.perf_counter()
        print(f"\n{label}")
        for n, (name, data) in enumerate(splits.items()):
            gains = run_split(candidate, ranking, name, data)
            for setting, gain in gains.items():
                if n == 0:  # DEV only decides the default
                    dev_gains.setdefault(setting, []).append(
                        -1e9 if gain is None else gain[0] + gain[1] / 1000)
        print(f"  ({time.perf_counter() - started:.0f} s)")
    if dev_gains:
        best = max(dev_gains, key=lambda s: sum(dev_gains[s]) / len(dev_gains[s]))
        print(f"\nchosen on DEV (best mean recall gain at equal tokens over the "
              f"configurations): {best[0]} jump(s) of a top-{best[1]} window; "
              f"DEFAULT_JUMPS = {DEFAULT_JUMPS}")


if __name__ == "__main__":
    main()

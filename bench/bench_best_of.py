"""How often the "best in ≥ 90 % of resamples" rule names the truly best configuration.

Simulated question sets (:mod:`corpora.outcomes`: per-question outcomes correlated through a
shared difficulty, known true means) in several scenarios — a clear or small real difference
among equal others, the top two equal, all equal — at several sizes. Per scenario: how often a
winner is named, and how often the named one is truly best (with several sharing the highest
true mean, no named winner is right).

Usage, from the repository root:

    .venv/bin/python -m bench.bench_best_of [--runs 2000] [--quick]
"""

from __future__ import annotations

import argparse

from bench.quick import add_quick
from corpora.outcomes import calibration

SCENARIOS = [
    ("clear", (0.70, 0.60, 0.60, 0.50)),
    ("small", (0.66, 0.62, 0.62, 0.55)),
    ("small, three", (0.65, 0.60, 0.60)),
    ("slight", (0.62, 0.60, 0.60, 0.60)),
    ("top two equal", (0.64, 0.64, 0.60, 0.50)),
    ("all equal, three", (0.60, 0.60, 0.60)),
    ("all equal, four", (0.60, 0.60, 0.60, 0.60)),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="question sets per scenario")
    parser.add_argument("--questions", type=int, nargs="+", default=[50, 100, 300])
    add_quick(parser)
    args = parser.parse_args()
    runs, sizes = (50, [30]) if args.quick else (args.runs, args.questions)
    print(f"{'scenario':<18} {'true means':<26} {'questions':>9} {'named':>8} {'right':>8}")
    for seed, (name, means) in enumerate(SCENARIOS):
        for questions in sizes:
            c = calibration(means, questions, runs, seed=seed)
            print(f"{name:<18} {' '.join(f'{m:.2f}' for m in means):<26} {questions:>9} "
                  f"{c.named / runs:>8.1%} {c.right_share:>8.1%}")


if __name__ == "__main__":
    main()

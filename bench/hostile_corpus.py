"""A hostile corpus through the CLI: every file converted and chunked in its own process.

From the repository root:

    .venv/bin/python -m bench.hostile_corpus [--timeout 120] [--only NAME ...] [--quick]

The files (:mod:`corpora.hostile`) are made at run time in a temporary folder. Per file and
command it prints the exit code, the first stderr line, the seconds and the peak RSS of the
child; then a summary: files tried, clean (exit 0, or exit 2 with one line on stderr),
tracebacks, hangs, max RSS. The goal: 0 tracebacks, 0 hangs at 120 s, every file at most 1 GiB.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from corpora.hostile import CORPUS, GIB, QUICK, Outcome, make_corpus, run_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--only", nargs="*", help="names of corpus files to run")
    parser.add_argument("--quick", action="store_true", help="only the quick subset")
    parser.add_argument("--commands", nargs="*", default=["convert", "chunk"])
    args = parser.parse_args()
    names = args.only or (QUICK if args.quick else list(CORPUS))
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        for path in make_corpus(Path(tmp), names):
            size = path.stat().st_size
            for command in args.commands:
                outcome = run_one(path, command, args.timeout)
                outcomes.append(outcome)
                print(f"{outcome.name!r:48.48} {size:>9} B {command:8} exit={outcome.code!s:4} "
                      f"{outcome.seconds:6.1f} s {outcome.rss_bytes / 2**20:7.0f} MiB  "
                      f"{outcome.message[:110]!r}", flush=True)
    hangs = sum(o.code is None for o in outcomes)
    tracebacks = sum(o.traceback for o in outcomes)
    worst = max((o.rss_bytes for o in outcomes), default=0)
    print(f"\nfiles tried: {len(names)}  runs: {len(outcomes)}  clean: "
          f"{sum(o.clean for o in outcomes)}  tracebacks: {tracebacks}  hangs: {hangs}  "
          f"max RSS: {worst / 2**20:.0f} MiB (goal ≤ {GIB // 2**20} MiB)  "
          f"slowest: {max((o.seconds for o in outcomes), default=0):.1f} s")
    os.environ.setdefault("PYTHONUNBUFFERED", "1")


if __name__ == "__main__":
    main()

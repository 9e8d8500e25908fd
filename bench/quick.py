"""Every bench's quick mode: ``--quick`` runs it in seconds on tiny inputs, so a changed page
or API breaks ``tests/test_bench_quick.py``, not the next measurement. Its figures mean
nothing."""

from __future__ import annotations

import argparse


def add_quick(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true",
                        help="seconds on tiny inputs: checks the bench runs, measures nothing")

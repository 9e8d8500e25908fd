"""`python -m core ingest PATH... --chunk-set NAME --strategy S [settings] [--batch-size N]`.

Progress goes to stderr (one line per batch), the summary to stdout. Running the same command
again after an interruption resumes: documents already in the set are skipped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.cli.chunk_cmd import STRATEGY_CHOICES, settings_from
from core.ingest import DEFAULT_BATCH_SIZE, Progress, ingest, sources_from_paths

BAR_WIDTH = 24


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="documents, or folders to take every supported document from")
    parser.add_argument("--chunk-set", required=True, help="name of the chunk set to write")
    parser.add_argument("--strategy", choices=STRATEGY_CHOICES, default="recursive")
    parser.add_argument("--size", type=int, help="target/maximum size per chunk")
    parser.add_argument("--overlap", type=int, help="size shared by consecutive chunks")
    parser.add_argument("--unit", choices=("tokens", "chars"), help="unit of size and overlap")
    parser.add_argument("--no-tables", action="store_true",
                        help="treat tables as text (no table chunks)")
    parser.add_argument("--respect-sections", action="store_true",
                        help="never cross a section boundary")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE,
                        help=f"documents per batch (default {DEFAULT_BATCH_SIZE})")
    parser.add_argument("--description", default="", help="a note shown with the chunk set")


def _show(progress: Progress) -> None:
    filled = BAR_WIDTH * progress.done // max(progress.total, 1)
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    print(f"[{bar}] {progress.done}/{progress.total} documents, {progress.chunks} chunks "
          f"· {progress.message}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    summary = ingest(
        sources_from_paths(args.paths),
        args.chunk_set,
        args.strategy,
        settings_from(args),
        batch_size=args.batch_size,
        progress=_show,
        description=args.description,
    )
    print(summary.sentence(), flush=True)
    for line in summary.warnings():
        print(f"warning: {line}", file=sys.stderr)
    return 2 if summary.failed else 0

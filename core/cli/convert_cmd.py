"""`python -m core convert PATH`: the converted Document as JSON on stdout, a long PDF's page
progress on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.cli.output import show_progress
from core.documents import convert


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="PDF, DOCX, HTML, Markdown, XLSX, PPTX, CSV or TXT")
    parser.add_argument("--indent", type=int, default=2, help="JSON indent (0: one line)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def run(args: argparse.Namespace) -> int:
    doc = convert(args.path.read_bytes(), args.path.name,
                  progress=None if args.quiet else show_progress)
    sys.stdout.write(doc.model_dump_json(indent=args.indent or None) + "\n")
    return 0

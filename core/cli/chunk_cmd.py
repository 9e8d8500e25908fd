"""`python -m core chunk PATH --strategy …`: one JSON object per chunk on stdout."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.errors import ChunkingError

STRATEGY_CHOICES = ("fixed", "recursive", "semantic", "llm")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="document to convert and chunk")
    parser.add_argument("--strategy", choices=STRATEGY_CHOICES, default="recursive")
    parser.add_argument("--size", type=int, help="target/maximum size per chunk")
    parser.add_argument("--overlap", type=int, help="size shared by consecutive chunks")
    parser.add_argument("--unit", choices=("tokens", "chars"), help="unit of size and overlap")
    parser.add_argument(
        "--no-tables", action="store_true", help="treat tables as text (no table chunks)"
    )
    parser.add_argument(
        "--respect-sections", action="store_true", help="never cross a section boundary"
    )


def settings_from(args: argparse.Namespace) -> dict[str, Any]:
    """Only the settings the user gave: the strategy's defaults fill in the rest."""
    settings: dict[str, Any] = {
        name: getattr(args, name)
        for name in ("size", "overlap", "unit")
        if getattr(args, name) is not None
    }
    if args.no_tables:
        settings["tables"] = False
    if args.respect_sections:
        settings["respect_sections"] = True
    return settings


def run(args: argparse.Namespace) -> int:
    from core.chunking.registry import build_chunker, config_class
    from core.documents import convert

    settings = settings_from(args)
    fields = config_class(args.strategy).model_fields
    unknown = [name for name in settings if name not in fields]
    if unknown:
        raise ChunkingError(
            f"The {args.strategy} strategy does not take --{unknown[0].replace('_', '-')}."
        )
    chunker = build_chunker(args.strategy, **settings)  # bad settings fail before converting
    document = convert(args.path.read_bytes(), args.path.name)
    try:
        for chunk in chunker.chunk(document):
            sys.stdout.write(json.dumps(chunk.model_dump(mode="json"), ensure_ascii=False) + "\n")
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        sys.stderr.close()
    return 0

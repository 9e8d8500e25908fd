"""`python -m core chunk PATH --strategy …|--preset NAME`: one JSON object per chunk on stdout.

``--preset`` runs a saved configuration by name (the names of Compare's list and of
``eval --preset``), a hand-edited one included: its edits apply to the document they were made
on, and any other document gets the base configuration's chunks (stderr says so).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from core.chunking.edits import EditedConfig
from core.cli.chunk_output import add_output_options, print_output, wants_output
from core.cli.options import add_chunking_options, chunking_settings, refuse_settings_with_preset
from core.cli.output import say, say_retry, show_progress
from core.documents import convert
from core.documents.model import Document
from core.errors import ChunkingError
from core.operations.presets import preset
from core.operations.strategies import RunOptions, chunk, llm_estimate, validated_config

DEFAULT_STRATEGY = "recursive"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="document to convert and chunk")
    add_chunking_options(parser, default=None)
    parser.add_argument("--preset",
                        help="a saved configuration by name instead of --strategy and its "
                             f"settings (default: --strategy {DEFAULT_STRATEGY})")
    add_output_options(parser)


def _warn(document: Document, line: str) -> None:
    say(f"warning: {line}")


def _configuration(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The strategy and settings to run: the preset's or the options'."""
    if args.preset is None:
        args.strategy = args.strategy or DEFAULT_STRATEGY
        return args.strategy, chunking_settings(args)
    if args.strategy is not None:
        raise ChunkingError("Give either --strategy (with its settings) or --preset.")
    refuse_settings_with_preset(args)
    chosen = preset(args.preset)
    return chosen.strategy, dict(chosen.settings)


def run(args: argparse.Namespace) -> int:
    strategy_name, settings = _configuration(args)
    config = validated_config(strategy_name, settings)  # bad settings fail before converting
    document = convert(args.path.read_bytes(), args.path.name)
    if isinstance(config, EditedConfig) and document.doc_id not in config.edits:
        _warn(document, f"the preset {args.preset!r} has no hand edits for "
                        f"{args.path.name}; these are its base configuration's chunks")
    options = RunOptions(warn=_warn, progress=show_progress, notice=say_retry)
    if (planned := llm_estimate([document], strategy_name, settings, options)) is not None:
        say(planned.sentence())
    if wants_output(args):
        return print_output(args, args.path, document, strategy_name, settings,
                            chunk(document, strategy_name, settings, options))
    try:
        for found in chunk(document, strategy_name, settings, options):
            sys.stdout.write(found.model_dump_json() + "\n")  # speed: pydantic's own serialiser
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        sys.stderr.close()
    return 0

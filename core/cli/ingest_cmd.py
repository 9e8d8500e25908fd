"""`python -m core ingest PATH... --chunk-set NAME --strategy S [settings] [--batch-size N]
[--embedder minilm|endpoint]`.

Progress goes to stderr (one line per batch), the summary to stdout. Running the same command
again after an interruption resumes: documents already in the set are skipped. An embedding
endpoint that fails mid-run ends the command with exit code 2 and one line, the store as before.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.options import add_chunking_options, chunking_settings
from core.cli.output import say, say_retry, show_progress
from core.cli.stack_options import add_embedder_option
from core.embeddings.settings import by_name
from core.operations.ingest.run import DEFAULT_BATCH_SIZE, ingest, sources_from_paths
from core.operations.strategies import RunOptions, llm_estimate, uses_llm


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="documents, or folders to take every supported document from")
    parser.add_argument("--chunk-set", required=True, help="name of the chunk set to write")
    add_chunking_options(parser)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE,
                        help=f"documents per batch (default {DEFAULT_BATCH_SIZE})")
    parser.add_argument("--description", default="", help="a note shown with the chunk set")
    add_embedder_option(parser)


def run(args: argparse.Namespace) -> int:
    sources = sources_from_paths(args.paths)
    settings = chunking_settings(args)
    if uses_llm(args.strategy, settings):  # converted twice: cheap beside the model's calls
        planned = llm_estimate([source.load() for source in sources], args.strategy, settings)
        if planned is not None:
            say(planned.sentence())
    summary = ingest(
        sources,
        args.chunk_set,
        args.strategy,
        settings,
        batch_size=args.batch_size,
        description=args.description,
        options=RunOptions(progress=show_progress, notice=say_retry),
        embedder=by_name(args.embedder),
    )
    print(summary.sentence(), flush=True)
    for line in summary.warnings():
        say(f"warning: {line}")
    return 2 if summary.failed else 0

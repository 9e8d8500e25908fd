"""`python -m core convert|chunk|ingest|assemble|eval`.

Each sub-command lives in its own module of this package with ``add_arguments(parser)`` and
``run(args) -> int``. A :class:`~core.errors.ChunkLabError` or a bad argument ends the command
with exit code 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = {
    "convert": "Convert a document and print it as JSON (text, sections, tables, blocks).",
    "chunk": "Chunk a document and print one JSON object per chunk.",
    "ingest": "Chunk documents and store them in a named chunk set.",
    "assemble": "Retrieve from a chunk set and print the assembled RAG prompt as JSON.",
    "eval": "Evaluate a chunking strategy on a question set and print the metrics as JSON.",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse would print usage too)
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m core", description="ChunkLab from the command line.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, help_text in COMMANDS.items():
        module = importlib.import_module(f"core.cli.{name}_cmd")
        module.add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: list[str] | None = None) -> int:
    from core.errors import ChunkLabError

    args = build_parser().parse_args(argv)
    module = importlib.import_module(f"core.cli.{args.command}_cmd")
    try:
        return module.run(args)
    except ChunkLabError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as err:
        print(f"error: {err.strerror}: {err.filename}", file=sys.stderr)
        return 2

"""`python -m core convert|chunk|ingest|sets|assemble|eval|questions|tune|answers|prompts|
llm-server`.

Each sub-command lives in its own module of this package with ``add_arguments(parser)`` and
``run(args) -> int``, and is listed in :data:`COMMANDS`. A :class:`~core.errors.ChunkLabError`
or a bad argument ends the command with exit code 2 and one line on stderr, never a traceback;
every stderr line goes through :func:`core.cli.output.say`. Ctrl-C closes the model requests in
flight (the server stops working on them) and exits with 130.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import ModuleType
from typing import NoReturn

from core.cli import (
    answers_cmd,
    assemble_cmd,
    chunk_cmd,
    convert_cmd,
    eval_cmd,
    ingest_cmd,
    llm_server_cmd,
    prompts_cmd,
    questions_cmd,
    sets_cmd,
    tune_cmd,
)
from core.cli.output import say
from core.errors import ChunkLabError
from core.http.transport import abort_all

COMMANDS: dict[str, tuple[ModuleType, str]] = {
    "convert": (convert_cmd,
                "Convert a document and print it as JSON (text, sections, tables, blocks)."),
    "chunk": (chunk_cmd, "Chunk a document and print one JSON object per chunk."),
    "ingest": (ingest_cmd, "Chunk documents and store them in a named chunk set."),
    "sets": (sets_cmd, "List chunk sets as JSON; cut over to one, roll back, or delete one."),
    "assemble": (assemble_cmd,
                 "Retrieve from a chunk set and print the assembled RAG prompt as JSON."),
    "eval": (eval_cmd,
             "Evaluate a chunking strategy on a question set and print the metrics as JSON."),
    "questions": (questions_cmd, "Generate a question set from documents with the LLM."),
    "tune": (tune_cmd, "Search for the best configuration on a question set; print the Pareto "
                       "front and the recommendation as JSON."),
    "answers": (answers_cmd, "Answer a question set under prompt variants or configurations; "
                             "print the graded answers and their comparison as JSON."),
    "prompts": (prompts_cmd, "List, show or save prompt templates and their variants."),
    "llm-server": (llm_server_cmd,
                   "Serve the bundled model (or a GGUF file) on this machine, as `make llm`."),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse prints usage too)
        say(f"{self.prog}: {message}")
        sys.exit(2)


def command_name(argv0: str) -> str:
    """The command as the user typed it: the installed script's name (``chunklab``), or
    ``python -m core`` when Python ran the package (argv[0] is then its ``__main__.py``)."""
    name = os.path.basename(argv0)
    return "python -m core" if name in ("", "__main__.py") else name


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=command_name(sys.argv[0]), description="ChunkLab from the command line.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (module, help_text) in COMMANDS.items():
        module.add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def _interrupted(signum: int, frame: object) -> None:
    """Ctrl-C: end the requests in flight first, so no thread waits on a model to finish."""
    abort_all()
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    module, _ = COMMANDS[args.command]
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _interrupted) if main_thread else None
    try:
        return module.run(args)
    except KeyboardInterrupt:
        say("interrupted: the requests in flight were closed")
        return 130
    except ChunkLabError as err:
        say(f"error: {err}")
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as err:
        say(f"error: {err.strerror}: {err.filename}")
        return 2
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)

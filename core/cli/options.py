"""Options shared by commands: the chunking strategy and its settings (``chunk``, ``ingest``,
``eval``), autocut (``eval``, ``assemble``), a question set and its documents (``eval``,
``tune``), the front-matter switch (every command that retrieves)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from core.errors import ChunkingError
from core.operations.strategies import PICKABLE, strategy
from core.retrieval.modes import DEFAULT_JUMPS

SIZED = ("size", "overlap", "unit", "overlap_mode", "table_split", "table_max_tokens")
# settings whose option is not just their name
FLAGS = {"parsing": "llm-parsing", "summaries": "no-llm-summaries"}


def add_question_set_options(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """``--questions`` and ``--docs``: a question set and the folder of its documents
    (not ``required``: the command checks they are given when it needs them)."""
    parser.add_argument("--questions", type=Path, required=required,
                        help="question set CSV (question, references, corpus_id[, kind])")
    parser.add_argument("--docs", type=Path, required=required,
                        help="folder of the documents; corpus_id = file name with or without "
                             "extension")


def add_chunking_options(parser: argparse.ArgumentParser,
                         default: str | None = "recursive") -> None:
    parser.add_argument("--strategy", choices=PICKABLE, default=default,
                        help="chunking strategy" + (f" (default {default})" if default else ""))
    parser.add_argument("--size", type=int, help="target/maximum size per chunk")
    parser.add_argument("--overlap", type=int, help="size shared by consecutive chunks")
    parser.add_argument("--unit", choices=("tokens", "chars"), help="unit of size and overlap")
    parser.add_argument("--overlap-mode", choices=("guaranteed", "trailing_pieces"),
                        help="guaranteed (default): consecutive chunks always share half the "
                             "overlap or more; trailing_pieces: LangChain's rule (recursive)")
    parser.add_argument("--no-tables", action="store_true",
                        help="treat tables as text (no table chunks)")
    parser.add_argument("--table-split", choices=("whole", "row_groups", "rows"),
                        help="a table over --table-max-tokens: whole (default), parts of whole "
                             "rows with the header repeated, or one chunk per row")
    parser.add_argument("--table-max-tokens", type=int,
                        help="tables over this many tokens are split (default 500)")
    parser.add_argument("--respect-sections", action="store_true",
                        help="never cross a section boundary")
    parser.add_argument("--llm-parsing", choices=("strict", "tolerant"),
                        help="llm strategy: refuse any slip in a model's answer (strict, the "
                        "default) or repair common slips and report them as warnings (tolerant)")
    parser.add_argument("--no-llm-summaries", action="store_true",
                        help="llm strategy: ask only for sections and chunk boundaries, no "
                        "metadata, context prefixes or table summaries (a small local model "
                        "then takes about half the time)")


def refuse_settings_with_preset(args: argparse.Namespace) -> None:
    """A preset brings its own settings: a setting option beside it (``--size``,
    ``--no-tables``, ...) is refused rather than silently ignored."""
    given = [name for name in SIZED if getattr(args, name) is not None]
    given += [name for name in ("no_tables", "respect_sections") if getattr(args, name)]
    given += ["llm_parsing"] if args.llm_parsing is not None else []
    given += ["no_llm_summaries"] if args.no_llm_summaries else []
    if given:
        raise ChunkingError(f"--{given[0].replace('_', '-')} goes with --strategy, "
                            "not --preset.")


def chunking_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Only the settings the user gave (the strategy's defaults fill in the rest); a setting the
    strategy does not take is refused."""
    settings: dict[str, Any] = {
        name: getattr(args, name) for name in SIZED if getattr(args, name) is not None
    }
    if args.no_tables:
        settings["tables"] = False
    if args.respect_sections:
        settings["respect_sections"] = True
    if args.llm_parsing is not None:
        settings["parsing"] = args.llm_parsing
    if args.no_llm_summaries:
        settings["summaries"] = False
    fields = strategy(args.strategy).config.model_fields
    unknown = [name for name in settings if name not in fields]
    if unknown:
        raise ChunkingError(
            f"The {args.strategy} strategy does not take "
            f"--{FLAGS.get(unknown[0], unknown[0].replace('_', '-'))}."
        )
    return settings


def add_autocut_option(parser: argparse.ArgumentParser, window: str) -> None:
    """``--autocut [JUMPS]``: keep the ranked hits up to the first large drop in score."""
    parser.add_argument("--autocut", type=int, nargs="?", const=DEFAULT_JUMPS, metavar="JUMPS",
                        help=f"stop at the first large drop in the hits' scores instead of a "
                             f"fixed number ({window} is then the most); JUMPS: cut at the "
                             f"JUMPS-th drop (default {DEFAULT_JUMPS})")


def _report_path(text: str) -> Path:
    path = Path(text)
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"there is no folder {str(path.parent)!r} to write the "
                                         "report in")
    return path


def add_report_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--report FILE.html``: also write ``what`` as one self-contained HTML file."""
    parser.add_argument("--report", type=_report_path, metavar="FILE.html",
                        help=f"also write {what} as one HTML file that opens in any browser "
                             "without a network")


def add_front_matter_option(parser: argparse.ArgumentParser) -> None:
    """``--include-front-matter``: covers, contents, lists of figures and indexes may be
    retrieved (left out by default)."""
    parser.add_argument("--include-front-matter", action="store_true",
                        help="retrieve from covers, contents pages, lists of figures and "
                             "indexes too (left out by default: they answer no question)")

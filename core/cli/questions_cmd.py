"""`python -m core questions generate DOCS… --out set.csv [--per-doc N] [--unanswerable SHARE]`:
a question set from your own documents, written by the configured LLM, as the CSV
``eval --questions`` reads; ``--unanswerable 0.2`` makes a fifth of its questions ones the
documents do not answer (``kind=unanswerable``).

Dropped questions (excerpt not found, too short, a heading, a repeat) are listed on stderr with
their reason; a summary line goes to stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from core.documents import convert
from core.errors import ChunkLabError
from core.evaluation.questions import to_csv
from core.files import write_atomic
from core.operations.questions.generation import (
    DEFAULT_PER_DOC,
    MAX_UNANSWERABLE,
    generate_question_set,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    generate = sub.add_parser("generate", help="Generate a question set with the configured LLM.")
    generate.add_argument("docs", nargs="+", type=Path, help="documents to ask about")
    generate.add_argument("--out", type=Path, required=True, help="CSV file to write")
    generate.add_argument("--per-doc", type=int, default=DEFAULT_PER_DOC,
                          help=f"questions per document (default {DEFAULT_PER_DOC})")
    generate.add_argument("--unanswerable", type=float, default=0.0, metavar="SHARE",
                          help="share of the questions the documents do not answer, 0 to "
                               f"{MAX_UNANSWERABLE} (default 0)")
    generate.add_argument("--no-cache", action="store_true",
                          help="ask the model again instead of reusing cached answers")


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.per_doc <= 200:
        raise ChunkLabError(f"--per-doc must be between 1 and 200, not {args.per_doc}.")
    started = time.perf_counter()
    documents = [convert(path.read_bytes(), path.name) for path in args.docs]
    generated = generate_question_set(documents, name=args.out.stem, per_doc=args.per_doc,
                                      unanswerable=args.unanswerable,
                                      use_cache=not args.no_cache)
    for dropped in generated.dropped:
        print(f"dropped: {dropped}", file=sys.stderr)
    for flagged in generated.flagged:
        print(f"flagged: {flagged}", file=sys.stderr)
    for line in generated.by_document():
        print(line, file=sys.stderr)
    print(generated.summary(), file=sys.stderr)
    if not generated.questions.questions:
        raise ChunkLabError("The model gave no usable question; see the reasons above.")
    write_atomic(args.out, to_csv(generated.questions.questions))
    asked, docs = len(generated.questions.questions), len(documents)
    print(f"{asked} question{'s' * (asked != 1)} for {docs} document{'s' * (docs != 1)} "
          f"written to {args.out} ({len(generated.dropped)} dropped, {generated.requests} "
          f"requests, {generated.cache_hits} cached, {time.perf_counter() - started:.1f} s)")
    return 0

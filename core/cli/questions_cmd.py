"""`python -m core questions generate DOCS… --out set.csv [--per-doc N] [--unanswerable SHARE]`:
a question set from your own documents, written by the configured LLM, as the CSV
``eval --questions`` reads; ``--unanswerable 0.2`` makes a fifth of its questions ones the
documents do not answer (``kind=unanswerable``).

Dropped questions (excerpt not found, too short, a heading, a repeat) are listed on stderr with
their reason; a summary line goes to stdout.

`python -m core questions check --questions Q.csv --docs DIR [--difference 0.05]`: what would
spoil a run of the set (:mod:`core.operations.questions.check`), as JSON: ``findings`` (each
with its ``kind``, ``row``, ``corpus_id``, ``question`` and ``detail``), ``counts`` per kind, a
``summary`` and ``size`` (the questions needed to tell ``--difference`` apart). The summary and
the size go to stderr too. Exit 0 when nothing was found, 1 when something was.

`python -m core questions evidence --questions Q.csv --docs DIR [--top 3] [--json]`: for each
question, the passages of its document that best match its words (lexical, no model:
:mod:`core.operations.questions.evidence`), each with its exact span, its pages where the
document has pages, and whether it is the question's stored reference; the summary (for how
many questions the reference is among them) goes to stderr. ``--json`` writes the same as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from core.cli.options import add_question_set_options
from core.cli.output import one_line, say
from core.documents import convert
from core.errors import ChunkLabError
from core.evaluation.questions import to_csv
from core.files import write_atomic
from core.operations.questions.check import DIFFERENCE, check_set
from core.operations.questions.evidence import TOP, QuestionEvidence, find_evidence
from core.operations.questions.generation import (
    DEFAULT_PER_DOC,
    MAX_UNANSWERABLE,
    generate_question_set,
)
from core.operations.questions.sets import load_from_folder


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
    check = sub.add_parser("check", help="List what would spoil a run of a question set.")
    add_question_set_options(check)
    check.add_argument("--difference", type=float, default=DIFFERENCE,
                       help="the difference in recall the set is meant to tell apart "
                            f"(default {DIFFERENCE})")
    evidence = sub.add_parser("evidence", help="List the passages that best match each "
                                               "question, to pick its reference from.")
    add_question_set_options(evidence)
    evidence.add_argument("--top", type=int, default=TOP,
                          help=f"passages per question (default {TOP})")
    evidence.add_argument("--json", action="store_true", help="write JSON instead of text")


def _check(args: argparse.Namespace) -> int:
    if not 0 < args.difference < 1:
        raise ChunkLabError(f"--difference must be between 0 and 1, not {args.difference}.")
    checked = check_set(load_from_folder(args.questions, args.docs), args.difference)
    json.dump(checked.to_json(), sys.stdout, indent=2, ensure_ascii=False)
    print()
    say(checked.summary())
    say(checked.size.sentence())
    return 1 if checked.findings else 0


def _evidence(args: argparse.Namespace) -> int:
    if not 1 <= args.top <= 20:
        raise ChunkLabError(f"--top must be between 1 and 20, not {args.top}.")
    found = find_evidence(load_from_folder(args.questions, args.docs), args.top)
    if args.json:
        json.dump(found.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        for question in found.questions:
            print("\n".join(_listing(question)))
    say(found.summary())
    return 0


def _listing(question: QuestionEvidence) -> list[str]:
    """One question and its passages as lines of text (document text on one line each)."""
    mark = {None: "no reference", True: "reference found", False: "reference not among them"}
    lines = [one_line(f"row {question.row} · {question.corpus_id} · {question.question} "
                      f"[{mark[question.found]}]")]
    if not question.passages:
        lines.append("  no passage shares a content word with the question")
    for rank, passage in enumerate(question.passages, 1):
        pages = ("pages " + ", ".join(map(str, passage.pages))) if passage.pages else ""
        where = " · ".join(x for x in (f"{passage.start}–{passage.end}", pages,
                                       "the reference" if passage.reference else "") if x)
        lines += [f"  {rank}. {where}", "     " + one_line(" ".join(passage.text.split()))]
    return lines


def run(args: argparse.Namespace) -> int:
    if args.action == "check":
        return _check(args)
    if args.action == "evidence":
        return _evidence(args)
    if not 1 <= args.per_doc <= 200:
        raise ChunkLabError(f"--per-doc must be between 1 and 200, not {args.per_doc}.")
    started = time.perf_counter()
    documents = [convert(path.read_bytes(), path.name) for path in args.docs]
    generated = generate_question_set(documents, name=args.out.stem, per_doc=args.per_doc,
                                      unanswerable=args.unanswerable,
                                      use_cache=not args.no_cache)
    for line in [*generated.decisions(), *generated.by_document()]:
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

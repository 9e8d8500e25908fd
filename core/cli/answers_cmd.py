"""`python -m core answers`: ask the model every question of a set under one or more variants
of the RAG answer prompt and print the graded answers and their comparison as JSON.

The configuration is chosen as for ``eval`` (``--strategy`` and its settings, ``--preset``) or
is a stored ``--chunk-set``; ``--variant`` (repeatable; ``default`` is the shipped text) names
the prompt variants. With one variant and several ``--preset`` (or ``--chunk-set``), the same
prompt runs over each configuration. The JSON: ``variants`` (each: ``variant``,
``configuration``, ``overall`` with ``cited``, ``citations_valid``, ``citations_supported``,
``reference_coverage``, ``abstention_right``, ``abstained``, ``answered``, ``mean_tokens``,
``seconds`` and ``ci95``), ``comparison`` (the first against each other: wins, losses, ties,
p-value, interval, ``more_questions`` and a verdict), ``best`` (with three or more: each one's
probability of being best on reference coverage, also ``probability_best`` in each variant,
the winner when one reaches 0.90, those ruled out and the verdict's ``sentence``),
``answers`` (per question and variant: the answer, its citations and grades; a failed answer
has ``status: "failed"`` and its reason). With ``--judge`` the model also scores each answer's
faithfulness to its passages (1-5, with a reason: ``judge`` in each answer, ``overall.judge``
and ``comparison[].judge``), apart from the grades. Progress goes to stderr. Answers are
cached: a re-run asks nothing twice. ``--report FILE.html`` also writes the run as one
self-contained HTML file (the answers side by side with their grades and passages). Exit 0, or
3 when some answers failed.
"""

from __future__ import annotations

import argparse
import json
import sys

from core.cli.options import (
    add_chunking_options,
    add_front_matter_option,
    add_question_set_options,
    add_report_option,
    chunking_settings,
    refuse_settings_with_preset,
)
from core.cli.output import say, show_progress, write_report
from core.llm.settings import load_answer_settings, load_judge_settings, load_settings
from core.operations.answers.history import record_answer_run
from core.operations.answers.report import run_json
from core.operations.answers.run import (
    ANSWER_SEED,
    AnswerOptions,
    AnswerRunError,
    arms_for,
    configurations,
    run_answers,
)
from core.operations.evaluation import DEFAULT_K, Candidate
from core.operations.questions.sets import load_from_folder
from core.operations.report.answers import answers_report
from core.prompts.template import DEFAULT
from core.retrieval.modes import RANK_MODES

PARTIAL = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_question_set_options(parser)
    add_chunking_options(parser, default=None)
    parser.add_argument("--preset", action="append", help="a chunking preset by name (repeatable)")
    parser.add_argument("--chunk-set", action="append",
                        help="a stored chunk set instead of a chunking (repeatable)")
    parser.add_argument("--variant", action="append",
                        help=f"a variant of the RAG answer prompt (repeatable; {DEFAULT!r} is "
                             "the shipped text; default: just that)")
    parser.add_argument("--k", type=int, default=DEFAULT_K,
                        help=f"passages retrieved per question (default {DEFAULT_K})")
    parser.add_argument("--rank", dest="ranking", choices=RANK_MODES, default="vector")
    add_front_matter_option(parser)
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="answer temperature, fixed for every variant (default 0)")
    parser.add_argument("--seed", type=int, default=ANSWER_SEED,
                        help=f"sampling seed sent to servers that take one (default {ANSWER_SEED})")
    parser.add_argument("--locale", help="locale of the RAG answer template (e.g. ja)")
    parser.add_argument("--judge", action="store_true",
                        help="also have the model judge each answer's faithfulness to its "
                             "passages, 1-5 with a reason (the judge template; reported apart); "
                             "JUDGE_BASE_URL and JUDGE_MODEL (JUDGE_API_KEY) set another "
                             "endpoint to judge")
    parser.add_argument("--no-cache", action="store_true", help="ask again even when cached")
    parser.add_argument("--held-format", action=argparse.BooleanOptionalAction, default=None,
                        help="hold each answer to the cited format (every line ends with the "
                             "numbers of the passages it rests on) on a server that takes a "
                             "grammar, such as llama.cpp (default: as saved on Settings, on)")
    add_report_option(parser, "the answers side by side with their grades and passages")


def _candidates(args: argparse.Namespace) -> list[Candidate]:
    chosen = sum(bool(x) for x in (args.strategy, args.preset, args.chunk_set))
    if chosen != 1:
        raise AnswerRunError("Give one of --strategy (with its settings), --preset or "
                             "--chunk-set.")
    if args.chunk_set or args.preset:
        refuse_settings_with_preset(args)
        return configurations(args.preset or (), args.chunk_set or ())
    settings = chunking_settings(args)
    label = " ".join([args.strategy, *(f"{k}={v}" for k, v in settings.items())])
    return [Candidate(label, args.strategy, settings)]


def run(args: argparse.Namespace) -> int:
    arms = arms_for(args.variant or [DEFAULT], _candidates(args))
    loaded = load_from_folder(args.questions, args.docs)
    for problem in loaded.questions.problems:
        say(f"skipped {problem}")
    saved = load_answer_settings()
    options = AnswerOptions(temperature=args.temperature, seed=args.seed, k=args.k,
                            ranking=args.ranking, limit=args.limit, locale=args.locale,
                            model=saved.model, use_cache=not args.no_cache, judge=args.judge,
                            held_format=(saved.held_format if args.held_format is None
                                         else args.held_format),
                            include_front_matter=args.include_front_matter)
    result = run_answers(loaded.questions, loaded.documents, arms, load_settings(), options,
                         progress=show_progress, judge_settings=load_judge_settings())
    record_answer_run(result)
    output = run_json(result)
    failed = [a for a in output["answers"] if a["status"] == "failed"]
    for answer in failed:
        say(f"failed: row {answer['row']} ({answer['variant']}): {answer['reason']}")
    json.dump(output, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    if args.report:
        write_report(args.report, answers_report(output))
    return PARTIAL if failed else 0

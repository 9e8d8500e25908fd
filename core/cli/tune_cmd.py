"""`python -m core tune`: search for the best configuration on a question set and print the
Pareto front and the recommendation as JSON.

The output holds ``pareto`` (the configurations no other beats on both the objective and the
mean tokens a question retrieves, each with ``recall``, ``iou``, ``tokens`` and
``configuration`` on the search part, and its ``held_back`` figures) and ``recommended`` (the
best within ``--budget``, with its held-back figures, one sentence of evidence, the runner-up
and the best built-in preset compared with it), ``held_back_best`` (with three or more
configurations scored on the held-back questions: each one's probability of being best there on
the objective, the winner when one reaches 0.90, those ruled out and the verdict's
``sentence``), the ``split`` of the questions, and ``cache`` (the share of trials that chunked
and embedded nothing new). Progress goes to stderr. Every
trial is kept in the run history; ``--resume`` goes on with the stored tune of the same
question set and settings. ``--embedder`` (repeatable: ``minilm``, ``endpoint``) names the
embedders the search tries (default: MiniLM, and the configured endpoint when there is one).
``--save-preset NAME`` saves the recommendation as a preset: its chunking, ranking, embedder and
how much each question retrieves.

The recommendation keeps within a token ``budget`` per question (the JSON says how many and where
the figure comes from): by default what the configured answer model takes, ``--budget N`` or
``--budget none``. Within it, it is the cheapest configuration the sign test cannot tell from the
best; ``costlier`` names one that does significantly better and what it buys. ``--objective iou
--min-recall R`` maximises IoU among configurations with recall at least R on the search
questions; ``recall_floor`` says whether it held on the held-back ones. ``--storage URL --study
NAME`` (an Optuna storage URL, such as ``sqlite:///tune.db``) adds this process's trials to a
study other processes share; ``study`` gives its name and how many trials it holds, and the
recommendation is drawn from all of them. ``--report FILE.html`` also writes the tune as one
self-contained HTML file (the recommendation, the Pareto front with the knee, every trial).
``--space`` prints what a tune with the given ``--budget`` and ``--embedder`` would try — each
dimension, its values and when it is drawn — and runs nothing (no question set needed).
"""

from __future__ import annotations

import argparse
import json
import sys

from core.cli.options import add_front_matter_option, add_question_set_options, add_report_option
from core.cli.output import one_line, say, show_progress, write_report
from core.cli.stack_options import add_embedder_option
from core.embeddings.settings import by_name
from core.operations.assemble.budget import FALLBACK_TOKENS, default_budget, given_budget
from core.operations.questions.sets import load_from_folder
from core.operations.report.tune import tune_report
from core.operations.tune.report import OBJECTIVES
from core.operations.tune.run import (
    DEFAULT_TRIALS,
    HELD_BACK_SHARE,
    save_recommended,
    space_lines,
    tune,
)
from core.progress import Progress

SHARING = (  # a study several tune processes add trials to
    ("--storage", "URL", "an Optuna storage URL (sqlite:///file, postgresql://…) to keep the "
                         "study in, shared with other tune processes (with --study)"),
    ("--study", "NAME", "the study to add trials to: --trials more from this process; the "
                        "recommendation is drawn from every trial in it"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_question_set_options(parser, required=False)
    parser.add_argument("--space", action="store_true",
                        help="print the search space for these options (each dimension, its "
                             "values, when it is drawn) and run nothing")
    parser.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                        help=f"configurations to try in all (default {DEFAULT_TRIALS})")
    parser.add_argument("--budget", type=_budget, metavar="N|none",
                        default=argparse.SUPPRESS,
                        help="the most tokens a question may retrieve on average: the "
                             "recommendation keeps within it (default: what the configured "
                             f"answer model takes, {FALLBACK_TOKENS:,} without one; none: no "
                             "budget)")
    parser.add_argument("--min-recall", type=float, metavar="R",
                        help="recommend among configurations whose recall on the search "
                             "questions is at least R (0..1), e.g. with --objective iou")
    for flag, metavar, text in SHARING:
        parser.add_argument(flag, metavar=metavar, help=text)
    parser.add_argument("--objective", choices=OBJECTIVES, default="recall",
                        help="what to maximise: recall, iou, or balanced (per question the "
                             "harmonic mean of the two); default recall")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the stored tune of this question set and settings "
                             "up to --trials in all")
    parser.add_argument("--held-back", type=float, default=HELD_BACK_SHARE,
                        help=f"share of each document's questions held back to report the "
                             f"recommendation on (default {HELD_BACK_SHARE})")
    add_embedder_option(parser, repeat=True,
                        repeated="repeat to search several (default: MiniLM, and the "
                                 "configured endpoint when there is one)")
    parser.add_argument("--save-preset", metavar="NAME",
                        help="save the recommended configuration (chunking, ranking, embedder, "
                             "k, budget or autocut) as a preset of this name")
    add_front_matter_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_report_option(parser, "the recommendation, the Pareto front and every trial")


def _budget(text: str) -> int | None:
    if text.strip().lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of tokens or none, not {text!r}") from None


def run(args: argparse.Namespace) -> int:
    embedders = [by_name(name) for name in args.embedder] if args.embedder else None
    budget = given_budget(args.budget) if hasattr(args, "budget") else None
    if args.space:
        print(f"Tune's search space, budget {(budget or default_budget()).source}; a line "
              "a dimension — its values (when it is drawn):")
        for line in space_lines(budget, embedders):
            print(one_line(line))
        return 0
    if args.questions is None or args.docs is None:
        say("error: tune needs --questions and --docs (or --space)")
        return 2
    loaded = load_from_folder(args.questions, args.docs)
    for problem in loaded.questions.problems:
        say(f"warning: {args.questions.name} {problem}")
    shown = [-1.0]

    def show(progress: Progress) -> None:  # a line as each trial starts, and at the end
        if int(progress.done) != shown[0]:
            shown[0] = int(progress.done)
            show_progress(progress)

    result = tune(loaded.questions, loaded.documents, trials=args.trials,
                  objective=args.objective, budget=budget, min_recall=args.min_recall,
                  resume=args.resume, held_back_share=args.held_back, embedders=embedders,
                  progress=None if args.quiet else show, storage=args.storage,
                  study=args.study, include_front_matter=args.include_front_matter)
    output = result.to_json()
    if args.save_preset and result.recommendation is not None:
        saved = save_recommended(args.save_preset, result.recommendation.outcome)
        output["saved_preset"] = saved.name
    json.dump(output, sys.stdout, indent=2, ensure_ascii=False)
    print()
    if args.report:
        write_report(args.report, tune_report(result, loaded.questions.version))
    if args.save_preset and result.recommendation is None:
        say("error: nothing to save: no configuration kept within the budget")
        return 2
    return 0

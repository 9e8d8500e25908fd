"""`python -m core eval`: score a chunking on a question set and print the metrics as JSON.

With ``--strategy`` (and its settings) the output is one object: ``overall``, ``per_corpus``,
``per_kind``, ``table_query_accuracy``, ... With one or more ``--preset`` the output holds a
``results`` list of such objects, in the order given. Every metric value is a fraction in [0, 1]
(the JSON says so under ``values``); ``overall.ci95`` holds the 95 % bootstrap interval
``[low, high]`` of each overall metric. With several presets, ``comparisons`` tells for each
metric whether a configuration beats the first one (wins, losses, ties, sign-test p-value and a
verdict). With three or more, ``best`` gives each one's probability of being best on recall
over paired resamples of the questions (also ``probability_best`` in each result), the winner
when one reaches 0.90 (else null), those ruled out (under 0.025), how many more questions
would separate the leading two, and the verdict as a ``sentence``. ``--budget N`` retrieves N
tokens per question instead of the top k; ``--autocut`` keeps the top k only up to the first
large drop in their scores. Covers, contents pages, lists of figures and indexes are never
retrieved unless ``--include-front-matter``; each result counts what was set apart under
``front_matter_set_apart`` (and on stderr).
A preset that keeps its own embedder or retrieval (one saved from a tune) is evaluated with
them whatever ``--embedder``, ``--k``, ``--budget`` or ``--autocut`` say; every result gives the
``k``, ``budget``, ``autocut`` and ``retrieval`` it was measured at.
``--contextual-delta`` also evaluates each LLM configuration embedded without its contextual
prefixes and lists, under ``contextual``, both figures of every metric and the delta (with
minus without). ``--embedder`` (repeatable: ``minilm``, ``endpoint``) evaluates each
configuration under each embedder, and ``--rerank on|both`` with the configured reranker;
every result names its ``embedder`` (name, where it ran, dimension). Rows of the
question set whose references do not match their document are listed under ``invalid_rows`` (and
on stderr) and not evaluated. Every run is kept in the run history.

Every result has ``overall.mean_tokens``: the tokens retrieved per question (cl100k, overlaps
counted per chunk), the cost at which its recall and IoU were reached.

A configuration that cannot be evaluated (a typed error: an LLM or embedding endpoint that
fails, small-to-big retrieval with ``--budget``…) does not stop the others: its entry in
``results`` has ``"status": "failed"``, the error's kind and its ``reason`` (and a line on
stderr); the others have ``"status": "ok"``. Exit codes: 0 when every configuration was
evaluated; 3 when some failed and the others' results were printed; 2 when nothing could be
evaluated (bad input, or every configuration failed: one line on stderr per reason, no JSON).

``--report FILE.html`` also writes the run as one self-contained HTML file (inputs, metrics
with their intervals, the verdict, the charts, each question with its retrieved chunks).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core.cli.options import (
    add_autocut_option,
    add_chunking_options,
    add_front_matter_option,
    add_question_set_options,
    add_report_option,
    chunking_settings,
    refuse_settings_with_preset,
)
from core.cli.output import say, write_report
from core.cli.stack_options import add_embedder_option, add_rerank_option
from core.embeddings.settings import by_name
from core.evaluation.metrics import METRICS
from core.operations.evaluation import (
    DEFAULT_K,
    Candidate,
    CandidateFailure,
    CandidateResult,
    Evaluation,
    EvaluationError,
    Retrieval,
)
from core.operations.evaluation.confidence import (
    ContextualDelta,
    best_configuration,
    compare,
    contextual_deltas,
    intervals,
    verdict,
    with_prefix_twins,
)
from core.operations.evaluation.stacks import configured_reranker, expand
from core.operations.evaluation.sweep import evaluate_each
from core.operations.presets import preset
from core.operations.questions.sets import load_from_folder
from core.operations.report import ReportInputs, evaluation_report
from core.retrieval.modes import RANK_MODES

PARTIAL = 3  # exit code: some configurations failed, the others' results were printed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_question_set_options(parser)
    add_chunking_options(parser, default=None)
    parser.add_argument("--preset", action="append",
                        help="a chunking preset by name; repeat to compare several")
    parser.add_argument("--k", type=int, default=DEFAULT_K,
                        help=f"chunks retrieved per question (default {DEFAULT_K})")
    parser.add_argument("--budget", type=int,
                        help="retrieve ranked chunks until this many tokens (the last one cut to "
                             "fit) instead of the top k")
    add_autocut_option(parser, "--k")
    add_front_matter_option(parser)
    parser.add_argument("--rank", dest="ranking", choices=RANK_MODES, default="vector",
                        help="ranking: vector, bm25 or hybrid (default vector)")
    parser.add_argument("--contextual-delta", action="store_true",
                        help="also evaluate each LLM configuration embedded without its "
                             "contextual prefixes and print both figures and the delta")
    add_embedder_option(parser, repeat=True)
    add_rerank_option(parser, modes=True)
    parser.add_argument("--details", action="store_true",
                        help="include every question with its retrieved chunks and scores")
    parser.add_argument("--no-cache", action="store_true", help="recompute cached results")
    add_report_option(parser, "the results, each question with its retrieved chunks,")


def _chunkings(args: argparse.Namespace) -> list[Candidate]:
    if bool(args.preset) == bool(args.strategy):
        raise EvaluationError("Give either --strategy (with its settings) or --preset.")
    if args.preset:
        refuse_settings_with_preset(args)
        return [preset(name).candidate() for name in args.preset]
    settings = chunking_settings(args)
    label = " ".join([args.strategy, *(f"{k}={v}" for k, v in settings.items())])
    return [Candidate(label, args.strategy, settings)]


def _candidates(args: argparse.Namespace) -> list[Candidate]:
    """The chunkings under each embedder asked for, reranked as asked."""
    embedders = [by_name(name) for name in args.embedder or ["minilm"]]
    rerank = configured_reranker() if args.rerank != "off" else None
    return expand(_chunkings(args), embedders, rerank, args.rerank)


def _summary(result: CandidateResult, details: bool) -> dict[str, Any]:
    full = result.to_json()
    metrics = full["metrics"]
    metrics["overall"]["ci95"] = {m: [round(v, 6) for v in ci]
                                  for m, ci in intervals(result).items()}
    out = {
        "config": full["config"],
        "status": "ok",
        "embedder": full["embedder"],
        "k": result.k,
        "budget": result.budget,
        "autocut": result.autocut,
        "retrieval": result.retrieval,
        **metrics,
        "chunk_counts": result.chunk_counts,
        "integrity": result.integrity,
        "front_matter_set_apart": result.set_apart.to_json(),
        "seconds": full["seconds"],
        "cached": result.cached,
    }
    if details:
        out["questions"] = full["questions"]
    return out


def _comparisons(results: list[CandidateResult]) -> list[dict[str, Any]]:
    """Every configuration after the first against the first, metric by metric."""
    out = []
    for other in results[1:]:
        for metric in METRICS:
            c = compare(results[0], other, metric)
            out.append({"a": c.label_a, "b": c.label_b, "metric": metric, "wins": c.wins,
                        "losses": c.losses, "ties": c.ties, "p_value": round(c.p_value, 6),
                        "difference_ci95": [round(v, 6) for v in c.diff_ci95],
                        "verdict": verdict(c)})
    return out


def _contextual(pair: ContextualDelta) -> dict[str, Any]:
    figures = {m: [round(v, 6) for v in pair.values(m)] for m in METRICS}
    return {"config": pair.with_prefixes.candidate.label,
            "with_prefixes": {m: on for m, (on, _, _) in figures.items()},
            "without_prefixes": {m: off for m, (_, off, _) in figures.items()},
            "delta": {m: delta for m, (_, _, delta) in figures.items()},
            "verdict": pair.verdict("recall")}


def run(args: argparse.Namespace) -> int:
    candidates = _candidates(args)
    if args.contextual_delta:
        twinned = with_prefix_twins(candidates)
        if len(twinned) == len(candidates):
            raise EvaluationError("--contextual-delta needs an LLM configuration: only the LLM "
                                  "writes contextual prefixes.")
        candidates = twinned
    loaded = load_from_folder(args.questions, args.docs)
    question_set = loaded.questions
    for problem in question_set.problems:
        say(f"warning: {args.questions.name} {problem}")
    [kept] = evaluate_each(question_set, loaded.documents, candidates,
                           [Retrieval(args.k, args.budget, args.autocut,
                                      include_front_matter=args.include_front_matter)],
                           ranking=args.ranking, use_cache=not args.no_cache)
    evaluation, record = kept.evaluation, kept.record
    reasons = list(dict.fromkeys(f.reason for f in evaluation.failures))
    if not evaluation.results and len(reasons) == 1:
        raise EvaluationError(reasons[0])  # one cause (an endpoint down…): one line
    for failure in evaluation.failures:
        say(f"failed: {failure.candidate.label}: {failure.reason}")
    for result in evaluation.results:
        if result.set_apart.chunks:
            say(f"{result.candidate.label}: {result.set_apart.sentence()} "
                "(--include-front-matter to retrieve them)")
    if not evaluation.results:
        raise EvaluationError("No configuration could be evaluated; the reasons are above.")
    output: dict[str, Any] = {
        "values": "fractions (0..1)",
        "question_set": str(args.questions),
        "question_count": len(question_set.questions),
        "invalid_rows": [
            {"row": p.row, "corpus_id": p.corpus_id, "reason": p.reason}
            for p in question_set.problems
        ],
        "ranking": args.ranking,
        "k": args.k,
        "budget": args.budget,
        "autocut": args.autocut,
        "retrieval": evaluation.retrieval,
        "run": record.id if record else None,
    }
    pairs = contextual_deltas(evaluation.results)
    if args.contextual_delta:
        output["contextual"] = [_contextual(pair) for pair in pairs]
    # The twins without prefixes are in the pairs; a failed one is listed like any failure.
    shown: list[CandidateResult | CandidateFailure] = [
        o for o in evaluation.outcomes
        if isinstance(o, CandidateFailure) or o.candidate.contextual]
    results = [o for o in shown if isinstance(o, CandidateResult)]
    entries = [o.to_json() if isinstance(o, CandidateFailure) else _summary(o, args.details)
               for o in shown]
    if args.preset or len(entries) > 1:
        best = best_configuration(results)
        for outcome, entry in zip(shown, entries, strict=True):
            if best is not None and isinstance(outcome, CandidateResult):
                entry["probability_best"] = round(best.probabilities[outcome.candidate.label], 4)
        output["results"] = entries
        output["comparisons"] = _comparisons(results)
        output["best"] = None if best is None else best.to_json()
    else:
        output.update(entries[0])
    json.dump(output, sys.stdout, indent=2, ensure_ascii=False)
    print()
    if args.report:
        inputs = ReportInputs(question_set.name, question_set.version, loaded.documents,
                              (("Ranking", args.ranking), ("Retrieval", evaluation.retrieval)))
        write_report(args.report, evaluation_report(
            Evaluation(shown, evaluation.ranking, evaluation.k, evaluation.budget,
                       evaluation.autocut), inputs))
    return PARTIAL if evaluation.failures else 0

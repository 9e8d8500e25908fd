"""`python -m core eval`: score a chunking on a question set and print the metrics as JSON.

With ``--strategy`` (and its settings) the output is one object: ``overall``, ``per_corpus``,
``per_kind``, ``table_query_accuracy``, ... With one or more ``--preset`` the output holds a
``results`` list of such objects, in the order given. Every metric value is a fraction in [0, 1]
(the JSON says so under ``values``). Rows of the question set whose references do not match
their document are listed under ``invalid_rows`` (and on stderr) and not evaluated.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.evaluation.runner import (
    DEFAULT_K,
    ChunkConfig,
    ConfigResult,
    EvaluationError,
    evaluate,
    preset_config,
)
from core.retrieval.ranking import RANK_MODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--questions", type=Path, required=True,
                        help="question set CSV (question, references, corpus_id[, kind])")
    parser.add_argument("--docs", type=Path, required=True,
                        help="folder of the documents; corpus_id = file name with or without "
                             "extension")
    chunking = parser.add_mutually_exclusive_group(required=True)
    chunking.add_argument("--strategy", help="chunking strategy (fixed, recursive, semantic, llm)")
    chunking.add_argument("--preset", action="append",
                          help="a chunking preset by name; repeat to compare several")
    parser.add_argument("--size", type=int, help="target chunk size (in --unit)")
    parser.add_argument("--overlap", type=int, help="overlap between chunks (in --unit)")
    parser.add_argument("--unit", choices=("tokens", "chars"), help="unit of size and overlap")
    parser.add_argument("--no-tables", action="store_true",
                        help="do not keep tables whole (no table-aware chunking)")
    parser.add_argument("--k", type=int, default=DEFAULT_K,
                        help=f"chunks retrieved per question (default {DEFAULT_K})")
    parser.add_argument("--rank", choices=RANK_MODES, default="vector",
                        help="ranking: vector, bm25 or hybrid (default vector)")
    parser.add_argument("--details", action="store_true",
                        help="include every question with its retrieved chunks and scores")
    parser.add_argument("--no-cache", action="store_true", help="recompute cached results")


def _strategy_config(args: argparse.Namespace) -> ChunkConfig:
    settings: dict[str, Any] = {
        name: value
        for name, value in (("size", args.size), ("overlap", args.overlap), ("unit", args.unit))
        if value is not None
    }
    if args.no_tables:
        settings["tables"] = False
    label = " ".join([args.strategy, *(f"{k}={v}" for k, v in settings.items())])
    return ChunkConfig(label=label, strategy=args.strategy, settings=settings)


def _summary(result: ConfigResult, details: bool) -> dict[str, Any]:
    full = result.to_json()
    out = {
        "config": full["config"],
        **result.metrics,
        "chunk_counts": result.chunk_counts,
        "seconds": full["seconds"],
        "cached": result.cached,
    }
    if details:
        out["questions"] = full["questions"]
    return out


def run(args: argparse.Namespace) -> int:
    from core.evaluation.questions import load_question_set

    if args.preset and any(v is not None for v in (args.size, args.overlap, args.unit)):
        raise EvaluationError("--size, --overlap and --unit go with --strategy, not --preset.")
    configs = [preset_config(name) for name in args.preset] if args.preset else [
        _strategy_config(args)]
    question_set, documents = load_question_set(args.questions, args.docs)
    for problem in question_set.problems:
        print(f"warning: {args.questions.name} {problem}", file=sys.stderr)
    results = evaluate(question_set, documents, configs, rank=args.rank, k=args.k,
                       use_cache=not args.no_cache)
    output: dict[str, Any] = {
        "values": "fractions (0..1)",
        "question_set": str(args.questions),
        "question_count": len(question_set.questions),
        "invalid_rows": [
            {"row": p.row, "corpus_id": p.corpus_id, "reason": p.reason}
            for p in question_set.problems
        ],
        "rank": args.rank,
        "k": args.k,
    }
    summaries = [_summary(result, args.details) for result in results]
    if args.preset:
        output["results"] = summaries
    else:
        output.update(summaries[0])
    json.dump(output, sys.stdout, indent=2, ensure_ascii=False)
    print()
    return 0

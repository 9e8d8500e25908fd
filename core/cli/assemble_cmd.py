"""`python -m core assemble`: retrieve from a chunk set and print the assembled prompt as JSON.

The JSON is :class:`core.assembly.model.AssembledPrompt` (``prompt.system``, ``prompt.user``,
``citations``, ``tokens_estimated``, ``budget``…); with ``--with-packs`` it is the Assemble
page's export (:meth:`~core.operations.assemble.run.Assembly.export`): ``{"chunk_set",
"question", "settings", "assembled", "packs"}``, so the retrieved text and spans can be
inspected too.
The best packs are kept while they fit the budget: by default the passages may use the tokens
the configured answer model allows (:func:`~core.operations.assemble.budget.default_budget`,
said on stderr); with ``--headroom`` alone the context may use that many tokens; with
``--context-tokens``, packs are kept while prompt + headroom (default 300) fit the context size.
A prompt that keeps no pack says so on stderr with the smallest change that would keep one;
the front matter left out of retrieval (covers, contents, indexes: ``--include-front-matter``
retrieves them) is counted there too.

With ``--ask`` the prompt is sent to the configured endpoint (``LLM_BASE_URL``, ``LLM_MODEL``…)
with the saved answer model and temperature — the answer is written to stderr as it comes — and
the JSON is the answer with its checked
citations: ``{"answer", "model", "temperature", "latency_s", "citations": {"ok", "used",
"unknown", "unused"}}`` (``"packs"`` added with ``--with-packs``).
"""

from __future__ import annotations

import argparse
import json
import sys

from core.assembly.model import CITATION_STYLES, ESTIMATORS, STYLES
from core.cli.options import add_autocut_option, add_front_matter_option
from core.cli.output import AnswerEcho, say
from core.cli.stack_options import add_rerank_option
from core.operations.assemble.budget import FALLBACK_TOKENS, default_budget
from core.operations.assemble.run import AssemblyOptions, ask, assemble
from core.retrieval.modes import RANK_MODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--question", required=True, help="the question or instruction")
    parser.add_argument("--chunk-set", help="chunk set to retrieve from (default: the active one)")
    parser.add_argument("--limit", type=int, default=5, help="hits to retrieve (default 5)")
    parser.add_argument("--neighbors", type=int, default=0,
                        help="neighbouring chunks added on each side of a hit (default 0)")
    parser.add_argument("--rank", dest="ranking", choices=RANK_MODES, default="vector",
                        help="vector, bm25 or hybrid (default vector)")
    parser.add_argument("--merge-neighbours", action="store_true",
                        help="small-to-big: hits next to each other come back as one pack")
    add_autocut_option(parser, "--limit")
    add_front_matter_option(parser)
    parser.add_argument("--headroom", type=int,
                        help="alone: the tokens the passages may use (default: what the "
                             f"configured answer model allows, {FALLBACK_TOKENS:,} without "
                             "one); with --context-tokens: the tokens kept free for the answer "
                             f"(default {AssemblyOptions.headroom})")
    parser.add_argument("--context-tokens", type=int,
                        help="the model's context size; packs are kept while they fit")
    parser.add_argument("--style", choices=STYLES, default="qa")
    parser.add_argument("--citation-style", choices=CITATION_STYLES, default="numeric")
    parser.add_argument("--estimator", choices=ESTIMATORS, default="tiktoken",
                        help="tiktoken counts, or characters as tokens")
    parser.add_argument("--system-prompt", choices=("library", "builtin"), default="library",
                        help="the answer prompt of the prompt library (its active variant, as "
                             "edited on the Prompts page; the default), or the style's built-in "
                             "prompt")
    parser.add_argument("--locale", help="locale of the library's RAG template (e.g. ja)")
    add_rerank_option(parser)
    parser.add_argument("--with-packs", action="store_true",
                        help="also print the retrieved packs")
    parser.add_argument("--ask", action="store_true",
                        help="send the prompt to the configured LLM and print its answer with "
                             "the citations checked (answer model and temperature as saved)")


def _headroom(args: argparse.Namespace) -> tuple[int, str]:
    """The headroom asked for; without it or a context size, the passage budget the answer
    model allows, with the sentence that says so."""
    if args.headroom is not None:
        return int(args.headroom), ""
    if args.context_tokens is not None:
        return AssemblyOptions.headroom, ""
    budget = default_budget()
    assert budget.tokens is not None
    return budget.tokens, (f"Passage budget: {budget.source} (--headroom or --context-tokens "
                           "to change it).")


def run(args: argparse.Namespace) -> int:
    headroom, said = _headroom(args)
    options = AssemblyOptions(
        limit=args.limit, neighbors=args.neighbors, ranking=args.ranking,
        headroom=headroom, style=args.style, citation_style=args.citation_style,
        context_tokens=args.context_tokens, estimator=args.estimator,
        system=args.system_prompt, locale=args.locale, merge_adjacent=args.merge_neighbours,
        autocut=args.autocut, rerank=args.rerank,
        include_front_matter=args.include_front_matter,
    )
    result = assemble(args.question, args.chunk_set, options)
    notes = [said, result.set_apart.sentence() and (
        f"{result.set_apart.sentence()} (--include-front-matter to retrieve them)."),
        result.assembled.budget.to_keep_one()]
    packs = [p.model_dump(mode="json") for p in result.packs]
    output: dict[str, object] = result.assembled.model_dump(mode="json")
    if args.ask:
        echo = AnswerEcho()
        try:
            answer = ask(result.assembled, listener=echo.listener())
        finally:
            echo.end()
        say(answer.took())
        output = answer.as_json() | ({"packs": packs} if args.with_packs else {})
    elif args.with_packs:
        output = result.export(args.question, options)
    for note in filter(None, notes):  # after the answer, so a failed request is one line
        say(note)
    json.dump(output, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0

"""Held-format answers against free ones, with a served model: how often an answer cites, whether
its citations name passages that exist, and whether the cited passages hold the statements.

With a served model (``make llm`` in another terminal, the machine to itself):

    .venv/bin/python -m bench.llm_held_format --base-url http://127.0.0.1:8080/v1 [--per-set 5]

The first ``--per-set`` questions of every shipped question set (8 sets: 40 questions by
default) are answered twice with the answer prompt's default variant over ``--preset``'s chunks
— free, then held to the cited format (a grammar, where the server takes one) — with the answer
cache off, so both are asked. Per run: answers, the share that cite, the share of citations
naming a passage of the prompt, the share whose passage holds part of the reference, the share
of cited statements whose passages hold their words, and seconds per answer. The held format
is worth having only if it cites more without citing at random: *statements supported* must not
fall. ``--quick`` runs two questions against a fake server of our own to check the bench.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import mean

import httpx

from bench.quick import add_quick
from core.evaluation.questions import QuestionSet
from core.llm.client import LLMClient
from core.llm.settings import LLMSettings
from core.operations.answers.grades import AnswerGrades
from core.operations.answers.run import AnswerOptions, arms_for, configurations, run_answers
from core.operations.questions.sets import load_from_folder

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "sample_docs" / "questions"


@contextmanager
def _server(args: argparse.Namespace) -> Iterator[LLMSettings]:
    if not args.quick:
        model = args.model or httpx.get(args.base_url.rstrip("/") + "/models",
                                        timeout=10).json()["data"][0]["id"]
        yield LLMSettings(base_url=args.base_url, model=model, timeout=args.timeout)
        return
    from fakes.http import running
    from fakes.llm import FakeLLM, FakeRequest

    def quote_first_passage(request: FakeRequest) -> str:
        passage = request.prompt.split("\n---\n", 1)[-1].split("\n\n")[0]
        return passage[:200] + " [1]"

    with running(FakeLLM()) as fake:
        fake.serve_llama(slots=1, n_ctx=8192)
        fake.respond(quote_first_passage)
        yield fake.settings(concurrency=1)


def _share(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{mean(known):.2f} ({len(known)})" if known else "–"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=os.environ.get("LLM_BASE_URL",
                                                             "http://127.0.0.1:8080/v1"))
    parser.add_argument("--model", default="", help="default: the server's first model")
    parser.add_argument("--per-set", type=int, default=5, help="questions of each set (5)")
    parser.add_argument("--preset", default="recursive 500/50")
    parser.add_argument("--timeout", type=float, default=600.0)
    add_quick(parser)
    args = parser.parse_args()
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-held-"))
    sets = sorted(QUESTIONS.glob("*.csv"))[:2 if args.quick else None]
    per_set = 1 if args.quick else args.per_set
    loaded = [load_from_folder(path, ROOT / "sample_docs") for path in sets]
    arms = arms_for(["default"], configurations([args.preset]))
    rows = []
    with _server(args) as settings:
        form = LLMClient(settings).output_form(fresh=True)
        print(f"server {settings.base_url}, model {settings.model}: "
              f"grammar {'yes' if form.grammar else 'no'}, schema {'yes' if form.schema else 'no'}")
        # Each question is asked free and then held, one after the other: the server keeps the
        # prompt it has just read, so the second asking reads only what differs.
        grades: dict[bool, list[AnswerGrades]] = {False: [], True: []}
        seconds = {False: 0.0, True: 0.0}
        for one in loaded:
            usable = [q for q in one.questions.questions if q.corpus_id in one.documents]
            for question in usable[:per_set]:
                single = QuestionSet(one.questions.name, (question,))
                for held in (False, True):
                    options = AnswerOptions(limit=1, held_format=held, use_cache=False)
                    started = time.perf_counter()
                    result = run_answers(single, one.documents, arms, settings, options)
                    seconds[held] += time.perf_counter() - started
                    grades[held] += [r.grades for r in result.arms[0].rows
                                     if r.grades is not None]
                print(f"{one.questions.name}: {question.question[:60]}", flush=True)
        for held in (False, True):
            graded = grades[held]
            rows.append(("held" if held else "free", len(graded),
                         _share([float(g.cited) for g in graded]),
                         _share([g.citations_valid for g in graded]),
                         _share([g.citations_supported for g in graded]),
                         _share([g.statements_supported for g in graded]),
                         f"{seconds[held] / max(1, len(graded)):.1f}"))
    header = ("format", "answers", "cite", "citations valid", "citations supported",
              "statements supported", "s/answer")
    print("\n" + " | ".join(header))
    for row in rows:
        print(" | ".join(str(cell) for cell in row))
    print("\n(shares: mean over the answers that have the grade, their number in brackets)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Recall and IoU (character level, top-5, as the Evaluate page measures) of retrieval
configurations on every shipped question set and on a long mixed document.

The long set puts the eight sample documents (prose, tables, a transcript, slides) end to end in
one document of ~125k characters, with every shipped question's references moved to their new
offsets: each question now competes with the passages of all eight documents. The corpus set is
``corpora/benchmark`` (a policy manual, a table-heavy register and meeting transcripts, ~0.4 MB,
270 questions whose references are whole paragraphs, tables or speaker turns: the shipped
sets' short references cap IoU, these do not). A change to retrieval should not lower any
set's recall by more than a point.

Usage, from the repository root:

    .venv/bin/python -m bench.bench_retrieval_quality [--only "small-to-big"] [--sets long corpus]
        [--curve]

``--curve`` measures small-to-big retrieval (recursive chunks, neighbouring hits merged) by
chunk size instead: the trade-off between recall and IoU the preset's size was chosen on.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from bench.quick import add_quick
from core.documents.model import Document
from core.evaluation.questions import Question, QuestionSet, Reference
from core.operations.evaluation import Candidate, evaluate
from core.operations.presets import BUILTIN_PRESETS, SMALL_TO_BIG
from core.operations.questions.sets import LoadedSet, load_from_folder, load_shipped, shipped_sets
from corpora.benchmark import FOLDER as BENCHMARK_CORPUS

CORPUS = BENCHMARK_CORPUS
EXTRA = ("long", "corpus")  # sets not counted in the shipped mean
TOKENS = {"unit": "tokens", "tables": True}
ROWS: list[tuple[Candidate, str]] = [
    (Candidate("recursive 400/0", "recursive", {"size": 400, "overlap": 0, **TOKENS}), "vector"),
    (Candidate("fixed 250/125 tokens", "fixed",
               {"size": 250, "overlap": 125, "unit": "tokens", "tables": False}), "vector"),
    (Candidate("recursive 200/0", "recursive", {"size": 200, "overlap": 0, **TOKENS}), "vector"),
    (Candidate("recursive 200/0", "recursive", {"size": 200, "overlap": 0, **TOKENS}), "hybrid"),
    (Candidate("semantic (400)", "semantic", {"size": 400, "tables": True}), "vector"),
    (Candidate("semantic (400)", "semantic", {"size": 400, "tables": True}), "hybrid"),
    (Candidate("semantic (400) without its floor", "semantic",
               {"size": 400, "tables": True, "min_share": 0.0}), "vector"),
    (Candidate("semantic 200", "semantic", {"size": 200, "tables": True}), "hybrid"),
    (Candidate("semantic 150", "semantic", {"size": 150, "tables": True}), "hybrid"),
    (Candidate("cluster (200)", "cluster", {"size": 200, "tables": True}), "vector"),
    (Candidate("cluster (200)", "cluster", {"size": 200, "tables": True}), "hybrid"),
    (Candidate("cluster 400", "cluster", {"size": 400, "tables": True}), "vector"),
    (Candidate("recursive 100/0", "recursive", {"size": 100, "overlap": 0, **TOKENS}), "hybrid"),
    (BUILTIN_PRESETS[SMALL_TO_BIG].candidate(), "hybrid"),
]
CURVE: list[tuple[Candidate, str]] = [
    (Candidate(f"small-to-big recursive {size}", "recursive",
               {"size": size, "overlap": 0, **TOKENS}, ranking=ranking, merge_adjacent=True),
     ranking)
    for ranking, sizes in (("hybrid", (50, 75, 100, 125, 150, 175, 200)),
                           ("vector", (100, 150, 200)))
    for size in sizes
]


def _shifted(items: list, offset: int) -> list:
    fields = ("start", "end", "heading_start", "heading_end", "caption_start", "caption_end")
    return [item.model_copy(update={f: getattr(item, f) + offset for f in fields
                                    if getattr(item, f, None) is not None}) for item in items]


def long_set(sets: list[LoadedSet]) -> tuple[QuestionSet, dict[str, Document]]:
    """Every sample document end to end in one document, with every question moved along."""
    text, blocks, sections, tables, questions = "", [], [], [], []
    for loaded in sets:
        for document in loaded.documents.values():
            offset = len(text)
            text += document.text + "\n\n"
            blocks += _shifted(document.blocks, offset)
            sections += _shifted(document.sections, offset)
            tables += _shifted(document.tables, offset)
            questions += [Question(q.row, q.question, "long", tuple(
                Reference(r.content, r.start + offset, r.end + offset) for r in q.references),
                q.kind) for q in loaded.questions.questions if q.corpus_id == document.source_name]
    document = Document(doc_id="long-mixed", source_name="long", format="md", route="text",
                        text=text, blocks=blocks, sections=sections, tables=tables)
    return QuestionSet("long", tuple(questions)), {"long": document}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="rows whose label contains this text")
    parser.add_argument("--sets", nargs="*",
                        help="set names to run (default: the shipped ones, long and corpus)")
    parser.add_argument("--curve", action="store_true",
                        help="small-to-big by chunk size instead of the configurations")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.sets = args.sets or ["meeting_transcript"]
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-quality-"))
    shipped = {p.stem: load_shipped([p], p.stem) for p in shipped_sets()}
    sets = {name: (s.questions, s.documents) for name, s in shipped.items()}
    sets["long"] = long_set(list(shipped.values()))
    corpus = load_from_folder(CORPUS / "questions.csv", CORPUS)
    sets["corpus"] = (corpus.questions, corpus.documents)
    if args.sets:
        sets = {name: value for name, value in sets.items() if name in args.sets}
    rows = [(c, r) for c, r in (CURVE if args.curve else ROWS)
            if not args.only or args.only in c.label][: 1 if args.quick else None]
    print("recall % / IoU % per set (top-5); mean over the shipped sets; long = mixed document; "
          "corpus = corpora/benchmark")
    print(f"{'configuration':64} {'mean':>11} " + " ".join(f"{n[:11]:>11}" for n in sets))
    for candidate, ranking in rows:
        started = time.perf_counter()
        cells = {}
        for name, (questions, documents) in sets.items():
            [result] = evaluate(questions, documents, [candidate], ranking=ranking).require_all()
            cells[name] = result.metrics.overall
        shipped_cells = [cells[n] for n in cells if n not in EXTRA]
        mean = (f"{100 * sum(c.recall for c in shipped_cells) / len(shipped_cells):5.1f}/"
                f"{100 * sum(c.iou for c in shipped_cells) / len(shipped_cells):<5.2f}"
                if shipped_cells else "")
        label = f"{candidate.label}, {candidate.ranking or ranking}"
        print(f"{label[:64]:64} {mean:>11} " + " ".join(
            f"{100 * c.recall:5.1f}/{100 * c.iou:<5.2f}" for c in cells.values())
            + f"  ({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()

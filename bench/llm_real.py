"""LLM chunking with a real model: per document and phase, time, answers accepted, repairs.

Start a server first (``make llm``), then from the repository root::

    .venv/bin/python -m bench.llm_real --out runs/today --tune a.md b.docx --held-out c.html
    .venv/bin/python -m bench.llm_real --report runs/today [runs/other ...]
    .venv/bin/python -m bench.llm_real --fixtures runs/today [runs/other ...]
    .venv/bin/python -m bench.llm_real --log-report data_dir  # a run of ``core chunk|ingest``

Documents run one after another with tolerant parsing against
``LLM_BASE_URL`` (default ``http://127.0.0.1:8080/v1``, model ``local``), with the settings the
connection test fits to the server. Validated answers are cached in ``OUT`` (a later
``CHUNKLAB_DATA_DIR=OUT python -m core chunk|ingest`` with the same templates reuses them; the
figures count only requests sent). Each document's raw answers stay in ``OUT/llm_log.jsonl``
(what test fixtures are cut from) and its figures are appended to ``OUT/results.jsonl``;
``--report`` prints the tables: per document, per phase (time, requests, share of answers
accepted, prompt tokens sent and actually read by the server — the rest came from its prompt
cache —, on the tune and the held-out documents apart) and repairs per kind.

Judge a template change by the held-out documents: the tune documents are the ones the
templates were written against.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from core.documents import convert
from core.llm.answers.repairs import REPAIR_NAMES
from core.llm.settings import LLMSettings
from core.operations.connection import check_connection
from core.operations.strategies import RunOptions, run_llm

PHASES = ("structure_analysis", "boundary_detection", "chunk_metadata", "contextual_prefix",
          "table_summary")


def _log_entries(path: Path, skip: int) -> tuple[list[dict[str, Any]], int]:
    """The log's entries after its first ``skip`` lines (one per attempt), each answer its phase
    rejected marked ``rejected``; and the number of lines read."""
    if not path.exists():
        return [], 0
    lines = path.read_text(encoding="utf-8").splitlines()
    entries: list[dict[str, Any]] = []
    last: dict[str, dict[str, Any]] = {}
    for line in lines[skip:]:
        entry = json.loads(line)
        if "rejects" in entry:
            if entry["rejects"] in last:
                last[entry["rejects"]]["rejected"] = entry.get("error", "rejected")
            continue
        entries.append(entry)
        last[str(entry.get("id"))] = entry
    return entries, len(lines)


def _phase_figures(entries: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    figures: dict[str, dict[str, float]] = {}
    for entry in entries:
        phase = str(entry.get("phase"))
        row = figures.setdefault(phase, {"requests": 0, "answers": 0, "accepted": 0,
                                         "seconds": 0.0, "failed": 0, "prompt_tokens": 0,
                                         "prompt_processed": 0})
        row["requests"] += 1
        row["seconds"] += float(entry.get("latency_s") or 0.0)
        row["prompt_tokens"] += int(entry.get("prompt_tokens") or 0)  # what the prompts held …
        row["prompt_processed"] += int(entry.get("prompt_processed",  # … and what was read
                                                 entry.get("prompt_tokens")) or 0)
        if "response" in entry:
            row["answers"] += 1
            if not entry.get("error") and not entry.get("rejected"):
                row["accepted"] += 1
        else:
            row["failed"] += 1
    return figures


def run(args: argparse.Namespace) -> int:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    os.environ["CHUNKLAB_DATA_DIR"] = str(out.resolve())
    settings = LLMSettings(base_url=os.environ.get("LLM_BASE_URL", "http://127.0.0.1:8080/v1"),
                           model=os.environ.get("LLM_MODEL", "local"), timeout=600)
    report = check_connection(settings)
    settings = report.suggested
    print(f"server: context {report.facts.context_tokens}, slots {report.facts.slots}, "
          f"{report.facts.answer_speed or 0:.1f} answer tokens/s; timeout {settings.timeout:g} s",
          flush=True)
    log = out / "llm_log.jsonl"
    _, seen = _log_entries(log, 0)
    jobs = [(path, "tune") for path in args.tune] + [(path, "held-out") for path in args.held_out]
    for path, which in jobs:
        document = convert(path.read_bytes(), path.name)
        started = time.perf_counter()
        runs = run_llm([document], {"parsing": "tolerant", "summaries": args.summaries},
                       RunOptions(llm=settings, notice=lambda line: print("  " + line,
                                                                          flush=True)))
        seconds = time.perf_counter() - started
        llm_run = runs[0]
        entries, seen = _log_entries(log, seen)
        exact = all(c.text == document.text[c.start : c.end] for c in llm_run.chunks)
        result = {
            "document": path.name, "set": which, "seconds": round(seconds, 1),
            "chars": len(document.text), "ok": llm_run.error is None and exact,
            "error": str(llm_run.error) if llm_run.error else None,
            "chunks": len(llm_run.chunks), "exact_spans": exact,
            "repairs": dict(Counter(r.kind for r in llm_run.repairs)),
            "phases": _phase_figures(entries), "template": args.label,
        }
        with (out / "results.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(result) + "\n")
        state = "ok" if result["ok"] else f"FAILED: {result['error']}"
        phases = result["phases"].values()
        read = sum(row["prompt_processed"] for row in phases)
        sent = sum(row["prompt_tokens"] for row in phases)
        print(f"{path.name} ({which}): {state}; {seconds:.0f} s, {len(llm_run.chunks)} chunks, "
              f"prompt tokens read {read:,.0f} of {sent:,.0f} sent, repairs {result['repairs']}",
              flush=True)
    return 0


def report(folders: list[Path]) -> int:
    results = [json.loads(line) for folder in folders
               for line in (folder / "results.jsonl").read_text().splitlines() if line.strip()]
    print("| document | set | chars | result | seconds | chunks | repairs |")
    print("| --- | --- | ---: | --- | ---: | ---: | --- |")
    for r in results:
        state = "ok" if r["ok"] else "failed: " + (r["error"] or "spans")[:90]
        repairs = ", ".join(f"{k} {v}" for k, v in sorted(r["repairs"].items())) or "—"
        print(f"| {r['document']} | {r['set']} | {r['chars']:,} | {state} | {r['seconds']:.0f} "
              f"| {r['chunks']} | {repairs} |")
    print("\n| phase | set | requests | answers accepted | seconds | s/request "
          "| prompt tokens | read (not cached) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for phase in PHASES:
        for which in ("tune", "held-out"):
            rows = [r["phases"][phase] for r in results
                    if r["set"] == which and phase in r["phases"]]
            if not rows:
                continue
            total = defaultdict(float)
            for row in rows:
                for key, value in row.items():
                    total[key] += value
            share = total["accepted"] / total["answers"] if total["answers"] else 0.0
            print(f"| {phase} | {which} | {total['requests']:.0f} | {total['accepted']:.0f}/"
                  f"{total['answers']:.0f} ({share:.0%}) | {total['seconds']:.0f} | "
                  f"{total['seconds'] / total['requests']:.1f} | "
                  f"{total['prompt_tokens']:,.0f} | {total['prompt_processed']:,.0f} |")
    print("\n| repair | documents | times |")
    print("| --- | ---: | ---: |")
    kinds: Counter[str] = Counter()
    docs: Counter[str] = Counter()
    for r in results:
        for kind, count in r["repairs"].items():
            kinds[kind] += count
            docs[kind] += 1
    for kind, count in kinds.most_common():
        print(f"| {REPAIR_NAMES.get(kind, kind)} | {docs[kind]} of {len(results)} | {count} |")
    done = sum(r["ok"] for r in results)
    print(f"\n{done} of {len(results)} documents completed with exact spans.")
    return 0


def log_report(folders: list[Path]) -> int:
    """Per document and phase, from raw logs alone (a ``core ingest`` run with
    ``CHUNKLAB_DATA_DIR`` set): requests, answers accepted, seconds. Requests about a chunk name
    no document; they are counted under "(chunks)"."""
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for folder in folders:
        entries, _ = _log_entries(folder / "llm_log.jsonl", 0)
        by_document: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
        for entry in entries:
            if entry.get("phase") in PHASES:
                name = str(entry.get("subject", "")).rpartition(" blocks ")[0] or "(chunks)"
                by_document[name].append(entry)
        for name, found in by_document.items():
            figures[name] = _phase_figures(found)
    print("| document | phase | requests | answers accepted | seconds |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, phases in figures.items():
        for phase in PHASES:
            if phase in phases:
                row = phases[phase]
                print(f"| {name} | {phase} | {row['requests']:.0f} | {row['accepted']:.0f}/"
                      f"{row['answers']:.0f} | {row['seconds']:.0f} |")
    return 0


def fixtures(folders: list[Path]) -> int:
    """Cut the structure and boundary answers about shipped samples out of the runs' raw logs
    into ``tests/real_answers.jsonl``, each with what today's parsers make of it; print the
    share each parsing mode accepts, per phase."""
    from fakes.replay import FIXTURES, ROOT, replay

    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    for folder in folders:
        entries, _ = _log_entries(folder / "llm_log.jsonl", 0)
        for entry in entries:
            subject = str(entry.get("subject", ""))
            name, _, blocks = subject.rpartition(" blocks ")
            if (entry.get("phase") not in ("structure_analysis", "boundary_detection")
                    or "response" not in entry or not name
                    or not (ROOT / "sample_docs" / name).is_file()):
                continue
            first, last = (int(n) for n in blocks.split("-"))
            record = {"document": name, "phase": entry["phase"], "blocks": [first, last],
                      "template_version": entry.get("template_version"),
                      "answer": entry["response"]}
            found[(name, subject + entry["phase"], entry["response"])] = record
    lines, shares = [], defaultdict(Counter)
    for record in found.values():
        outcome = replay(record)
        record.update(outcome.as_dict())
        lines.append(json.dumps(record, ensure_ascii=False))
        shares[record["phase"]].update(
            answers=1, strict=outcome.strict == "ok", tolerant=outcome.tolerant == "ok")
    FIXTURES.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} answers written to {FIXTURES}")
    for phase, counts in shares.items():
        print(f"{phase}: strict accepts {int(counts['strict'])}/{counts['answers']}, tolerant "
              f"{int(counts['tolerant'])}/{counts['answers']}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="folder for the raw log and results")
    parser.add_argument("--tune", type=Path, nargs="*", default=[])
    parser.add_argument("--held-out", type=Path, nargs="*", default=[])
    parser.add_argument("--summaries", action=argparse.BooleanOptionalAction, default=True,
                        help="ask for metadata, prefixes and table summaries too")
    parser.add_argument("--label", default="", help="what the run tries (kept with its results)")
    parser.add_argument("--report", type=Path, nargs="*", help="print the tables of these runs")
    parser.add_argument("--fixtures", type=Path, nargs="*",
                        help="write the answers of these runs to tests/real_answers.jsonl")
    parser.add_argument("--log-report", type=Path, nargs="*",
                        help="print per document and phase what these raw logs hold")
    args = parser.parse_args()
    if args.report:
        return report(args.report)
    if args.log_report:
        return log_report(args.log_report)
    if args.fixtures:
        return fixtures(args.fixtures)
    if args.out is None:
        parser.error("--out is required to run")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

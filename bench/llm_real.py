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
and its figures are appended to ``OUT/results.jsonl``;
``--report`` prints the tables: per document, per phase (time, requests, share of answers
accepted, prompt tokens sent and actually read by the server — the rest came from its prompt
cache —, on the tune and the held-out documents apart) and repairs per kind.

Judge a template change by the held-out documents: the tune documents are the ones the
templates were written against.

``--fixtures`` adds the raw answers about shipped samples (``sample_docs``) of every chunking
phase to ``tests/real_answers.jsonl``, where they are replayed through today's parsers (see
:mod:`fakes.replay`); the records already there stay with the outcome they were recorded with.
Answers about other documents are left out: the held-out documents stay out of the repository,
and a record that carried the text its request showed would copy them into it. Cut a run while
today's templates are the ones it ran: its chunks are found again through its LLM cache.
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

from bench.llm_asked import asked_about_chunks
from core.chunking.chunk import Chunk
from core.documents import convert
from core.llm.replies.copies import REPEATS_AT, repeated_share
from core.llm.replies.repairs import REPAIR_NAMES
from core.llm.settings import LLMSettings
from core.operations.llm_connection import check_connection
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


def _repeats(chunks: list[Chunk]) -> dict[str, list[int]]:
    """Per annotation (summary, prefix): how many repeat their chunk — half of their words or
    more one verbatim run of it — and how many there are."""
    found: dict[str, list[int]] = {"summary": [0, 0], "prefix": [0, 0]}
    for chunk in chunks:
        notes = chunk.llm
        for name, said in (("summary", notes and notes.summary),
                           ("prefix", notes and notes.context_prefix)):
            if said:
                found[name][0] += repeated_share(said, chunk.text) >= REPEATS_AT
                found[name][1] += 1
    return found


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
            "repeats_chunk": _repeats(llm_run.chunks),
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
    repeats = {name: [sum(r.get("repeats_chunk", {}).get(name, [0, 0])[i] for r in results)
                      for i in (0, 1)] for name in ("summary", "prefix")}
    plural = {"summary": "summaries", "prefix": "prefixes"}
    print("\n" + "; ".join(f"{plural[name]} repeating their chunk: {k} of {n}"
                           for name, (k, n) in repeats.items() if n))
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


def _form(answer: str) -> str:
    """"json" for structured output's ``{"rows": [...]}`` (the log does not say whether a schema
    was sent; an answer of that shape was read as one), else "tsv"."""
    try:
        data = json.loads(answer)
    except ValueError:
        return "tsv"
    return "json" if isinstance(data, dict) and isinstance(data.get("rows"), list) else "tsv"


def _shipped(entry: dict[str, Any]) -> str:
    """The shipped sample a structure or boundary request was about ("" for another document):
    its subject names the document and the blocks shown."""
    from fakes.replay import ROOT

    name = str(entry.get("subject", "")).rpartition(" blocks ")[0]
    return name if name and (ROOT / "sample_docs" / name).is_file() else ""


def _window_record(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The record of a structure or boundary answer about a shipped sample."""
    name = _shipped(entry)
    if not name:
        return None
    first, last = (int(n) for n in entry["subject"].rpartition(" blocks ")[2].split("-"))
    return {"document": name, "phase": entry["phase"], "blocks": [first, last],
            "template_version": entry.get("template_version"), "form": _form(entry["response"]),
            "answer": entry["response"]}


def _chunk_records(folder: Path, entries: list[dict[str, Any]],
                   names: list[str]) -> list[dict[str, Any]]:
    """The records of the chunk answers about ``names``: an accepted answer is the one its
    request's cache entry holds; a rejected one belongs to the request asked again right after
    it (same phase, template and prompt length)."""
    from fakes.replay import CHUNK_PHASES, answer_text

    about = [e for e in entries if e.get("phase") in CHUNK_PHASES]
    if not about or not names:
        return []
    if not (folder / "llm_cache").is_dir():
        print(f"{folder}: no LLM cache, so the answers about chunks cannot be told apart")
        return []
    versions = {(str(e["phase"]), str(e.get("template_version"))) for e in about}
    asked = asked_about_chunks(folder, names, str(about[0].get("model", "local")), versions)
    found: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []  # rejected answers whose request is not known yet
    for entry in about:
        if entry.get("rejected"):
            waiting.append(entry)
            continue
        phase, form = CHUNK_PHASES[entry["phase"]], _form(entry["response"])
        match = next((a for a in asked if a["phase"] == entry["phase"]
                      and a["template_version"] == entry.get("template_version")
                      and answer_text(phase, form, entry["response"], a["request"])
                      == a["cached"]), None)
        if match is None:
            continue
        fields = {k: v for k, v in match.items() if k not in ("cached", "request")}
        same = [e for e in waiting if (e["phase"], e.get("template_version"),
                                       e.get("prompt_tokens")) == (entry["phase"],
                                       entry.get("template_version"), entry.get("prompt_tokens"))]
        for answered in [*same, entry]:
            found.append({**fields, "form": _form(answered["response"]),
                          "answer": answered["response"]})
        waiting = [e for e in waiting if e not in same]
    print(f"{folder}: {len(found)} of {len(about)} answers about chunks are about chunks of "
          "shipped samples the run's cache finds")
    return found


def fixtures(folders: list[Path]) -> int:
    """Add the answers about shipped samples in the runs' raw logs to
    ``tests/real_answers.jsonl`` (the records already there stay), each with what today's
    parsers make of it; print the share each parsing mode accepts, per phase. Answers the
    server cut at its token limit are left out (what the pipeline keeps of them is the cut
    rule's business, not the parser's)."""
    from fakes.replay import FIXTURES, merge, replay

    new: list[dict[str, Any]] = []
    for folder in folders:
        entries, _ = _log_entries(folder / "llm_log.jsonl", 0)
        names = sorted({name for e in entries if (name := _shipped(e))})
        entries = [e for e in entries if "response" in e
                   and not str(e.get("error", "")).startswith("answer cut")]
        new += [r for e in entries if e.get("phase") in ("structure_analysis",
                                                         "boundary_detection")
                if (r := _window_record(e)) is not None]
        new += _chunk_records(folder, entries, names)
    shares: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for record in new:
        outcome = replay(record)
        record.update(outcome.as_dict())
        shares[record["phase"]].update(
            answers=1, strict=int(outcome.strict == "ok"), tolerant=int(outcome.tolerant == "ok"))
    added = merge(new)
    print(f"{len(new)} answers about shipped samples found, {added} new added to {FIXTURES}")
    for phase, counts in shares.items():
        print(f"{phase}: strict accepts {counts['strict']}/{counts['answers']}, tolerant "
              f"{counts['tolerant']}/{counts['answers']}")
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
                        help="add the answers of these runs to tests/real_answers.jsonl")
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

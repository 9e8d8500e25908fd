"""Answers a real model wrote, replayed through today's parsers.

``tests/real_answers.jsonl`` holds raw answers of the bundled model (served by ``make llm``) about
the shipped samples, cut from real runs' raw LLM logs by ``python -m bench.llm_real --fixtures``.
A record names the document (a file in ``sample_docs``), the phase, the template version it
answered, the answer's ``form`` ("json": structured output's ``{"rows": [...]}``; "tsv", the
default: text) and what the request showed, as offsets into the document:

* structure and boundary answers: ``blocks`` (first and last anchor shown, 1-based) and, for
  boundaries, the ``section`` title;
* chunk summary answers: ``stretch`` (start, end of the text shown), ``starts`` (where its
  chunk marks go), ``numbers`` (the marks asked about) and ``asked`` (start, end of each of
  those chunks; ``chunk`` is the first);
* contextual prefix and table summary answers: ``chunk`` (start, end), ``path`` (the headings
  the chunk sits under), ``shown`` (the stretch of the document read with it; equal offsets:
  none) and, for a table, its ``caption``;

and what today's parsers made of it when it was cut (``strict``: "ok" or the reason;
``tolerant``: "ok" or the reason it falls back; ``repairs``: kind -> count). :func:`replay`
rebuilds the request, reads a structured answer back into TSV lines as the pipeline does and
parses it again, so a parser change that loses an answer or a repair shows as a test failure.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from core.documents import convert
from core.documents.model import Document
from core.llm import anchors
from core.llm.errors import TSVError
from core.llm.phase import Phase, parse_answer
from core.llm.phases import BOUNDARIES, METADATA, PREFIX, STRUCTURE, TABLE_SUMMARY
from core.llm.phases.boundaries import BoundaryWindow, SectionSpan
from core.llm.phases.chunk_phase import ChunkRequest, HeadingContext, mark_chunks
from core.llm.phases.metadata import SummaryRequest
from core.llm.phases.structure import StructureWindow
from core.llm.phases.table_summary import TableRequest
from core.llm.replies.repairs import Repairs
from core.prompts.library import PromptLibrary

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "real_answers.jsonl"
SIZE = 500  # the chunk size the runs used (the LLM strategy's default)
CHUNK_PHASES: dict[str, Phase[Any, Any]] = {phase.name: phase
                                            for phase in (METADATA, PREFIX, TABLE_SUMMARY)}
PHASES: dict[str, Phase[Any, Any]] = {STRUCTURE.name: STRUCTURE, BOUNDARIES.name: BOUNDARIES,
                                      **CHUNK_PHASES}
OUTCOME = ("strict", "tolerant", "repairs")  # what replaying a record gives; the rest is input
Record = dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    strict: str  # "ok", or why strict parsing refuses the answer
    tolerant: str  # "ok", or why tolerant parsing gives up (the phase then falls back)
    repairs: dict[str, int]  # kind -> how often, tolerant

    def as_dict(self) -> dict[str, Any]:
        return {"strict": self.strict, "tolerant": self.tolerant, "repairs": self.repairs}


@cache
def sample(name: str) -> Document:
    return convert((ROOT / "sample_docs" / name).read_bytes(), name)


def chunk_request(document: Document, phase: str, chunk: tuple[int, int], path: list[str],
                  shown: tuple[int, int], caption: str | None = None,
                  repairs: Repairs | None = None) -> ChunkRequest | TableRequest:
    """The request the pipeline sends ``phase`` about the chunk at ``chunk``, read in the stretch
    ``shown``, under the headings ``path``."""
    text = document.text[chunk[0] : chunk[1]]
    stretch = document.text[shown[0] : shown[1]]
    if phase == TABLE_SUMMARY.name:
        return TableRequest(document.source_name, text, path, caption, repairs, stretch)
    return ChunkRequest(document.source_name, text,
                        HeadingContext.of(path, document.source_name), repairs, stretch)


def summary_request(document: Document, stretch: tuple[int, int], starts: list[int],
                    numbers: list[int], asked: list[tuple[int, int]],
                    repairs: Repairs | None = None) -> SummaryRequest:
    """The request the pipeline sends about the chunks ``asked`` (marks ``numbers``) of the
    stretch ``stretch``, its chunks marked at ``starts``."""
    return SummaryRequest(document.source_name, mark_chunks(document.text, stretch, starts),
                          tuple(numbers), tuple(document.text[a:b] for a, b in asked), repairs)


def _window(record: Record, repairs: Repairs | None) -> StructureWindow | BoundaryWindow:
    document = sample(record["document"])
    blocks = anchors.anchor_blocks(document)
    first, last = record["blocks"]
    shown = blocks[first - 1 : last]
    end = blocks[last].start if last < len(blocks) else len(document.text)
    if record["phase"] == STRUCTURE.name:
        return StructureWindow(document, "anchors", blocks, shown, end, repairs=repairs)
    section = SectionSpan(record.get("section", ""), shown[0].start, end)
    return BoundaryWindow(document, "anchors", section, blocks, shown, shown[0].start, end,
                          SIZE, repairs=repairs)


def request_of(record: Record, repairs: Repairs | None) -> Any:
    """The request the recorded answer answered (``repairs`` None: strict parsing)."""
    if record["phase"] == METADATA.name:
        return summary_request(sample(record["document"]), tuple(record["stretch"]),
                               record["starts"], record["numbers"],
                               [tuple(span) for span in record["asked"]], repairs)
    if record["phase"] in CHUNK_PHASES:
        (start, end), (first, last) = record["chunk"], record["shown"]
        return chunk_request(sample(record["document"]), record["phase"], (start, end),
                             record["path"], (first, last), record.get("caption"), repairs)
    return _window(record, repairs)


def answer_text(phase: Phase[Any, Any], form: str, answer: str, request: Any) -> str:
    """The text the phase's parser reads: a structured answer's rows as the TSV lines they
    stand for, read as the pipeline reads them (:meth:`Phase.rows_from_json`)."""
    return phase.rows_from_json(answer, request) if form == "json" else answer


def replay(record: Record) -> Outcome:
    """What today's parsers make of the recorded answer, strictly and tolerantly."""
    phase = PHASES[record["phase"]]
    template = PromptLibrary().default(phase.template)
    form = record.get("form", "tsv")
    reasons = []
    repairs = Repairs()
    for mode in (None, repairs):  # strict, then tolerant
        request = request_of(record, mode)
        try:
            parse_answer(phase, template, answer_text(phase, form, record["answer"], request),
                         request)
            reasons.append("ok")
        except TSVError as err:
            reasons.append(err.reason)
    return Outcome(reasons[0], reasons[1], dict(Counter(r.kind for r in repairs.items)))


def records(path: Path = FIXTURES) -> list[Record]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def identity(record: Record) -> str:
    """What makes two records the same answer to the same request (their outcomes aside)."""
    return json.dumps({k: v for k, v in record.items() if k not in OUTCOME}, sort_keys=True,
                      ensure_ascii=False)


def merge(new: list[Record], path: Path = FIXTURES) -> int:
    """Add ``new`` to the records at ``path``: those already there stay as they are (with the
    outcome they were recorded with), identical ones are written once. Returns how many were
    added."""
    kept = records(path)
    seen = {identity(record) for record in kept}
    added = []
    for record in new:
        if identity(record) not in seen:
            seen.add(identity(record))
            added.append(record)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept + added),
                    encoding="utf-8")
    return len(added)

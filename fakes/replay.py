"""Answers a real model wrote, replayed through today's parsers.

``tests/real_answers.jsonl`` holds raw structure and boundary answers of Qwen2.5-Coder-1.5B
(served by ``make llm``), cut from the raw LLM log by ``python -m bench.llm_real --fixtures``:
per answer the document (a shipped sample), the phase, the blocks the request showed, the
template version it answered and what today's parsers make of it (``strict``: "ok" or the
reason; ``tolerant``: the repair kinds, or the reason it falls back). :func:`replay` rebuilds
the request from the document and parses the answer again, so a parser change that loses a
repair shows as a test failure.
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
from core.llm.answers.repairs import Repairs
from core.llm.errors import TSVError
from core.llm.phase import Phase, parse_answer
from core.llm.phases import BOUNDARIES, STRUCTURE
from core.llm.phases.boundaries import BoundaryWindow, SectionSpan
from core.llm.phases.structure import StructureWindow
from core.prompts.library import PromptLibrary

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "real_answers.jsonl"
SIZE = 500  # the chunk size the runs used (the LLM strategy's default)
PHASES: dict[str, Phase[Any, Any]] = {"structure_analysis": STRUCTURE,
                                      "boundary_detection": BOUNDARIES}


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


def _request(record: dict[str, Any], repairs: Repairs | None) -> Any:
    document = sample(record["document"])
    blocks = anchors.anchor_blocks(document)
    first, last = record["blocks"]
    shown = blocks[first - 1 : last]
    end = blocks[last].start if last < len(blocks) else len(document.text)
    if record["phase"] == "structure_analysis":
        return StructureWindow(document, "anchors", blocks, shown, end, repairs=repairs)
    section = SectionSpan(record.get("section", ""), shown[0].start, end)
    return BoundaryWindow(document, "anchors", section, blocks, shown, shown[0].start, end,
                          SIZE, repairs=repairs)


def replay(record: dict[str, Any]) -> Outcome:
    """What today's parsers make of the recorded answer, strictly and tolerantly."""
    phase = PHASES[record["phase"]]
    template = PromptLibrary().default(phase.template)
    try:
        parse_answer(phase, template, record["answer"], _request(record, None))
        strict = "ok"
    except TSVError as err:
        strict = err.reason
    repairs = Repairs()
    try:
        parse_answer(phase, template, record["answer"], _request(record, repairs))
        tolerant = "ok"
    except TSVError as err:
        tolerant = err.reason
    return Outcome(strict, tolerant, dict(Counter(r.kind for r in repairs.items)))


def records() -> list[dict[str, Any]]:
    if not FIXTURES.exists():
        return []
    return [json.loads(line) for line in FIXTURES.read_text(encoding="utf-8").splitlines()
            if line.strip()]

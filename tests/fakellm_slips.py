"""A fake OpenAI-compatible server that slips the way a 1–3B model does.

It starts from the right answer (:func:`fakes.llm.auto_answer`) and spoils it as small models
were seen to: an anchor one past the end, a ```tsv fence, a "Here is …" preamble, a header row
repeating the column names, a title in another case or with extra whitespace, an unordered
DOCUMENT_END in about a third of the boundary answers, and a copy of the template's example for
some metadata and prefixes. Every structure and boundary answer carries at least one slip that
strict parsing rejects (a header row alone it forgives).

Deterministic: the slips of an answer are drawn from a generator seeded with the request's
prompt and how often that prompt was asked before, so a retry may slip differently (as a model
sampling at a temperature does) while every test run sees the same answers. Use the fixture
``slipping_llm`` (a :class:`fakes.llm.FakeLLM`), or :func:`slipped_answer` on its own.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from fakes.llm import FakeLLM, FakeRequest, auto_answer

HEADERS = {
    "structure_analysis": "title\tlevel\tstart_anchor\tend_anchor\tparent_title",
    "boundary_detection": "anchor\tboundary_type\tjustification",
    "chunk_metadata": "chapter_title\tsection_title\tsubsection_title\tsummary",
}
PREAMBLES = {
    "structure_analysis": "Here is the document structure:",
    "boundary_detection": "Here are the chunk boundaries:",
    "chunk_metadata": "Here is the metadata for the chunk:",
    "contextual_prefix": "Here is the contextual prefix:",
    "table_summary": "Here is a summary of the table:",
}
_EXAMPLE = re.compile(r"EXAMPLE OUTPUT[^\n]*:[ \t]*\n(.+?)(?:\n[ \t]*\n|\Z)", re.DOTALL)
Slip = Callable[[list[str], str, random.Random], list[str]]


def _fence(lines: list[str], phase: str, rng: random.Random) -> list[str]:
    return ["```tsv" if phase in HEADERS else "```", *lines, "```"]


def _preamble(lines: list[str], phase: str, rng: random.Random) -> list[str]:
    return [PREAMBLES[phase], *lines]


def _header(lines: list[str], phase: str, rng: random.Random) -> list[str]:
    return [HEADERS[phase], *lines]


def _past_end(lines: list[str], phase: str, rng: random.Random) -> list[str]:
    """The last anchor one past the end, as if the end were exclusive."""
    cells = lines[-1].split("\t")
    column = 3 if phase == "structure_analysis" else 0
    cells[column] = str(int(cells[column]) + 1)
    return [*lines[:-1], "\t".join(cells)]


def _title_case(lines: list[str], phase: str, rng: random.Random) -> list[str]:
    """One title in capitals with doubled spaces; its children still name it as it was."""
    k = rng.randrange(len(lines))
    cells = lines[k].split("\t")
    cells[0] = "  ".join(cells[0].upper().split()) + " "
    return [*lines[:k], "\t".join(cells), *lines[k + 1 :]]


def _end_unordered(lines: list[str], phase: str, rng: random.Random) -> list[str]:
    """DOCUMENT_END written right after DOCUMENT_START."""
    return [lines[0], lines[-1], *lines[1:-1]]


SLIPS: dict[str, list[Slip]] = {
    "structure_analysis": [_fence, _preamble, _header, _past_end, _title_case],
    "boundary_detection": [_fence, _preamble, _header, _past_end],
    "chunk_metadata": [_fence, _preamble, _header],
    "contextual_prefix": [_preamble],
    "table_summary": [_preamble],
}


def _example(prompt: str) -> str | None:
    match = _EXAMPLE.search(prompt)
    return match.group(1).splitlines()[0] if match else None


def slipped_answer(phase: str, prompt: str, attempt: int = 0) -> str:
    """The right answer to ``prompt`` with this request's slips."""
    rng = random.Random(hashlib.sha256(f"{attempt}\n{prompt}".encode()).digest())
    right = auto_answer(phase, prompt)
    slips = SLIPS.get(phase)
    if slips is None:
        return right
    example = _example(prompt)
    if phase in ("chunk_metadata", "contextual_prefix") and example and rng.random() < 0.2:
        return example
    lines = right.splitlines()
    must = phase in ("structure_analysis", "boundary_detection")
    chosen = [slip for slip in slips if rng.random() < 0.4]
    if must and not {_fence, _preamble, _past_end} & set(chosen):  # strict must see a slip
        chosen.append(rng.choice([_fence, _preamble, _past_end]))
    if phase == "boundary_detection" and len(lines) > 2 and rng.random() < 1 / 3:
        chosen.insert(0, _end_unordered)
    # slips on values first, then the wrapping (header, preamble, fence) around them
    order = [_past_end, _title_case, _end_unordered, _header, _preamble, _fence]
    for slip in sorted(chosen, key=order.index):
        lines = slip(lines, phase, rng)
    return "\n".join(lines)


class Slipper:
    """A responder for :meth:`FakeLLM.respond` that counts each prompt's attempts."""

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, request: FakeRequest) -> str:
        with self._lock:
            attempt = self._seen[request.prompt]
            self._seen[request.prompt] += 1
        return slipped_answer(request.phase, request.prompt, attempt)


@pytest.fixture
def slipping_llm() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    server.respond(Slipper())
    try:
        yield server
    finally:
        server.stop()

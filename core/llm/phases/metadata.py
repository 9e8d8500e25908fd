"""Phase 3, chunk summaries: one searchable sentence per chunk, several chunks per request.

The request shows a stretch of the document with a mark ``[[n]]`` at each chunk's start (each
chunk runs to the next mark) and asks for the chunks :attr:`SummaryRequest.numbers`, in order:
one TSV line ``chunk summary`` each. Every request about one stretch begins with the same marked
text, which a server with a prompt cache reads once; the chunks' texts are never sent again.
Asked one by one, the bundled 1.5 B model spent most of each request reading its chunk again;
asked :data:`GROUP_SIZE` at a time it wrote the same summaries in far less time (asked for a
whole stretch at once, it lost track after three rows). An invalid answer is asked
once more. A server with structured output is held to exactly the asked chunks, in order.

The summary is one sentence starting "The chunk", held to a reporting verb by the schema's
pattern (:data:`SUMMARY_PATTERN`; llama.cpp holds it through a grammar, and ignores it in a
``response_format``), and kept without those two words ("Describes …").
Asked for "10-25 words of your own", the bundled model mostly copied the chunk's opening
sentence; made to begin "The chunk describes", it reports on the chunk instead
(``bench.llm_real`` counts the summaries that repeat their chunk).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from core.llm.cache import digest
from core.llm.errors import TSVError
from core.llm.phase import OneRequestPhase, window_budget
from core.llm.phases.chunk_phase import Reading, mark_chunks, stretch_name
from core.llm.replies.checks import Line, folded, integer, max_answer_chars, whole_words
from core.llm.replies.reader import Columns, tsv_lines
from core.llm.replies.repairs import Repairs, reject_or_repair, tolerantly
from core.llm.settings import LLMSettings
from core.llm.structured import rows_as_tsv, rows_schema
from core.llm.trial import PhaseInput, PhaseView, marked, need
from core.prompts.template import PromptTemplate

LABEL = "phase 3 (chunk summaries)"
COLUMNS = ("chunk", "summary")
GROUP_SIZE = 3  # chunks asked about in one request
OPENING_WORDS = 10  # of each chunk asked, quoted in the task
MARKED_NUMBER = re.compile(r"^[ \t]*\[\[(\d+)\]\][ \t]*", re.MULTILINE)  # "[[4]] The …"
SUMMARY_CHARS = 200  # the template's 10-25 words, with room
ROW_TOKENS = 80  # one TSV row: a chunk number and a sentence of up to 25 words
SUMMARY_OPENING = "The chunk "
SUMMARY_VERBS = ("describes", "explains", "lists", "sets out", "defines", "gives", "compares")
SUMMARY_PATTERN = f"^{SUMMARY_OPENING}({'|'.join(SUMMARY_VERBS)}) "


@dataclass(frozen=True)
class SummaryRequest:
    """Chunks of one stretch to summarise: the stretch with every chunk's start marked, and
    the numbers of the chunks asked about."""

    document_name: str
    marked: str  # the stretch, "[[n]] " before the n-th chunk it holds
    numbers: tuple[int, ...]  # the chunks asked about, in order
    texts: tuple[str, ...]  # their texts (what a cached answer depends on)
    repairs: Repairs | None = field(default=None, compare=False)  # None: strict parsing

    def asked(self) -> str:
        """One line per chunk asked: its mark and its first words, so the model finds it."""
        return "\n".join(f'[[{n}]] begins "{opening(text)}"'
                         for n, text in zip(self.numbers, self.texts, strict=True))


def opening(text: str, words: int = OPENING_WORDS) -> str:
    """The first ``words`` words of ``text`` (with "…" when there are more)."""
    found = text.split()
    return " ".join(found[:words]) + (" …" if len(found) > words else "")


def parse_summaries(text: str, numbers: tuple[int, ...], *, label: str = LABEL,
                    repairs: Repairs | None = None,
                    max_chars: int | None = None) -> dict[int, str]:
    """One line ``chunk summary`` for each of ``numbers``, in that order (each summary kept
    without its opening, see :func:`reported`).

    Tolerant: lines in another order are put in order, lines about chunks not asked, repeated
    ones and chunks given the same summary dropped (each recorded); chunks without a line are
    left out of the result, to be asked again alone. Strict: any of these fails.
    """
    if repairs is not None and MARKED_NUMBER.search(text):
        text = MARKED_NUMBER.sub(r"\1\t", text)
        repairs.add("value_fixed", label, None, "", "chunk marks [[n]] read as their numbers")
    lines = tsv_lines(label, text, Columns(COLUMNS, numeric=(0,), free=1), repairs,
                      max_chars=max_chars)
    found: dict[int, str] = {}
    for line in lines:
        number = integer(label, line.cells[0], COLUMNS[0], line)
        if not line.cells[1]:
            raise TSVError(label, "the summary is empty", line_number=line.number,
                           line=line.text)
        if number not in numbers or number in found:
            repeated = number in found
            reject_or_repair(
                repairs, "repeat_dropped" if repeated else "rows_dropped", TSVError.on(
                    label, f"chunk {number} has two lines" if repeated
                    else f"chunk {number} was not asked about", line))
            continue
        found[number] = reported(line.cells[1])
    if list(found) != [n for n in numbers if n in found]:
        reject_or_repair(repairs, "reordered", TSVError.on(
            label, "the lines are not in the order the chunks were asked", lines[0]))
    left = ", ".join(str(n) for n in numbers if n not in found)
    if not found or (left and repairs is None):
        raise TSVError(label, f"no line for chunk(s) {left}")
    _drop_alike(label, found, lines, repairs)
    return {n: found[n] for n in numbers if n in found}


def _drop_alike(label: str, found: dict[int, str], lines: list[Line],
                repairs: Repairs | None) -> None:
    """Chunks given the same summary: the model lost track of which is which (the bundled
    model, on neighbours alike in form), so each is asked again alone. Strict: a failure."""
    seen: dict[str, list[int]] = {}
    for number, summary in found.items():
        seen.setdefault(folded(summary), []).append(number)
    for alike in (numbers for numbers in seen.values() if len(numbers) > 1):
        line = next(line for line in lines if line.cells[0].strip() == str(alike[-1]))
        reject_or_repair(repairs, "repeat_dropped", TSVError.on(
            label, f"chunks {', '.join(map(str, alike))} have the same summary", line))
        for number in alike:
            del found[number]


def reported(summary: str) -> str:
    """The summary without the opening the template asks for: "The chunk lists …" → "Lists …"
    (any other summary as it is)."""
    opening = SUMMARY_OPENING.casefold()
    rest = summary[len(opening):] if summary.casefold().startswith(opening) else ""
    if not any(rest.casefold().startswith(verb + " ") for verb in SUMMARY_VERBS):
        return summary
    return rest[:1].upper() + rest[1:]


class MetadataPhase(OneRequestPhase[SummaryRequest, dict[int, str]]):
    name = "chunk_metadata"
    label = LABEL
    template = "chunk_metadata"
    answer_tokens = GROUP_SIZE * ROW_TOKENS
    compact = True  # short rows: indentation would be a fifth of the answer
    text_placeholder = "document_text"
    inputs: ClassVar[tuple[str, ...]] = ("document", "section", "chunk")

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> SummaryRequest:
        """The chunk picked on the Prompts page, marked in the stretch it is read in (its end
        marked too, as the next chunk's start)."""
        document = need(source.document, "a document")
        chunk = need(source.chunk, "a chunk")
        text = document.slice(chunk)
        budget = window_budget(settings, template, answer_tokens=self.answer_limit(settings))
        span = Reading.shown_span(document, chunk.start, text, budget)
        if span is None:
            shown = mark_chunks(document.text, (chunk.start, chunk.end), [chunk.start])
        else:
            shown = mark_chunks(document.text, span,
                                [chunk.start, *([chunk.end] if chunk.end < span[1] else [])])
        return SummaryRequest(document.source_name, shown, (1,), (text,))

    def values(self, request: SummaryRequest) -> dict[str, str]:
        return {"document_id": request.document_name, "document_text": request.marked,
                "chunks_asked": request.asked()}

    def cache_content(self, request: SummaryRequest) -> dict[str, object]:
        return {"stretch": digest(request.document_name, request.marked),
                "chunks": list(request.numbers), "texts": digest(*request.texts)}

    def shared_prefix(self, request: SummaryRequest) -> str:
        return stretch_name(request.document_name, request.marked)

    def answer_cap(self, request: SummaryRequest) -> int:
        return ROW_TOKENS * len(request.numbers)

    def columns(self, request: SummaryRequest) -> Columns:
        return Columns(COLUMNS, numeric=(0,), free=1)

    def answer_schema(self, request: SummaryRequest, template: PromptTemplate) -> dict[str, Any]:
        # the opening only where the template asks for it (an edited one may ask for another)
        asked = f'"{SUMMARY_OPENING.strip()}"' in template.text
        return rows_schema(COLUMNS, numeric=(0,), max_chars=SUMMARY_CHARS,
                           pattern=SUMMARY_PATTERN if asked else None, keys=request.numbers)

    def rows_from_json(self, answer: str, request: SummaryRequest) -> str:
        lines = []
        for line in rows_as_tsv(answer, COLUMNS).splitlines():
            number, _, summary = line.partition("\t")
            # a summary that reached the limit was stopped by it
            lines.append(f"{number}\t{whole_words(summary, SUMMARY_CHARS - 1)}")
        return "\n".join(lines)

    def parse(self, answer: str, request: SummaryRequest) -> dict[int, str]:
        return tolerantly(request.repairs, lambda repairs: parse_summaries(
            answer, request.numbers, label=self.label, repairs=repairs,
            max_chars=max_answer_chars("".join(request.texts))))

    def view(self, result: dict[int, str], source: PhaseInput) -> PhaseView:
        rows = [{"chunk": n, "summary": summary} for n, summary in result.items()]
        return PhaseView(rows=rows, items=[f"[[{n}]] {s}" for n, s in result.items()],
                         spans=marked(source.chunk, "chunk"))


METADATA = MetadataPhase()


@dataclass(frozen=True)
class Piece:
    """A chunk of a stretch as the grouping sees it: where it lies, and whether it is asked
    about (tables get their own summary, but are marked so the chunk before them ends)."""

    start: int
    end: int
    asked: bool


def stretch_end(span: tuple[int, int], pieces: list[Piece]) -> int:
    """Where the stretch ``span`` ends once run on to the end of its last asked chunk."""
    return max([span[1], *(p.end for p in pieces if p.asked)])


def marked_stretch(text: str, span: tuple[int, int], pieces: list[Piece]) -> str:
    """The stretch ``span`` of ``text`` with its ``pieces`` (the chunks starting in it, in
    order) marked, run on to the end of its last asked chunk (:func:`stretch_end`): what
    every request about them begins with (the table summaries' too)."""
    return mark_chunks(text, (span[0], stretch_end(span, pieces)), [p.start for p in pieces])


def group_requests(document_name: str, text: str, marked: str | None, pieces: list[Piece],
                   repairs: Repairs | None = None) -> list[tuple[tuple[int, ...],
                                                                 SummaryRequest]]:
    """The requests that summarise the asked ``pieces`` of a stretch, :data:`GROUP_SIZE` at a
    time, each with the indexes of the pieces it asks about; ``marked`` is the stretch
    (:func:`marked_stretch`), None when it does not fit a request: then each chunk is asked
    alone, marked in its own text."""
    asked = [i for i, p in enumerate(pieces) if p.asked]
    if marked is None:
        return [((i,), SummaryRequest(document_name, mark_chunks(
            text, (pieces[i].start, pieces[i].end), [pieces[i].start]), (1,),
            (text[pieces[i].start:pieces[i].end],), repairs)) for i in asked]
    return [(group, SummaryRequest(document_name, marked, tuple(i + 1 for i in group),
                                   tuple(text[pieces[i].start:pieces[i].end] for i in group),
                                   repairs))
            for group in (tuple(asked[g:g + GROUP_SIZE])
                          for g in range(0, len(asked), GROUP_SIZE))]


def alone(request: SummaryRequest, number: int) -> SummaryRequest:
    """``request`` asking about its chunk ``number`` only (its group failed or left it out)."""
    text = request.texts[request.numbers.index(number)]
    return replace(request, numbers=(number,), texts=(text,))

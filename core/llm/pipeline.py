"""The LLM chunking pipeline: structure → boundaries → chunk and table summaries.

One scheduler loop hands every request to a thread pool of ``settings.concurrency`` workers and
reacts as each finishes: a document's structure releases its sections' boundary requests; once
every section of a stretch of the document (:class:`Reading`) has its chunks, the stretch is
marked once and its chunks' summaries are asked a few at a time, its tables' summaries one by
one, every request beginning with that marked stretch (see :mod:`core.llm.phases.metadata`). So
nothing waits for a whole phase to end, and several documents share the same bound. A chunk's
contextual prefix is its headings and its summary (:attr:`LLMConfig.context_prefix`), or asked
of the contextual prefix template, one request per chunk.

Chunks are cut where the model said, kept off tables (each table is one chunk, whatever its
size), stripped of surrounding whitespace, and split by the recursive splitter when over the size
limit (those cuts are marked ``SIZE_CONSTRAINT``). ``chunk.text == document.text[start:end]``.

Failures stay where they happen: a failed structure or boundary request stops its document (its
:attr:`LLMRun.error`) while the other documents go on; a group of summaries that fails (or
leaves chunks out) is asked again one chunk at a time; a failed summary, prefix or table
summary request leaves that chunk without it (marked missing, with the error) and the run ends
with a warning. Tolerant parsing (:attr:`LLMConfig.parsing`) records each repair per document.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from pydantic import Field

from core.chunking.base import ChunkerConfig, ChunkFactory
from core.chunking.chunk import Chunk, LLMAnnotations, MissingAnnotation
from core.chunking.recursive import RecursiveChunker, RecursiveConfig
from core.chunking.table_aware import table_span
from core.chunking.token_index import TokenIndex
from core.documents.model import Document
from core.llm.client import LLMError
from core.llm.phase import Phase, PhaseContext
from core.llm.phases import BOUNDARIES, METADATA, PREFIX, STRUCTURE, TABLE_SUMMARY
from core.llm.phases.boundaries import BoundaryResult, SectionSpan
from core.llm.phases.chunk_phase import (
    DOCUMENT_WINDOW_TOKENS,
    ChunkRequest,
    HeadingContext,
    Reading,
)
from core.llm.phases.metadata import (
    Piece,
    SummaryRequest,
    alone,
    group_requests,
    marked_stretch,
)
from core.llm.phases.prefix import composed_prefix
from core.llm.phases.structure import DEFAULT_SNAP_TOLERANCE, StructureResult
from core.llm.phases.table_summary import TableRequest
from core.llm.replies.repairs import Repairs
from core.llm.run import LLMRun, PlannedChunk
from core.progress import ProgressFn, Tracker
from core.text.spans import strip_span
from core.tokens import count_tokens

STRATEGY = "llm"
CHUNKING_PHASES: tuple[Phase[Any, Any], ...] = (STRUCTURE, BOUNDARIES, METADATA, PREFIX,
                                                TABLE_SUMMARY)
TABLE_CUT = "Tables are kept whole, each in a chunk of its own"
POLL_S = 0.1


class LLMConfig(ChunkerConfig):
    """The LLM strategy's settings: only chunking choices (the connection is never in here, so
    no key reaches a chunk, a cache key or a chunk set)."""

    size: int = Field(500, ge=50, le=8192,
                      description="Largest text chunk in tokens (longer ones are split)")
    mode: Literal["anchors", "offsets"] = Field(
        "anchors", description="How the model names positions: block anchors or offsets")
    summaries: bool = Field(True, description="Ask for summaries and contextual prefixes")
    context_prefix: Literal["from summary", "asked"] = Field(
        "from summary", description="How a chunk's contextual prefix is made. From summary: "
        "its headings and its summary, with no request of its own. Asked: the contextual "
        "prefix template, one request per chunk (a quarter of a run's time with the bundled "
        "model, for a sentence that says what the summary says)")
    parsing: Literal["strict", "tolerant"] = Field(
        "strict", description="Strict: any slip in the model's answer fails the run. Tolerant: "
        "common slips (a code fence, a preamble, an anchor past the end, a title in another "
        "case, lines out of order) are repaired and listed as warnings")
    snap_tolerance: int = Field(DEFAULT_SNAP_TOLERANCE, ge=0, le=5000,
                                json_schema_extra={"advanced": True},
                                description="Offsets mode: characters a position may move")
    cache: bool = Field(True, json_schema_extra={"advanced": True},
                        description="Reuse validated answers from earlier runs")

    def describe(self) -> str:
        return f"{self.size:,} tokens"


@dataclass(frozen=True)
class StructureTask:
    doc: int

    def label(self, runs: list[LLMRun]) -> str:
        return f"{runs[self.doc].document.source_name}: structure analysed"


@dataclass(frozen=True)
class BoundaryTask:
    doc: int
    segment: int

    def label(self, runs: list[LLMRun]) -> str:
        run = runs[self.doc]
        return f"{run.document.source_name}: boundaries of “{run.segments[self.segment].title}”"


@dataclass(frozen=True)
class SummaryTask:
    """A few chunks of one stretch summarised in one request."""

    doc: int
    keys: tuple[tuple[int, int], ...]  # (segment, piece) of each chunk asked about
    request: SummaryRequest

    def label(self, runs: list[LLMRun]) -> str:
        first, last = self.keys[0][1] + 1, self.keys[-1][1] + 1
        which = f"chunk {first}" if first == last else f"chunks {first}-{last}"
        return (f"{runs[self.doc].document.source_name}: summaries of {which} in "
                f"“{runs[self.doc].segments[self.keys[0][0]].title}”")


@dataclass(frozen=True)
class EnrichTask:
    doc: int
    segment: int
    piece: int
    phase: Phase[Any, str] | Phase[Any, Any]

    def label(self, runs: list[LLMRun]) -> str:
        run = runs[self.doc]
        return (f"{run.document.source_name}: {self.phase.label} of chunk {self.piece + 1} in "
                f"“{run.segments[self.segment].title}”")


Task = StructureTask | BoundaryTask | SummaryTask | EnrichTask


def _outcome(runs: list[LLMRun]) -> str:
    """The last progress line: done, with how many warnings, and how many documents failed."""
    failed = sum(run.error is not None for run in runs)
    warnings = sum(run.warnings for run in runs if run.error is None)
    text = f"done with {warnings} warning(s)" if warnings else "done"
    return text + (f"; {failed} of {len(runs)} document(s) failed" if failed else "")


def leaf_segments(document: Document, structure: StructureResult) -> list[SectionSpan]:
    """Partition the text at every section start; text before the first section is its own."""
    starts: dict[int, str] = {}
    for section in sorted(structure.sections, key=lambda s: (s.start, s.level)):
        starts[section.start] = section.title  # the deepest section starting there wins
    if not starts or min(starts) > 0:
        starts[0] = starts.get(0, "(before the first section)")
    positions = sorted(starts)
    ends = [*positions[1:], len(document.text)]
    return [SectionSpan(starts[p], p, e) for p, e in zip(positions, ends, strict=True) if e > p]


class LLMPipeline:
    def __init__(
        self,
        context: PhaseContext,
        config: LLMConfig,
        *,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.context = context
        self.config = config
        self.progress = progress
        self.cancel = cancel or threading.Event()
        self._splitter = RecursiveChunker(
            RecursiveConfig(size=config.size, overlap=0, tables=False, encoding=config.encoding)
        )

    def run(self, documents: list[Document]) -> list[LLMRun]:
        runs = [LLMRun(document) for document in documents]
        repairs = [Repairs() if self.config.parsing == "tolerant" else None for _ in documents]
        indexes = [TokenIndex(d.text, self.config.encoding) for d in documents]
        tracker = Tracker(self.progress, len(runs), self.cancel, what="LLM chunking")
        pool = ThreadPoolExecutor(self.context.settings.concurrency, thread_name_prefix="llm")
        pending: dict[Future[Any], Task] = {}
        finished = 0

        def submit(task: Task, fn: Callable[..., Any], *args: Any) -> None:
            pending[pool.submit(fn, *args)] = task

        try:
            for i, run in enumerate(runs):
                submit(StructureTask(i), STRUCTURE.run, self.context, run.document,
                       self.config.snap_tolerance, repairs[i])
            while pending:
                tracker.check()
                done, _ = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
                for future in done:
                    task = pending.pop(future)
                    finished += 1
                    if runs[task.doc].error is not None or future.cancelled():
                        continue
                    error = future.exception()
                    if error is None:
                        self._handle(task, future.result(), runs, indexes, repairs, submit)
                    elif isinstance(error, LLMError):
                        self._failed(task, error, runs, pending, submit)
                    else:
                        raise error
                    tracker.step(finished, f"{finished} of {finished + len(pending)} requests · "
                                 f"{task.label(runs)}", total=finished + len(pending))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        for run, found in zip(runs, repairs, strict=True):
            run.chunks = [] if run.error else self._chunks(run)
            run.repairs = found.items if found is not None else []
            run.usage = self.context.usage
        tracker.step(finished, _outcome(runs), total=finished)
        return runs

    def _failed(self, task: Task, error: LLMError, runs: list[LLMRun],
                pending: dict[Future[Any], Task], submit: Callable[..., None]) -> None:
        """A group's summaries failed: each chunk is asked alone. An annotation failed: the
        chunk goes without it. Structure or boundaries failed: the document stops (its other
        requests are dropped), the others go on."""
        run = runs[task.doc]
        if isinstance(task, SummaryTask) and len(task.keys) > 1:
            for key, number in zip(task.keys, task.request.numbers, strict=True):
                self._ask_alone(task, key, number, submit)
            return
        if isinstance(task, SummaryTask | EnrichTask):
            key, what = ((task.keys[0], "summary") if isinstance(task, SummaryTask) else
                         ((task.segment, task.piece),
                          "context_prefix" if task.phase is PREFIX else "summary"))
            run.missing.setdefault(key, []).append(MissingAnnotation(field=what,
                                                                     error=str(error)))
            return
        run.error = error
        for future, other in pending.items():
            if other.doc == task.doc:
                future.cancel()

    def _ask_alone(self, task: SummaryTask, key: tuple[int, int], number: int,
                   submit: Callable[..., None]) -> None:
        """The chunk ``number`` of a group asked again on its own, in the same stretch."""
        request = alone(task.request, number)
        submit(SummaryTask(task.doc, (key,), request), self.context.ask, METADATA, request)

    def _handle(self, task: Task, result: Any, runs: list[LLMRun], indexes: list[TokenIndex],
                repairs: list[Repairs | None], submit: Callable[..., None]) -> None:
        run = runs[task.doc]
        if isinstance(task, StructureTask):
            run.structure = result
            run.reading = Reading.of(run.document, min(
                DOCUMENT_WINDOW_TOKENS, self.context.budget(METADATA) - self.config.size))
            run.segments = leaf_segments(run.document, result)
            run.boundaries = [None] * len(run.segments)
            run.planned = [[] for _ in run.segments]
            for k, segment in enumerate(run.segments):
                submit(BoundaryTask(task.doc, k), partial(BOUNDARIES.run, keep_short=True),
                       self.context, run.document, segment, self.config.size,
                       self.config.snap_tolerance, repairs[task.doc])
        elif isinstance(task, BoundaryTask):
            k = task.segment
            run.boundaries[k] = result
            run.planned[k] = self._plan(run, k, result, indexes[task.doc])
            if self.config.summaries:
                self._summarise(task.doc, run, repairs[task.doc], submit)
        elif isinstance(task, SummaryTask):
            for key, number in zip(task.keys, task.request.numbers, strict=True):
                if number in result:
                    run.summaries[key] = result[number]
                else:  # left out of a tolerant answer
                    self._ask_alone(task, key, number, submit)
        elif task.phase is PREFIX:
            run.prefixes[(task.segment, task.piece)] = result
        else:
            run.summaries[(task.segment, task.piece)] = result

    def _summarise(self, doc: int, run: LLMRun, repairs: Repairs | None,
                   submit: Callable[..., None]) -> None:
        """Ask for the summaries of every stretch whose sections all have their chunks: its
        text chunks a few at a time, its tables (and, when asked, its prefixes) one by one, all
        read in the same marked stretch."""
        assert run.reading is not None
        budget = self.context.budget(METADATA)
        for i, (a, b, _) in enumerate(run.reading.spans):
            if i in run.summarised or any(
                    run.boundaries[k] is None for k, segment in enumerate(run.segments)
                    if segment.start < b and segment.end > a):
                continue
            run.summarised.add(i)
            keys = [(k, j) for k, pieces in enumerate(run.planned)
                    for j, piece in enumerate(pieces) if a <= piece.start < b]
            pieces = [Piece(p.start, p.end, p.chunk_type == "text")
                      for p in (run.planned[k][j] for k, j in keys)]
            text = marked_stretch(run.document.text, (a, b), pieces)
            shared = text if count_tokens(text) <= budget else None
            for group, request in group_requests(run.document.source_name,
                                                 run.document.text, shared, pieces, repairs):
                submit(SummaryTask(doc, tuple(keys[g] for g in group), request),
                       self.context.ask, METADATA, request)
            prefixes = (PREFIX,) if self.config.context_prefix == "asked" else ()
            for (k, j), piece in zip(keys, pieces, strict=True):
                for phase in prefixes if piece.asked else (TABLE_SUMMARY, *prefixes):
                    submit(EnrichTask(doc, k, j, phase), self._enrich, run, run.planned[k][j],
                           phase, repairs, shared)

    # --- chunks --------------------------------------------------------------------------
    def _plan(self, run: LLMRun, k: int, result: BoundaryResult,
              index: TokenIndex) -> list[PlannedChunk]:
        document, segment = run.document, run.segments[k]
        tables = [
            (max(a, segment.start), min(b, segment.end))
            for a, b in (table_span(document, t) for t in document.tables)
            if a < segment.end and b > segment.start
        ]
        cuts: dict[int, tuple[str, str]] = {}
        for n, boundary in enumerate(result.boundaries):
            position = boundary.position
            for a, b in tables:  # a cut inside a table moves to the table's start
                if a < position < b:
                    position = a
            kind = boundary.boundary_type
            if n == 0:
                kind = "DOCUMENT_START" if segment.start == 0 else "SECTION_BREAK"
            cuts.setdefault(position, (kind, boundary.justification))
        for a, b in tables:
            for position in (a, b):
                if segment.start < position < segment.end:
                    cuts.setdefault(position, ("SECTION_BREAK", TABLE_CUT))
        cuts.setdefault(segment.start, ("SECTION_BREAK", f"Section “{segment.title}” begins"))
        positions = sorted(cuts)
        planned: list[PlannedChunk] = []
        size = self.config.size
        for p, q in zip(positions, [*positions[1:], segment.end], strict=True):
            kind, why = cuts[p]
            is_table = any(a <= p and q <= b for a, b in tables)
            a, b = strip_span(document.text, p, q)
            if b <= a:
                continue
            tokens = index.count(a, b)
            if is_table or tokens <= size:
                planned.append(PlannedChunk(a, b, tokens, "table" if is_table else "text",
                                            kind, why))
                continue
            for n, (x, y, count) in enumerate(self._splitter.split(index, a, b)):
                if n == 0:
                    planned.append(PlannedChunk(x, y, count, "text", kind, why))
                else:
                    planned.append(PlannedChunk(x, y, count, "text", "SIZE_CONSTRAINT",
                                                f"Over {size} tokens: split by the recursive "
                                                "splitter", by_model=False))
        return planned

    def _enrich(self, run: LLMRun, piece: PlannedChunk, phase: Phase[Any, Any],
                repairs: Repairs | None, marked: str | None = None) -> str:
        """A table's summary or a chunk's asked prefix, read in the ``marked`` stretch its
        summaries are read in when given and it fits, else in its plain stretch."""
        document = run.document
        path = run.path(piece.start)
        text = document.text[piece.start : piece.end]
        room = self.context.budget(phase) - piece.tokens
        shown = (marked if marked is not None and count_tokens(marked) <= room
                 else run.reading.around(piece.start, room) if run.reading is not None else "")
        if phase is TABLE_SUMMARY:
            table = next((t for t in document.tables if piece.start <= t.start < piece.end), None)
            return self.context.ask(TABLE_SUMMARY, TableRequest(
                document.source_name, text, path, table.caption if table else None, repairs,
                shown))
        request = ChunkRequest(document.source_name, text,
                               HeadingContext.of(path, document.source_name), repairs, shown)
        return self.context.ask(PREFIX, request)

    def _chunks(self, run: LLMRun) -> list[Chunk]:
        factory = ChunkFactory(run.document, STRATEGY, self.config)
        chunks = []
        composed = self.config.summaries and self.config.context_prefix == "from summary"
        for k, planned in enumerate(run.planned):
            for j, piece in enumerate(planned):
                summary = run.summaries.get((k, j))
                prefix = (composed_prefix(HeadingContext.of(run.path(piece.start),
                                                            run.document.source_name), summary)
                          if composed else run.prefixes.get((k, j)))
                annotations = LLMAnnotations(
                    boundary_type=piece.boundary_type, justification=piece.justification,
                    summary=summary, context_prefix=prefix,
                    missing=tuple(run.missing.get((k, j), ())),
                )
                chunks.append(factory.make(piece.start, piece.end, tokens=piece.tokens,
                                           chunk_type=piece.chunk_type,
                                           heading_path=run.path(piece.start), llm=annotations))
        return chunks


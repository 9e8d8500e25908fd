"""The LLM chunking pipeline: structure → boundaries → metadata, prefix and table summaries.

One scheduler loop hands every request to a thread pool of ``settings.concurrency`` workers and
reacts as each finishes: a document's structure releases its sections' boundary requests, a
section's boundaries release its chunks' metadata, prefix and summary requests. So nothing waits
for a whole phase to end, and several documents share the same bound.

Chunks are cut where the model said, kept off tables (each table is one chunk, whatever its
size), stripped of surrounding whitespace, and split by the recursive splitter when over the size
limit (those cuts are marked ``SIZE_CONSTRAINT``). ``chunk.text == document.text[start:end]``.

Failures stay where they happen: a failed structure or boundary request stops its document (its
:attr:`LLMRun.error`) while the other documents go on; a failed metadata, prefix or table
summary request leaves that chunk without it (marked missing, with the error) and the run ends
with a warning. Tolerant parsing (:attr:`LLMConfig.parsing`) records each repair per document.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from pydantic import Field

from core.chunking.base import ChunkerConfig, ChunkFactory
from core.chunking.boundaries import strip_span
from core.chunking.chunk import Chunk, ChunkType, LLMAnnotations, MissingAnnotation
from core.chunking.recursive import RecursiveChunker, RecursiveConfig
from core.chunking.table_aware import table_span
from core.chunking.token_index import TokenIndex
from core.documents.model import Document
from core.errors import ChunkLabError
from core.llm.answers.repairs import Repair, Repairs
from core.llm.client import LLMError
from core.llm.phase import Phase, PhaseContext, Usage
from core.llm.phases import BOUNDARIES, METADATA, PREFIX, STRUCTURE, TABLE_SUMMARY
from core.llm.phases.boundaries import Boundary, BoundaryResult, SectionSpan
from core.llm.phases.chunk_phase import (
    DOCUMENT_WINDOW_TOKENS,
    ChunkRequest,
    HeadingContext,
    Reading,
)
from core.llm.phases.structure import DEFAULT_SNAP_TOLERANCE, StructureResult
from core.llm.phases.table_summary import TableRequest
from core.progress import ProgressFn, Tracker

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
    summaries: bool = Field(True, description="Ask for metadata, prefixes and table summaries")
    parsing: Literal["strict", "tolerant"] = Field(
        "strict", description="Strict: any slip in the model's answer fails the run. Tolerant: "
        "common slips (a code fence, a preamble, an anchor past the end, a title in another "
        "case, lines out of order) are repaired and listed as warnings")
    snap_tolerance: int = Field(DEFAULT_SNAP_TOLERANCE, ge=0, le=5000,
                                json_schema_extra={"advanced": True},
                                description="Offsets mode: characters a position may move")
    cache: bool = Field(True, json_schema_extra={"advanced": True},
                        description="Reuse validated answers from earlier runs")


@dataclass(frozen=True)
class PlannedChunk:
    """A chunk as the boundaries place it, before its metadata arrive."""

    start: int
    end: int
    tokens: int
    chunk_type: ChunkType
    boundary_type: str
    justification: str
    by_model: bool = True  # False: cut by the size limit (the recursive splitter), not asked


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
class EnrichTask:
    doc: int
    segment: int
    piece: int
    phase: Phase[Any, str] | Phase[Any, Any]

    def label(self, runs: list[LLMRun]) -> str:
        run = runs[self.doc]
        return (f"{run.document.source_name}: {self.phase.label} of chunk {self.piece + 1} in "
                f"“{run.segments[self.segment].title}”")


Task = StructureTask | BoundaryTask | EnrichTask


@dataclass(frozen=True)
class RunWarning:
    """One thing an LLM run warns about: a repair tolerant parsing made or an annotation the
    model did not give, as the warning lists and their summaries show it."""

    kind: str  # as the user reads it: "header row dropped", "annotation missing"
    phase: str  # the phase's label ("" for a chunk's missing annotation)
    line_number: int | None
    line: str  # the raw line it changed, or the chunk it concerns
    detail: str


MISSING = "annotation missing"


@dataclass
class LLMRun:
    """Everything one document's run produced, for the chunk list and the Structure page."""

    document: Document
    structure: StructureResult | None = None
    segments: list[SectionSpan] = field(default_factory=list)
    boundaries: list[BoundaryResult | None] = field(default_factory=list)
    planned: list[list[PlannedChunk]] = field(default_factory=list)
    summaries: dict[tuple[int, int], str] = field(default_factory=dict)  # (segment, piece)
    prefixes: dict[tuple[int, int], str] = field(default_factory=dict)
    missing: dict[tuple[int, int], list[MissingAnnotation]] = field(default_factory=dict)
    chunks: list[Chunk] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    repairs: list[Repair] = field(default_factory=list)  # what tolerant parsing changed
    error: ChunkLabError | None = None  # structure or boundaries failed: no chunks
    reading: Reading | None = None  # the stretches its chunks are read in

    @property
    def warnings(self) -> int:
        """Repairs made plus annotations missing."""
        return len(self.repairs) + sum(len(m) for m in self.missing.values())

    def status(self) -> str:
        if self.error is not None:
            return f"failed: {self.error}"
        return f"done with {self.warnings} warning(s)" if self.warnings else "done"

    def warning_list(self) -> list[RunWarning]:
        """Every repair and every missing annotation, in that order."""
        found = [RunWarning(r.name, r.label, r.line_number, r.line, r.detail)
                 for r in self.repairs]
        for k, chunk in enumerate(self.chunks, 1):
            for missing in chunk.llm.missing if chunk.llm else ():
                found.append(RunWarning(MISSING, "", None, f"chunk {k}",
                                        f"no {missing.field.replace('_', ' ')}: {missing.error}"))
        return found

    def warning_lines(self) -> list[str]:
        """One line per kind of repair (how often, and the first raw line it changed), one per
        chunk that lacks an annotation."""
        lines = []
        groups: dict[tuple[str, str], list[Repair]] = {}
        for repair in self.repairs:
            groups.setdefault((repair.label, repair.kind), []).append(repair)
        for (label, _), found in groups.items():
            first = found[0]
            where = f"line {first.line_number}: " if first.line_number is not None else ""
            lines.append(f"{label}: {first.name} ×{len(found)} (first at {where}"
                         f"{first.line[:120]!r})")
        for k, chunk in enumerate(self.chunks, 1):
            for missing in chunk.llm.missing if chunk.llm else ():
                lines.append(f"chunk {k} has no {missing.field.replace('_', ' ')}: "
                             f"{missing.error}")
        return lines

    def size_splits(self) -> list[int]:
        """Indexes of the chunks cut by the size limit without asking the model."""
        planned = [piece for pieces in self.planned for piece in pieces]
        return [k for k, piece in enumerate(planned) if not piece.by_model]

    def checked(self) -> LLMRun:
        """This run, or its error raised."""
        if self.error is not None:
            raise self.error
        return self

    def boundary_list(self) -> list[Boundary]:
        return [b for result in self.boundaries if result for b in result.boundaries]

    def snap_distances(self) -> list[int]:
        return [b.snap_distance for b in self.boundary_list()]

    def path(self, position: int) -> list[str]:
        """The LLM's headings around ``position``, else the document's."""
        found = self.structure.path(position) if self.structure else []
        return found or self.document.heading_path(position)


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
                        self._failed(task, error, runs, pending)
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
                pending: dict[Future[Any], Task]) -> None:
        """An annotation failed: the chunk goes without it. Structure or boundaries failed: the
        document stops (its other requests are dropped), the others go on."""
        run = runs[task.doc]
        if isinstance(task, EnrichTask):
            what = "context_prefix" if task.phase is PREFIX else "summary"
            run.missing.setdefault((task.segment, task.piece), []).append(
                MissingAnnotation(field=what, error=str(error)))
            return
        run.error = error
        for future, other in pending.items():
            if other.doc == task.doc:
                future.cancel()

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
                for j, piece in enumerate(run.planned[k]):
                    summary = TABLE_SUMMARY if piece.chunk_type == "table" else METADATA
                    for phase in (summary, PREFIX):
                        enrich = EnrichTask(task.doc, k, j, phase)
                        submit(enrich, self._enrich, run, piece, phase, repairs[task.doc])
        elif task.phase is PREFIX:
            run.prefixes[(task.segment, task.piece)] = result
        else:
            run.summaries[(task.segment, task.piece)] = result

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
                repairs: Repairs | None) -> str:
        document = run.document
        path = run.path(piece.start)
        text = document.text[piece.start : piece.end]
        room = self.context.budget(phase) - piece.tokens
        shown = run.reading.around(piece.start, room) if run.reading is not None else ""
        if phase is TABLE_SUMMARY:
            table = next((t for t in document.tables if piece.start <= t.start < piece.end), None)
            return self.context.ask(TABLE_SUMMARY, TableRequest(
                document.source_name, text, path, table.caption if table else None, repairs,
                shown))
        request = ChunkRequest(document.source_name, text,
                               HeadingContext.of(path, document.source_name), repairs, shown)
        if phase is METADATA:
            return self.context.ask(METADATA, request).summary
        return self.context.ask(PREFIX, request)

    def _chunks(self, run: LLMRun) -> list[Chunk]:
        factory = ChunkFactory(run.document, STRATEGY, self.config)
        chunks = []
        for k, planned in enumerate(run.planned):
            for j, piece in enumerate(planned):
                annotations = LLMAnnotations(
                    boundary_type=piece.boundary_type, justification=piece.justification,
                    summary=run.summaries.get((k, j)), context_prefix=run.prefixes.get((k, j)),
                    missing=tuple(run.missing.get((k, j), ())),
                )
                chunks.append(factory.make(piece.start, piece.end, tokens=piece.tokens,
                                           chunk_type=piece.chunk_type,
                                           heading_path=run.path(piece.start), llm=annotations))
        return chunks


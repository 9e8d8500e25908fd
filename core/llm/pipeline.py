"""The LLM chunking pipeline: phases 1 → 2 → 3/3b/table summaries, bounded and cancellable.

One scheduler loop hands every request to a thread pool of ``settings.concurrency`` workers and
reacts as each finishes: a document's structure releases its sections' boundary requests, a
section's boundaries release its chunks' metadata, prefix and summary requests. So nothing waits
for a whole phase to end, and several documents share the same bound (``run_many``).

Chunks are cut where the model said, kept off tables (each table is one chunk, whatever its
size), stripped of surrounding whitespace, and split by the recursive splitter when over the size
limit (those cuts are marked ``SIZE_CONSTRAINT``). ``chunk.text == document.text[start:end]``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from core.chunking.base import Chunk, Chunker
from core.chunking.recursive import RecursiveChunker, RecursiveConfig
from core.chunking.table_aware import strip_span, table_span
from core.chunking.token_index import TokenIndex
from core.documents.model import Document
from core.llm import phases
from core.llm.cache import LLMCache
from core.llm.client import LLMClient, LLMError
from core.llm.phases import Boundary, BoundaryResult, StructureResult
from core.prompts.library import PromptLibrary, PromptTemplate

Progress = Callable[[int, int, str], None]
TEMPLATE_NAMES = {
    "anchors": ("structure_analysis", "boundary_detection"),
    "offsets": ("structure_analysis_offsets", "boundary_detection_offsets"),
}
TABLE_CUT = "Tables are kept whole, each in a chunk of its own"
POLL_S = 0.1


class Cancelled(LLMError):
    def __init__(self) -> None:
        super().__init__("LLM chunking was cancelled; nothing was changed")


@dataclass(frozen=True)
class Templates:
    structure: PromptTemplate
    boundaries: PromptTemplate
    metadata: PromptTemplate
    prefix: PromptTemplate
    table: PromptTemplate

    @classmethod
    def load(cls, mode: str = "anchors", library: PromptLibrary | None = None) -> Templates:
        """The active variants of the prompt library for ``mode`` ("anchors" or "offsets")."""
        library = library or PromptLibrary()
        structure, boundaries = TEMPLATE_NAMES[mode]
        return cls(
            structure=library.template(structure),
            boundaries=library.template(boundaries),
            metadata=library.template("chunk_metadata"),
            prefix=library.template("contextual_prefix"),
            table=library.template("table_summary"),
        )

    def versions(self) -> dict[str, str]:
        return {t.name: t.version for t in (self.structure, self.boundaries, self.metadata,
                                            self.prefix, self.table)}


@dataclass(frozen=True)
class Segment:
    """A leaf piece of the LLM's structure: from one section start to the next."""

    title: str
    start: int
    end: int


@dataclass(frozen=True)
class Piece:
    start: int
    end: int
    tokens: int
    chunk_type: str
    boundary_type: str
    justification: str


@dataclass
class LLMRun:
    """Everything one document's run produced, for the chunk list and the Structure page."""

    document: Document
    structure: StructureResult | None = None
    segments: list[Segment] = field(default_factory=list)
    boundaries: list[BoundaryResult | None] = field(default_factory=list)
    pieces: list[list[Piece]] = field(default_factory=list)
    enrichment: dict[tuple[int, int, str], str] = field(default_factory=dict)
    chunks: list[Chunk] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)

    def boundary_list(self) -> list[Boundary]:
        return [b for result in self.boundaries if result for b in result.boundaries]

    def snap_distances(self) -> list[int]:
        return [b.snap_distance for b in self.boundary_list()]


def leaf_segments(document: Document, structure: StructureResult) -> list[Segment]:
    """Partition the text at every section start; text before the first section is its own."""
    starts: dict[int, str] = {}
    for section in sorted(structure.sections, key=lambda s: (s.start, s.level)):
        starts[section.start] = section.title  # the deepest section starting there wins
    if not starts or min(starts) > 0:
        starts[0] = starts.get(0, "(before the first section)")
    positions = sorted(starts)
    ends = [*positions[1:], len(document.text)]
    return [Segment(starts[p], p, e) for p, e in zip(positions, ends, strict=True) if e > p]


class LLMPipeline:
    def __init__(
        self,
        chunker: Chunker,
        client: LLMClient,
        *,
        templates: Templates,
        cache: LLMCache | None = None,
        size: int = 500,
        summaries: bool = True,
        snap_tolerance: int = phases.DEFAULT_SNAP_TOLERANCE,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.chunker = chunker
        self.client = client
        self.templates = templates
        self.cache = cache if cache is not None else LLMCache(enabled=False)
        self.size = size
        self.summaries = summaries
        self.snap_tolerance = snap_tolerance
        self.progress = progress
        self.cancel = cancel or threading.Event()
        self._splitter = RecursiveChunker(
            RecursiveConfig(size=size, overlap=0, tables=False, encoding=chunker.config.encoding)
        )

    def run(self, document: Document) -> LLMRun:
        return self.run_many([document])[0]

    def run_many(self, documents: list[Document]) -> list[LLMRun]:
        runs = [LLMRun(document) for document in documents]
        indexes = [TokenIndex(d.text, self.chunker.config.encoding) for d in documents]
        pool = ThreadPoolExecutor(self.client.settings.concurrency, thread_name_prefix="llm")
        pending: dict[Future[Any], tuple[Any, ...]] = {}
        finished = 0

        def submit(tag: tuple[Any, ...], fn: Callable[..., Any], *args: Any, **kw: Any) -> None:
            pending[pool.submit(fn, *args, **kw)] = tag

        try:
            for i, run in enumerate(runs):
                submit(("structure", i), phases.analyze_structure, self.client, run.document,
                       self.templates.structure, cache=self.cache,
                       snap_tolerance=self.snap_tolerance)
            while pending:
                if self.cancel.is_set():
                    raise Cancelled()
                done, _ = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
                for future in done:
                    tag = pending.pop(future)
                    self._handle(tag, future.result(), runs, indexes, submit)
                    finished += 1
                    if self.progress:
                        self.progress(finished, finished + len(pending), self._label(tag, runs))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        stats = self.cache.stats.as_dict()
        for run in runs:
            run.chunks = self._chunks(run)
            run.stats = stats
        return runs

    # --- scheduling ----------------------------------------------------------------------
    def _handle(self, tag, result, runs, indexes, submit) -> None:
        kind, i = tag[0], tag[1]
        run = runs[i]
        if kind == "structure":
            run.structure = result
            run.segments = leaf_segments(run.document, result)
            run.boundaries = [None] * len(run.segments)
            run.pieces = [[] for _ in run.segments]
            for k, segment in enumerate(run.segments):
                submit(("boundaries", i, k), phases.detect_boundaries, self.client, run.document,
                       segment, self.templates.boundaries, self.size, cache=self.cache,
                       snap_tolerance=self.snap_tolerance)
        elif kind == "boundaries":
            k = tag[2]
            run.boundaries[k] = result
            run.pieces[k] = self._pieces(run, k, result, indexes[i])
            if self.summaries:
                for j, piece in enumerate(run.pieces[k]):
                    summary = "table" if piece.chunk_type == "table" else "metadata"
                    for what in (summary, "prefix"):
                        submit(("enrich", i, k, j, what), self._enrich, run, piece, what)
        else:
            run.enrichment[tag[2:]] = result

    @staticmethod
    def _label(tag: tuple[Any, ...], runs: list[LLMRun]) -> str:
        name = runs[tag[1]].document.source_name
        if tag[0] == "structure":
            return f"{name}: structure analysed"
        if tag[0] == "boundaries":
            return f"{name}: boundaries of “{runs[tag[1]].segments[tag[2]].title}”"
        return f"{name}: {tag[4]} of chunk {tag[3] + 1} in “{runs[tag[1]].segments[tag[2]].title}”"

    # --- chunks --------------------------------------------------------------------------
    def _pieces(
        self, run: LLMRun, k: int, result: BoundaryResult, index: TokenIndex
    ) -> list[Piece]:
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
        pieces: list[Piece] = []
        for p, q in zip(positions, [*positions[1:], segment.end], strict=True):
            kind, why = cuts[p]
            is_table = any(a <= p and q <= b for a, b in tables)
            a, b = strip_span(document.text, p, q)
            if b <= a:
                continue
            tokens = index.count(a, b)
            if is_table or tokens <= self.size:
                pieces.append(Piece(a, b, tokens, "table" if is_table else "text", kind, why))
                continue
            for n, (x, y, count) in enumerate(self._splitter.split(index, a, b)):
                if n == 0:
                    pieces.append(Piece(x, y, count, "text", kind, why))
                else:
                    pieces.append(Piece(x, y, count, "text", "SIZE_CONSTRAINT",
                                        f"Over {self.size} tokens: split by the recursive "
                                        "splitter"))
        return pieces

    def _context(self, run: LLMRun, position: int) -> list[str]:
        assert run.structure is not None
        return run.structure.path(position) or run.document.heading_path(position)

    def _enrich(self, run: LLMRun, piece: Piece, what: str) -> str:
        document = run.document
        path = self._context(run, piece.start)
        chapter = path[0] if path else document.source_name
        section = path[1] if len(path) > 1 else chapter
        subsection = path[2] if len(path) > 2 else None
        text = document.text[piece.start : piece.end]
        if what == "table":
            table = next((t for t in document.tables if piece.start <= t.start < piece.end), None)
            return phases.table_summary(
                self.client, document, text, self.templates.table, heading_path=path,
                caption=table.caption if table else None, cache=self.cache,
            )
        if what == "metadata":
            return phases.chunk_metadata(
                self.client, document, text, self.templates.metadata, chapter=chapter,
                section=section, cache=self.cache,
            ).summary
        return phases.contextual_prefix(
            self.client, document, text, self.templates.prefix, chapter=chapter,
            section=section, subsection=subsection, cache=self.cache,
        )

    def _chunks(self, run: LLMRun) -> list[Chunk]:
        chunks = []
        for k, pieces in enumerate(run.pieces):
            for j, piece in enumerate(pieces):
                summary = run.enrichment.get((k, j, "table")) or run.enrichment.get(
                    (k, j, "metadata")
                )
                chunk = self.chunker.make_chunk(
                    run.document, piece.start, piece.end, tokens=piece.tokens,
                    chunk_type=piece.chunk_type, boundary_type=piece.boundary_type,
                    justification=piece.justification, summary=summary,
                    context_prefix=run.enrichment.get((k, j, "prefix")),
                )
                path = self._context(run, piece.start)
                chunks.append(chunk.model_copy(update={"heading_path": path}) if path else chunk)
        return chunks

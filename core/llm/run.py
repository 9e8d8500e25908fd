"""What one document's LLM chunking run produced: the structure, the sections' boundaries, the
planned chunks and their annotations, the repairs and what went missing (see
:mod:`core.llm.pipeline`, which fills it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.chunking.chunk import Chunk, ChunkType, MissingAnnotation
from core.documents.model import Document
from core.errors import ChunkLabError
from core.llm.anchors import Mode
from core.llm.phase import Usage
from core.llm.phases.boundaries import Boundary, BoundaryResult, SectionSpan, boundary_row
from core.llm.phases.chunk_phase import Reading
from core.llm.phases.structure import StructureResult, section_row
from core.llm.replies.repairs import Repair


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
    summarised: set[int] = field(default_factory=set)  # stretches whose summaries are asked

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

    def boundary_rows(self, mode: Mode) -> list[dict[str, object]]:
        """Its boundaries as table rows (what the model said and how far it moved in offsets
        ``mode``)."""
        return [boundary_row(b, mode) for b in self.boundary_list()]

    def section_rows(self) -> list[dict[str, object]]:
        """The LLM's sections as table rows (how far each moved when positions were offsets)."""
        if self.structure is None:
            return []
        return [section_row(s, self.structure.mode) for s in self.structure.sections]

    def snap_distances(self) -> list[int]:
        return [b.snap_distance for b in self.boundary_list()]

    def path(self, position: int) -> list[str]:
        """The LLM's headings around ``position``, else the document's."""
        found = self.structure.path(position) if self.structure else []
        return found or self.document.heading_path(position)


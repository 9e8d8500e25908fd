"""Phase 3, chunk metadata: chapter, section and subsection titles and a searchable summary.

One TSV line ``chapter_title section_title subsection_title summary``. An invalid answer is asked
once more.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.llm.answers.checks import max_answer_chars
from core.llm.answers.reader import Columns, tsv_lines
from core.llm.answers.repairs import Repairs, tolerantly
from core.llm.errors import TSVError
from core.llm.phase import PhaseInput, PhaseView, marked
from core.llm.phases.chunk_phase import NO_SUBSECTION, ChunkPhase, ChunkRequest

LABEL = "phase 3 (chunk metadata)"
COLUMNS = ("chapter_title", "section_title", "subsection_title", "summary")
NONE = "NONE"


@dataclass(frozen=True)
class MetadataRow:
    """What the model says about a chunk: the titles it sits under and its summary."""

    titles: tuple[str, str, str | None]  # chapter, section, subsection (None: no subsection)
    summary: str

    def as_row(self) -> dict[str, str | None]:
        chapter, section, subsection = self.titles
        return {"chapter_title": chapter, "section_title": section,
                "subsection_title": subsection, "summary": self.summary}


def parse_metadata(text: str, *, label: str = LABEL, repairs: Repairs | None = None,
                   max_chars: int | None = None) -> MetadataRow:
    """Exactly one line ``chapter section subsection summary``."""
    lines = tsv_lines(label, text, COLUMNS, repairs, max_chars=max_chars)
    if len(lines) != 1:
        raise TSVError.on(label, "expected a single line of metadata", lines[1])
    chapter, section, subsection, summary = lines[0].cells
    none = subsection in ("", NONE) or subsection.casefold() == NO_SUBSECTION  # as shown
    return MetadataRow((chapter, section, None if none else subsection), summary)


class MetadataPhase(ChunkPhase[MetadataRow]):
    name = "chunk_metadata"
    label = LABEL
    template = "chunk_metadata"
    answer_tokens = 256  # one TSV line: three titles and a one-sentence summary

    def columns(self, request: ChunkRequest) -> Columns:
        return Columns(COLUMNS)

    def parse(self, answer: str, request: ChunkRequest) -> MetadataRow:
        return tolerantly(request.repairs, lambda repairs: parse_metadata(
            answer, label=self.label, repairs=repairs, max_chars=max_answer_chars(request.text)))

    def view(self, result: MetadataRow, source: PhaseInput) -> PhaseView:
        row = result.as_row()
        return PhaseView(rows=[row], items=[f"{k}: {v}" for k, v in row.items()],
                         spans=marked(source.chunk, "chunk"))


METADATA = MetadataPhase()

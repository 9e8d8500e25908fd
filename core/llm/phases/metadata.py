"""Phase 3, chunk metadata: chapter, section and subsection titles and a searchable summary.

One TSV line ``chapter_title section_title subsection_title summary``. An invalid answer is asked
once more. A server with structured output is asked for the summary alone, of at most
:data:`SUMMARY_CHARS` characters: the titles are the ones the prompt shows, and a small model
writing them out again spends a third of its answer on them; asked for 15-40 words, a 1.5 B
model still copied whole chunks (130 answer tokens, 8 s each), which the limit cuts short (it
mostly copies the chunk's opening sentences still: the limit bounds the cost, not the habit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.llm.answers.checks import max_answer_chars, whole_words
from core.llm.answers.reader import Columns, tsv_lines
from core.llm.answers.repairs import Repairs, tolerantly
from core.llm.errors import TSVError
from core.llm.phase import PhaseInput, PhaseView, marked
from core.llm.phases.chunk_phase import NO_SUBSECTION, ChunkPhase, ChunkRequest
from core.llm.structured import rows_as_tsv, rows_schema

LABEL = "phase 3 (chunk metadata)"
COLUMNS = ("chapter_title", "section_title", "subsection_title", "summary")
NONE = "NONE"
SUMMARY_CHARS = 200  # the template's 10-25 words, with room


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
    compact = True  # one row of one sentence: indentation would be a fifth of the answer

    def columns(self, request: ChunkRequest) -> Columns:
        return Columns(COLUMNS)

    def answer_schema(self, request: ChunkRequest) -> dict[str, Any]:
        return rows_schema(COLUMNS[-1:], max_rows=1, max_chars=SUMMARY_CHARS)

    def rows_from_json(self, answer: str, request: ChunkRequest) -> str:
        context = request.context
        titles = (context.chapter, context.section, context.subsection or NONE)
        # a summary that reached the limit was stopped by it
        return "\n".join("\t".join((*titles, whole_words(summary, SUMMARY_CHARS - 1)))
                         for summary in rows_as_tsv(answer, COLUMNS[-1:]).splitlines())

    def parse(self, answer: str, request: ChunkRequest) -> MetadataRow:
        return tolerantly(request.repairs, lambda repairs: parse_metadata(
            answer, label=self.label, repairs=repairs, max_chars=max_answer_chars(request.text)))

    def view(self, result: MetadataRow, source: PhaseInput) -> PhaseView:
        row = result.as_row()
        return PhaseView(rows=[row], items=[f"{k}: {v}" for k, v in row.items()],
                         spans=marked(source.chunk, "chunk"))


METADATA = MetadataPhase()

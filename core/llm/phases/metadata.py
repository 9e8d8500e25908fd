"""Phase 3, chunk metadata: chapter, section and subsection titles and a searchable summary.

One TSV line ``chapter_title section_title subsection_title summary``. An invalid answer is asked
once more. A server with structured output is asked for the summary alone, of at most
:data:`SUMMARY_CHARS` characters: the titles are the ones the prompt shows, and a small model
writing them out again spends a third of its answer on them.

The summary is one sentence starting "The chunk", held to a reporting verb by the schema's
pattern (:data:`SUMMARY_PATTERN`; llama.cpp holds it through a grammar, and ignores it in a
``response_format``), and kept without those two words ("Describes …").
Asked for "10-25 words of your own", the bundled 1.5 B model copied the chunk's opening sentence
for four summaries in five; made to begin "The chunk describes", it reports on the chunk
instead (one copy in sixteen, measured on the shipped samples).
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
from core.prompts.library import PromptTemplate

LABEL = "phase 3 (chunk metadata)"
COLUMNS = ("chapter_title", "section_title", "subsection_title", "summary")
NONE = "NONE"
SUMMARY_CHARS = 200  # the template's 10-25 words, with room
SUMMARY_OPENING = "The chunk "
SUMMARY_VERBS = ("describes", "explains", "lists", "sets out", "defines", "gives", "compares")
SUMMARY_PATTERN = f"^{SUMMARY_OPENING}({'|'.join(SUMMARY_VERBS)}) "


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
    return MetadataRow((chapter, section, None if none else subsection), reported(summary))


def reported(summary: str) -> str:
    """The summary without the opening the template asks for: "The chunk lists …" → "Lists …"
    (any other summary as it is)."""
    opening = SUMMARY_OPENING.casefold()
    rest = summary[len(opening):] if summary.casefold().startswith(opening) else ""
    if not any(rest.casefold().startswith(verb + " ") for verb in SUMMARY_VERBS):
        return summary
    return rest[:1].upper() + rest[1:]


class MetadataPhase(ChunkPhase[MetadataRow]):
    name = "chunk_metadata"
    label = LABEL
    template = "chunk_metadata"
    answer_tokens = 256  # one TSV line: three titles and a one-sentence summary
    compact = True  # one row of one sentence: indentation would be a fifth of the answer

    def columns(self, request: ChunkRequest) -> Columns:
        return Columns(COLUMNS)

    def answer_schema(self, request: ChunkRequest, template: PromptTemplate) -> dict[str, Any]:
        # the opening only where the template asks for it (an edited one may ask for another)
        asked = f'"{SUMMARY_OPENING.strip()}"' in template.text
        return rows_schema(COLUMNS[-1:], max_rows=1, max_chars=SUMMARY_CHARS,
                           pattern=SUMMARY_PATTERN if asked else None)

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

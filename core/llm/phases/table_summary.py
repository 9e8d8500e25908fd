"""Table summary: a few sentences of prose that describe a table chunk, embedded instead of it.

One paragraph of 10–1,000 characters that does not copy the table; an invalid answer is asked
once more.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.llm.cache import digest
from core.llm.errors import TSVError
from core.llm.phase import OneRequestPhase, window_budget
from core.llm.phases.chunk_phase import Reading, stretch_name
from core.llm.replies.checks import one_paragraph
from core.llm.replies.repairs import Repairs, tolerantly
from core.llm.settings import LLMSettings
from core.llm.trial import PhaseInput, PhaseView, marked, need
from core.prompts.template import PromptTemplate

SUMMARY_CHARS = (10, 1000)
LABEL = "table summary"


@dataclass(frozen=True)
class TableRequest:
    document_name: str
    table_text: str  # the table chunk's text (its caption included when it has one)
    heading_path: list[str]
    caption: str | None
    repairs: Repairs | None = field(default=None, compare=False)  # None: strict parsing
    document_text: str = ""  # the stretch of the document the table is read in (see Reading)

    @property
    def path(self) -> str:
        return " > ".join(self.heading_path) or self.document_name


def parse_table_summary(text: str, *, label: str = LABEL, repairs: Repairs | None = None) -> str:
    """Plain prose, not a copy of the table."""
    summary = one_paragraph(label, text, SUMMARY_CHARS, repairs)
    if summary.lstrip().startswith("|"):
        raise TSVError(label, "the summary copies the table instead of describing it",
                       line_number=1, line=summary)
    return summary


def table_request(source: PhaseInput, budget: int) -> TableRequest:
    document = need(source.document, "a document")
    table = need(source.table, "a table")
    return TableRequest(document.source_name, table.markdown,
                        document.heading_path(table.start), table.caption,
                        document_text=Reading.shown(document, table.start, table.markdown,
                                                    budget))


class TableSummaryPhase(OneRequestPhase[TableRequest, str]):
    name = "table_summary"
    label = LABEL
    template = "table_summary"
    answer_tokens = 200  # one or two sentences of 20-60 words
    inputs = ("document", "table")
    text_placeholder = "table_markdown"

    def values(self, request: TableRequest) -> dict[str, str]:
        return {"document_id": request.document_name, "document_text": request.document_text,
                "heading_path": request.path, "table_caption": request.caption or "none",
                "table_markdown": request.table_text}

    def cache_content(self, request: TableRequest) -> dict[str, object]:
        return {"chunk": digest(request.table_text, request.document_name, request.path,
                                request.caption), "document": digest(request.document_text)}

    def shared_prefix(self, request: TableRequest) -> str:
        return stretch_name(request.document_name, request.document_text)

    def parse(self, answer: str, request: TableRequest) -> str:
        return tolerantly(request.repairs, lambda repairs: parse_table_summary(
            answer, label=self.label, repairs=repairs))

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> TableRequest:
        return table_request(source, window_budget(settings, template))

    def view(self, result: str, source: PhaseInput) -> PhaseView:
        return PhaseView(rows=[{"summary": result}], items=[result],
                         spans=marked(source.table, "table"))


TABLE_SUMMARY = TableSummaryPhase()

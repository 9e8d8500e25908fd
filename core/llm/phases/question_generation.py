"""Question generation: the model reads a passage (or a table) and writes one question that the
passage answers, with the exact excerpt(s) that answer it, as one JSON object.

``{"question": "...", "excerpts": ["exact text copied from the passage", ...]}``. The questions
already asked about the document are listed in the prompt, so the next one differs. Where the
excerpts lie in the document is not the model's business: the question-set maker locates them
(:func:`core.evaluation.excerpts.locate`). An answer that is not such an object is asked again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.documents.model import TextSpan
from core.evaluation.excerpts import locate
from core.llm.answers.checks import check_answer
from core.llm.cache import digest
from core.llm.errors import TSVError
from core.llm.phase import OneRequestPhase, PhaseInput, PhaseView, need
from core.llm.settings import LLMSettings
from core.prompts.library import PromptTemplate

LABEL = "question generation"
PREVIEW_CHARS = 6000  # of a section shown when the Prompts page tries the template
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["question", "excerpts"], "additionalProperties": False,
    "properties": {"question": {"type": "string"},
                   "excerpts": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                                "maxItems": 3}}}
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


@dataclass(frozen=True)
class QuestionRequest:
    document_name: str
    heading_path: tuple[str, ...]
    passage: str
    start: int  # where the passage starts in Document.text
    kind: str = "text"  # "table": the passage is a table and the question asks about it
    previous: tuple[str, ...] = ()  # questions already asked about this document


@dataclass(frozen=True)
class GeneratedQuestion:
    question: str
    excerpts: tuple[str, ...]


def parse_generated(text: str, *, label: str = LABEL) -> GeneratedQuestion:
    """One JSON object with a non-empty ``question`` and a non-empty list of ``excerpts``
    (a Markdown code fence around it is tolerated: models add one often)."""
    stripped = _FENCE.sub("", (text or "").strip())
    body = check_answer(label, stripped)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as err:
        raise TSVError(label, f"the answer is not JSON ({err.msg})", line_number=err.lineno,
                       line=body.splitlines()[err.lineno - 1] if body else "") from None
    if not isinstance(data, dict):
        raise TSVError(label, "expected one JSON object with question and excerpts")
    question, excerpts = data.get("question"), data.get("excerpts")
    if not isinstance(question, str) or not question.strip():
        raise TSVError(label, "the object has no question")
    if (not isinstance(excerpts, list) or not excerpts
            or not all(isinstance(e, str) and e.strip() for e in excerpts)):
        raise TSVError(label, "excerpts must be a non-empty list of texts copied from the passage")
    return GeneratedQuestion(question.strip(), tuple(excerpts))


class QuestionGenerationPhase(OneRequestPhase[QuestionRequest, GeneratedQuestion]):
    name = "question_generation"
    label = LABEL
    template = "question_generation"
    inputs = ("document", "section", "table")
    text_placeholder = "passage"

    def answer_schema(self, request: QuestionRequest) -> dict[str, Any]:
        return ANSWER_SCHEMA

    def values(self, request: QuestionRequest) -> dict[str, str]:
        previous = "\n".join(f"- {q}" for q in request.previous) or "none yet"
        return {"document_id": request.document_name,
                "heading_path": " > ".join(request.heading_path) or request.document_name,
                "passage_kind": "a table (Markdown)" if request.kind == "table" else "a passage",
                "passage": request.passage, "previous_questions": previous}

    def cache_content(self, request: QuestionRequest) -> dict[str, object]:
        return {"passage": digest(request.passage, request.document_name, request.heading_path,
                                  request.kind, request.previous)}

    def parse(self, answer: str, request: QuestionRequest) -> GeneratedQuestion:
        return parse_generated(answer, label=self.label)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> QuestionRequest:
        document = need(source.document, "a document")
        if source.table is not None:
            span: TextSpan = source.table
            kind = "table"
        else:
            span = source.section or TextSpan(start=0, end=len(document.text))
            kind = "text"
        passage = document.text[span.start : min(span.end, span.start + PREVIEW_CHARS)]
        return QuestionRequest(document.source_name, tuple(document.heading_path(span.start)),
                               passage, span.start, kind)

    def view(self, result: GeneratedQuestion, source: PhaseInput) -> PhaseView:
        document = source.document
        found = [locate(e, document.text) if document else None for e in result.excerpts]
        missing = sum(1 for f in found if f is None)
        return PhaseView(
            rows=[{"question": result.question, "excerpt": e} for e in result.excerpts],
            items=[result.question, *result.excerpts],
            spans=[(f[0], f[1], "excerpt") for f in found if f is not None],
            warning=(f"{missing} excerpt(s) not found in the document; the question would be "
                     "dropped." if missing else None),
        )


QUESTION_GENERATION = QuestionGenerationPhase()

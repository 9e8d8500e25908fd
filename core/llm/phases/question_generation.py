"""Question generation: the model reads one passage (or a table) and writes one question that
the passage answers, with its short answer, as one JSON object.

``{"question": "...", "answer": "..."}``. The model is not asked to quote the excerpt: a small
one rewrites or invents it. The excerpt is the passage's sentence or row that holds the answer,
chosen by :func:`core.evaluation.answer_excerpt.choose_excerpt`, so it is always an exact span.
Nor is it shown the questions already asked: a small model copies them instead of reading the
passage; repeats are avoided by asking about passages far apart. A variant written for quoted
``excerpts`` still works: each quote is read as an answer, and its excerpt chosen the same way.
An answer that is not such an object is asked again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.documents.model import Document, TextSpan
from core.evaluation.answer_excerpt import choose_excerpt
from core.llm.cache import digest
from core.llm.errors import TSVError
from core.llm.phase import OneRequestPhase
from core.llm.replies.checks import check_answer
from core.llm.settings import LLMSettings
from core.llm.trial import PhaseInput, PhaseView, need
from core.prompts.template import PromptTemplate

LABEL = "question generation"
PREVIEW_CHARS = 6000  # of a section shown when the Prompts page tries the template
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["question", "answer"], "additionalProperties": False,
    "properties": {"question": {"type": "string"}, "answer": {"type": "string"}}}
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


@dataclass(frozen=True)
class QuestionRequest:
    document_name: str
    heading_path: tuple[str, ...]
    passage: str
    start: int  # where the passage starts in Document.text
    kind: str = "text"  # "table": the passage is a table and the question asks about it

    @property
    def end(self) -> int:
        return self.start + len(self.passage)


@dataclass(frozen=True)
class GeneratedQuestion:
    question: str
    answers: tuple[str, ...]  # the passage's words that answer it, as the model gives them


def json_object(text: str, label: str, holding: str) -> dict[str, Any]:
    """The one JSON object of a model's answer (a Markdown code fence around it is tolerated:
    models add one often); ``holding`` names its fields in the error."""
    body = check_answer(label, _FENCE.sub("", (text or "").strip()))
    try:
        data = json.loads(body)
    except json.JSONDecodeError as err:
        raise TSVError(label, f"the answer is not JSON ({err.msg})", line_number=err.lineno,
                       line=body.splitlines()[err.lineno - 1] if body else "") from None
    if not isinstance(data, dict):
        raise TSVError(label, f"expected one JSON object with {holding}")
    return data


def parse_generated(text: str, *, label: str = LABEL) -> GeneratedQuestion:
    """One JSON object with a non-empty ``question`` and a non-empty ``answer`` (or, from a
    variant that asks for them, a list of quoted ``excerpts``, each read as an answer)."""
    data = json_object(text, label, "question and answer")
    question, answer = data.get("question"), data.get("answer", data.get("excerpts"))
    if not isinstance(question, str) or not question.strip():
        raise TSVError(label, "the object has no question")
    answers = answer if isinstance(answer, list) else [answer]
    if not answers or not all(isinstance(a, str) and a.strip() for a in answers):
        raise TSVError(label, "the object has no answer (the passage's words that answer)")
    return GeneratedQuestion(question.strip(), tuple(dict.fromkeys(a.strip() for a in answers)))


class QuestionGenerationPhase(OneRequestPhase[QuestionRequest, GeneratedQuestion]):
    name = "question_generation"
    label = LABEL
    template = "question_generation"
    inputs = ("document", "section", "table")
    text_placeholder = "passage"
    answer_tokens = 200  # a question and a short answer

    def answer_schema(self, request: QuestionRequest, template: PromptTemplate) -> dict[str, Any]:
        return ANSWER_SCHEMA

    def values(self, request: QuestionRequest) -> dict[str, str]:
        return {"document_id": request.document_name,
                "heading_path": " > ".join(request.heading_path) or request.document_name,
                "passage_kind": "a table (Markdown)" if request.kind == "table" else "a passage",
                "passage": request.passage}

    def cache_content(self, request: QuestionRequest) -> dict[str, object]:
        return {"passage": digest(request.passage, request.document_name, request.heading_path,
                                  request.kind)}

    def parse(self, answer: str, request: QuestionRequest) -> GeneratedQuestion:
        return parse_generated(answer, label=self.label)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> QuestionRequest:
        return passage_request(source)

    def view(self, result: GeneratedQuestion, source: PhaseInput) -> PhaseView:
        document, start, end, _ = passage_piece(source)
        chosen = [choose_excerpt(a, result.question, document, start, end)
                  for a in result.answers]
        spans = [c for c in chosen if isinstance(c, tuple)]
        excerpts = [document.text[c[0] : c[1]] if isinstance(c, tuple) else "" for c in chosen]
        missing = next((c for c in chosen if isinstance(c, str)), None)
        return PhaseView(
            rows=[{"question": result.question, "answer": a, "excerpt": e}
                  for a, e in zip(result.answers, excerpts, strict=True)],
            items=[result.question, *result.answers, *excerpts],
            spans=[(a, b, "excerpt") for a, b in spans],
            warning=f"{missing[0].upper()}{missing[1:]}: the question would be dropped."
            if missing else None)


def passage_request(source: PhaseInput) -> QuestionRequest:
    """The request about the passage a test on the Prompts page asks about."""
    document, start, end, kind = passage_piece(source)
    return QuestionRequest(document.source_name, tuple(document.heading_path(start)),
                           document.text[start:end], start, kind)


def passage_piece(source: PhaseInput) -> tuple[Document, int, int, str]:
    """The document, the start and end of the passage a test asks about, and its kind: the
    table or section chosen on the Prompts page (its first :data:`PREVIEW_CHARS`)."""
    document = need(source.document, "a document")
    span: TextSpan = source.table or source.section or TextSpan(start=0, end=len(document.text))
    end = min(span.end, span.start + PREVIEW_CHARS)
    return document, span.start, end, "table" if source.table is not None else "text"


QUESTION_GENERATION = QuestionGenerationPhase()

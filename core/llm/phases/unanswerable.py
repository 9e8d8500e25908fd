"""Unanswerable questions: the model reads one passage and writes one question a reader of the
document might ask about its subject that neither the passage nor the rest of the document
answers, as one JSON object: ``{"question": "..."}``.

A good answer to such a question says the sources do not answer it, which is what the Answers
page's abstention grades measure. The model's word is not taken for it: the question is checked
against the documents (:func:`core.evaluation.unanswerable.answering_passage`) and dropped when
a passage holds every word it asks about.
"""

from __future__ import annotations

from typing import Any

from core.evaluation.unanswerable import answering_passage
from core.llm.cache import digest
from core.llm.errors import TSVError
from core.llm.phase import OneRequestPhase
from core.llm.phases.question_generation import (
    QuestionRequest,
    json_object,
    passage_piece,
    passage_request,
)
from core.llm.settings import LLMSettings
from core.llm.trial import PhaseInput, PhaseView
from core.prompts.template import PromptTemplate

LABEL = "unanswerable question"
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["question"], "additionalProperties": False,
    "properties": {"question": {"type": "string"}}}


def parse_unanswerable(text: str, *, label: str = LABEL) -> str:
    """The non-empty ``question`` of one JSON object."""
    question = json_object(text, label, "a question").get("question")
    if not isinstance(question, str) or not question.strip():
        raise TSVError(label, "the object has no question")
    return question.strip()


class UnanswerableQuestionPhase(OneRequestPhase[QuestionRequest, str]):
    name = "unanswerable_question"
    label = LABEL
    template = "unanswerable_question"
    inputs = ("document", "section")
    text_placeholder = "passage"
    answer_tokens = 100  # one question

    def answer_schema(self, request: QuestionRequest, template: PromptTemplate) -> dict[str, Any]:
        return ANSWER_SCHEMA

    def values(self, request: QuestionRequest) -> dict[str, str]:
        return {"document_id": request.document_name,
                "heading_path": " > ".join(request.heading_path) or request.document_name,
                "passage": request.passage}

    def cache_content(self, request: QuestionRequest) -> dict[str, object]:
        return {"passage": digest(request.passage, request.document_name, request.heading_path)}

    def parse(self, answer: str, request: QuestionRequest) -> str:
        return parse_unanswerable(answer, label=self.label)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> QuestionRequest:
        return passage_request(source)

    def view(self, result: str, source: PhaseInput) -> PhaseView:
        document, _, _, _ = passage_piece(source)
        answered = answering_passage(result, [document])
        return PhaseView(rows=[{"question": result}], items=[result],
                         warning=f"{answered}: the question would be dropped." if answered
                         else None)


UNANSWERABLE_QUESTION = UnanswerableQuestionPhase()

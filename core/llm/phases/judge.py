"""The answer judge: the model grades one RAG answer's faithfulness to the passages it was
given, 1 to 5, with its reason. Asked only when an answer run switches the judge on; its
figures are reported apart from the grades made without an LLM. The answer is read leniently
(the first JSON object with a score); one without a usable score is "not judged", never an
error."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from core.llm.client import LLMRequest
from core.llm.phase import OneRequestPhase, PhaseContext
from core.llm.phases.answer import reference_entries
from core.llm.settings import LLMSettings
from core.llm.trial import PhaseInput, PhaseView
from core.prompts.template import PromptTemplate

SCORES = range(1, 6)
_OBJECT = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class JudgeRequest:
    question: str
    sources: str  # the numbered passages, as the answer's prompt labelled them
    answer: str


@dataclass(frozen=True)
class Judgement:
    faithfulness: int | None  # 1-5; None: the model gave no usable score
    reason: str


def parse_judgement(raw: str) -> Judgement:
    """The score and reason of the first JSON object that has a score; never raises."""
    for match in _OBJECT.finditer(raw or ""):
        try:
            value = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        score = value.get("faithfulness") if isinstance(value, dict) else None
        if isinstance(score, int | float | str) and str(score).strip().isdigit() \
                and int(str(score).strip()) in SCORES:
            return Judgement(int(str(score).strip()), str(value.get("reason", "")).strip())
    return Judgement(None, (raw or "").strip()[:300] or "The judge gave no answer.")


class JudgePhase(OneRequestPhase[JudgeRequest, Judgement]):
    name = "answer_judge"
    label = "answer judge"
    template = "judge"
    answer_tokens = 160  # a score and one sentence
    inputs = ("document", "question")
    retries = 0  # every answer parses: "not judged" is a result

    def values(self, request: JudgeRequest) -> dict[str, str]:
        return {"question": request.question, "sources": request.sources,
                "answer": request.answer}

    def request(self, prompt: str, template: PromptTemplate, context: PhaseContext) -> LLMRequest:
        """At temperature 0: the same answer is judged the same way."""
        return replace(super().request(prompt, template, context), temperature=0.0)

    def cache_content(self, request: JudgeRequest) -> dict[str, object] | None:
        """A judgement depends only on what it reads: asked once per answer and sources."""
        return {"question": request.question, "sources": request.sources,
                "answer": request.answer}

    def parse(self, answer: str, request: JudgeRequest) -> Judgement:
        return parse_judgement(answer)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> JudgeRequest:
        """On the Prompts page: the passages retrieved for the question, and an answer that
        quotes the best one."""
        entries = reference_entries(source)
        quoted = entries[0].split("\n", 1)[-1][:300] if entries else ""
        return JudgeRequest(source.question, "\n\n".join(entries), f"{quoted} [¹]")

    def view(self, result: Judgement, source: PhaseInput) -> PhaseView:
        score = "not judged" if result.faithfulness is None else f"{result.faithfulness}/5"
        return PhaseView(rows=[{"faithfulness": score, "reason": result.reason}],
                         items=[f"{score}: {result.reason}"])


JUDGE = JudgePhase()

"""Topic detection: does the latest message continue the conversation's topic, and what is it.

The answer is read leniently: the JSON object is found inside whatever the model wrapped around
it (prose, code fences). When no usable object is there, the fallback applies — status
``continuation``, the raw answer as summary — and ``warning`` says so in a sentence the page shows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.llm.phase import OneRequestPhase
from core.llm.settings import LLMSettings
from core.llm.trial import Conversation, PhaseInput, PhaseView
from core.prompts.template import PromptTemplate

STATUSES = ("continuation", "new_topic")
FIELDS = ("topic_status", "topic_summary")
NO_TOPIC = "none"
_HINT = "This may mean the model is too small or the prompt needs adjustment."


@dataclass(frozen=True)
class TopicResult:
    status: str  # "continuation" | "new_topic"
    summary: str
    warning: str | None = None  # set when the fallback or a repair was used
    raw: str = ""


def _json_objects(raw: str) -> list[dict[str, Any]]:
    """Every JSON object that can be decoded starting at a ``{`` in ``raw``, outermost first."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    position = raw.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(raw, position)
        except json.JSONDecodeError:
            position = raw.find("{", position + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        position = raw.find("{", end)
    return found


def _fallback(raw: str, reason: str) -> TopicResult:
    summary = raw.strip()
    return TopicResult(
        status="continuation",
        summary=summary,
        warning=f"{reason} Using the fallback: continuation, with the raw answer as summary. "
        f"{_HINT}",
        raw=raw,
    )


def parse_topic_answer(raw: str) -> TopicResult:
    """Status and summary from the model's answer; never raises."""
    if not raw or not raw.strip():
        return _fallback(raw or "", "The model's answer is empty.")
    objects = _json_objects(raw)
    candidates = [o for o in objects if any(k in o for k in FIELDS)]
    if not candidates:
        reason = ("The model's answer has no JSON object with topic_status / topic_summary."
                  if objects or "{" not in raw else "The model's JSON could not be parsed.")
        return _fallback(raw, reason)
    answer = candidates[0]
    status, summary = answer.get("topic_status"), answer.get("topic_summary")
    if status not in STATUSES:
        return _fallback(
            raw, f"topic_status is {status!r}, not \"continuation\" or \"new_topic\"."
        )
    if not isinstance(summary, str) or not summary.strip():
        return _fallback(raw, "topic_summary is missing or empty.")
    extra = sorted(set(answer) - set(FIELDS))
    warning = None
    if extra:
        warning = f"The model added fields the format forbids ({', '.join(extra)}); ignored them."
    return TopicResult(status=status, summary=summary.strip(), warning=warning, raw=raw)


class TopicPhase(OneRequestPhase[Conversation, TopicResult]):
    name = "topic_detection"
    label = "topic detection"
    template = "topic_detection"
    answer_tokens = 128  # a two-field JSON object
    inputs = ("conversation",)
    retries = 0  # every answer parses: the fallback is the result

    def values(self, request: Conversation) -> dict[str, str]:
        """An empty current topic is shown as "none"."""
        return {
            "currentTopic": request.current_topic.strip() or NO_TOPIC,
            "conversationContext": request.context,
            "userMessage": request.message,
        }

    def parse(self, answer: str, request: Conversation) -> TopicResult:
        return parse_topic_answer(answer)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> Conversation:
        return source.conversation

    def view(self, result: TopicResult, source: PhaseInput) -> PhaseView:
        return PhaseView(rows=[{"topic_status": result.status, "topic_summary": result.summary}],
                         items=[f"{result.status}: {result.summary}"], warning=result.warning)


TOPIC = TopicPhase()

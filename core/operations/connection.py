"""Check an LLM connection before using it: the models the endpoint lists, and one tiny request."""

from __future__ import annotations

from dataclasses import dataclass

from core.llm.client import LLMClient, LLMRequest
from core.llm.settings import LLMSettings

PROBE = "Reply with the single word OK."


@dataclass(frozen=True)
class ConnectionReport:
    models: list[str]  # what the endpoint lists at /models
    answer: str
    latency_s: float
    prompt_tokens: int
    completion_tokens: int

    def lists(self, model: str) -> bool:
        return model in self.models


def check_connection(settings: LLMSettings) -> ConnectionReport:
    """List the models and send one short request, without retries; LLMError says what failed."""
    with LLMClient(settings.model_copy(update={"max_retries": 0})) as client:
        models = client.list_models()
        response = client.complete(LLMRequest(PROBE, "connection_test", "connection test",
                                              max_tokens=8))
    return ConnectionReport(models, response.text.strip(), response.latency_s,
                            response.prompt_tokens, response.completion_tokens)

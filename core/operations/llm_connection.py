"""Check an LLM connection before using it: the models the endpoint lists, what the server says
about itself, and one tiny request with a one-line instruction the model must follow; or serve
a model on this machine to connect to."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.llm.client import AnswerCutError, LLMClient, LLMRequest
from core.llm.local_server import LocalServerError, fetch_model, machine_fit, serve
from core.llm.server import ServerFacts, fit_settings, read_facts
from core.llm.settings import LLMSettings
from core.progress import Listener

PROBE = "Reply with the single word OK."
PROBE_TOKENS = 16


def follows_probe(answer: str) -> bool:
    """The answer is the word OK, whatever its case and punctuation."""
    return re.sub(r"[^a-z]", "", answer.lower()) == "ok"


@dataclass(frozen=True)
class ConnectionReport:
    models: list[str]  # what the endpoint lists at /models
    answer: str
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    facts: ServerFacts
    suggested: LLMSettings  # the settings fitted to what the server said

    @property
    def followed(self) -> bool:
        return follows_probe(self.answer)

    def lists(self, model: str) -> bool:
        return model in self.models

    def summary(self, model: str) -> str:
        """One sentence: connected, and whether the model did what it was told."""
        took = (f"answered in {self.latency_s * 1000:.0f} ms "
                f"({self.prompt_tokens} + {self.completion_tokens} tokens)")
        if self.followed:
            return f"Connected: {model} {took}."
        return (f"Connected, but the model did not follow a simple instruction: asked to reply "
                f"with the single word OK, {model} {took} with something else. Structured "
                "phases (chunking, metadata) will likely fail with it; try a larger model.")


def check_connection(settings: LLMSettings) -> ConnectionReport:
    """List the models, read the server's facts and send one short request, without retries;
    LLMError says what failed. An answer cut at the probe's few tokens is an answer too. The
    request is streamed, so its pace measures the server's speed even where the server does
    not report it (estimates of long runs start from it)."""
    with LLMClient(settings.model_copy(update={"max_retries": 0})) as client:
        entries = client.models()
        try:
            response = client.complete(LLMRequest(PROBE, "connection_test", "connection test",
                                                  max_tokens=PROBE_TOKENS),
                                       Listener(text=lambda _: None))
        except AnswerCutError as cut:
            response = cut.response
        facts = read_facts(client, entries, response)
    models = sorted(str(e.get("id")) for e in entries)
    return ConnectionReport(models, response.text.strip(), response.latency_s,
                            response.prompt_tokens, response.completion_tokens, facts,
                            fit_settings(settings, facts))


def serve_local_model(gguf: Path | None, *, port: int, slots: int | None = None,
                      context: int | None = None, threads: int | None = None,
                      chat_template: str = "", say: Callable[[str], None] = print) -> None:
    """Serve ``gguf`` — by default the bundled model, fetched into the model cache the first
    time — with the slots, context and threads that fit the machine, until interrupted."""
    path = gguf if gguf is not None else fetch_model(say=say)
    if not path.is_file():
        raise LocalServerError(f"no such model file: {path}")
    serve(path, machine_fit(slots, context, threads), port=port, chat_template=chat_template,
          say=say)

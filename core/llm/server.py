"""What a server says about itself, and the settings that fit it.

Whether a server holds answers to a JSON schema, and to a grammar, is probed
(:meth:`LLMClient.output_form`). llama.cpp's server tells its context per request (``GET /props``:
``default_generation_settings.n_ctx``, a slot's context), how many requests it computes at once
(``total_slots``), the model's size (``GET /v1/models``: ``data[].meta``) and counts tokens with
the model's tokenizer (``POST /tokenize``). Other OpenAI-compatible servers say none of this:
then the settings stay as the user set them and token counts use tiktoken plus a margin.

On a CPU server a long answer takes minutes and slots share the cores, so :func:`fit_settings`
sets the context to the server's, the concurrency to at most its slots, and a timeout from the
speed the connection test measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from core.endpoint import MAX_TIMEOUT_S
from core.llm.client import LLMClient, LLMResponse, positive_int, request_seconds
from core.llm.settings import LLMSettings

MIN_TIMEOUT_S = 30.0
LOCAL_TIMEOUT_S = 300.0  # a server with slots but no measured speed: assume a CPU
PROMPT_SPEEDUP = 10.0  # prompt tokens are read about this much faster than answer tokens


@dataclass(frozen=True)
class ServerFacts:
    """What the server reported; None where it said nothing."""

    context_tokens: int | None = None  # what one request may use (llama.cpp: a slot's context)
    slots: int | None = None  # requests computed at once
    tokenizer: bool = False  # counts tokens itself (POST /tokenize)
    model_params: int | None = None
    answer_speed: float | None = None  # answer tokens per second, measured by a request
    prompt_speed: float | None = None
    structured_output: bool = False  # holds answers to a JSON schema (``response_format``)
    compact_json: bool = False  # and to a GBNF grammar, which keeps its JSON compact

    @property
    def known(self) -> bool:
        return any(v is not None for v in (self.context_tokens, self.slots, self.model_params,
                                           self.answer_speed)) or self.tokenizer


def _model_meta(entries: list[dict[str, Any]], model: str) -> dict[str, Any]:
    entry = next((e for e in entries if e.get("id") == model), entries[0] if entries else {})
    meta = entry.get("meta")
    return meta if isinstance(meta, dict) else {}


def read_facts(client: LLMClient, models: list[dict[str, Any]],
               measured: LLMResponse | None = None) -> ServerFacts:
    """Ask the server about itself (``/props``, ``/tokenize``); ``models`` are the entries of
    ``/models``; ``measured`` a finished request whose timings tell the speed."""
    context, slots = client.server_limits()
    form = client.output_form(fresh=True)
    meta = _model_meta(models, client.settings.model)
    if context is None and positive_int(meta.get("n_ctx")):
        context = int(meta["n_ctx"]) // (slots or 1)  # the whole context is shared by slots
    return ServerFacts(
        context_tokens=context,
        slots=slots,
        tokenizer=client.count_tokens("Reply with the single word OK.") is not None,
        model_params=positive_int(meta.get("n_params")),
        answer_speed=measured.answer_speed if measured else None,
        prompt_speed=measured.prompt_speed if measured else None,
        structured_output=form.schema,
        compact_json=form.grammar,
    )


def suggested_timeout(settings: LLMSettings, facts: ServerFacts) -> float:
    """Seconds one request may take: reading a full context and writing a full answer at the
    measured speed, slowed by the other requests in flight sharing the server, with a margin.
    Without a measured speed: the settings' timeout (at least 300 s on a server with slots)."""
    if facts.answer_speed is None:
        return max(settings.timeout, LOCAL_TIMEOUT_S) if facts.slots else settings.timeout
    prompt_speed = facts.prompt_speed or facts.answer_speed * PROMPT_SPEEDUP
    seconds = request_seconds(settings.context_tokens, settings.max_tokens, prompt_speed,
                              facts.answer_speed, settings.concurrency)
    return float(min(max(math.ceil(seconds / 10) * 10, MIN_TIMEOUT_S), MAX_TIMEOUT_S))


def fit_settings(settings: LLMSettings, facts: ServerFacts) -> LLMSettings:
    """``settings`` with the server's context, at most one request per slot, answers that
    leave room for text, and a timeout from the measured speed."""
    update: dict[str, Any] = {}
    if facts.context_tokens:
        update["context_tokens"] = max(facts.context_tokens, 1024)
        update["max_tokens"] = min(settings.max_tokens, max(facts.context_tokens // 4, 16))
    if facts.slots:
        update["concurrency"] = min(settings.concurrency, facts.slots)
    fitted = settings.model_copy(update=update)
    return fitted.model_copy(update={"timeout": suggested_timeout(fitted, facts)})

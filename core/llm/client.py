"""One client for any OpenAI-compatible ``/chat/completions`` endpoint (httpx).

Transient failures — connect errors, timeouts, 429 and 5xx — are retried a bounded number of times
with exponential backoff, waiting what ``Retry-After`` asks for when the server says so. Other HTTP
errors (bad key, unknown model) fail at once. Every attempt is written to the response log; the
key travels only in the ``Authorization`` header, which is never logged.
"""

from __future__ import annotations

import email.utils
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from core.errors import ChunkLabError
from core.llm.log import ResponseLog
from core.llm.settings import LLMSettings
from core.tokens import count_tokens

PHASE_HEADER = "X-ChunkLab-Phase"  # lets a fake server answer per phase; real servers ignore it
BACKOFF_BASE_S = 0.5
BACKOFF_MAX_S = 10.0
RETRY_AFTER_MAX_S = 60.0
_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)


class LLMError(ChunkLabError):
    """An LLM request failed; names what it was for (``label``) and where it was logged."""

    def __init__(self, reason: str, *, label: str = "", log_path: Path | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.label = label
        self.log_path = log_path

    def __str__(self) -> str:
        text = f"{self.label} failed: {self.reason}" if self.label else self.reason
        if self.log_path is not None:
            text += f" (raw responses are logged in {self.log_path})"
        return text


@dataclass(frozen=True)
class LLMRequest:
    """One chat completion to send: the prompt, what it is for, and per-request choices.

    ``phase`` names the request in the log and to the server (a header real servers ignore);
    ``label`` is how an error names it to the user. ``model``, ``temperature`` and
    ``max_tokens`` default to the connection's settings.
    """

    prompt: str
    phase: str
    label: str
    template_version: str = "-"
    model: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None


@dataclass(frozen=True)
class LLMResponse:
    text: str
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    model: str


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), RETRY_AFTER_MAX_S)


def _backoff(attempt: int) -> float:
    return min(BACKOFF_BASE_S * 2**attempt, BACKOFF_MAX_S)


class LLMClient:
    """Thread-safe: at most ``settings.concurrency`` requests are in flight at once."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        log: ResponseLog | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not settings.configured:
            raise LLMError(settings.missing_message())
        self.settings = settings
        self.log = log or ResponseLog()
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        headers = {"Content-Type": "application/json"}
        key = settings.api_key.get_secret_value()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.Client(
            base_url=settings.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=settings.timeout,
            transport=transport,
            limits=httpx.Limits(max_connections=settings.concurrency + 2),
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def list_models(self) -> list[str]:
        """Model ids the endpoint reports at ``/models``."""
        try:
            response = self._http.get("models")
            response.raise_for_status()
            data = response.json().get("data", [])
        except (httpx.HTTPError, ValueError, AttributeError) as err:
            raise LLMError(f"listing models at {self.settings.base_url} failed: {err}") from err
        return sorted(str(item.get("id")) for item in data if isinstance(item, dict))

    def complete(self, request: LLMRequest) -> LLMResponse:
        """One chat completion with the prompt as the user message; retries transient failures."""
        settings = self.settings
        body = {
            "model": request.model or settings.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "temperature": (settings.temperature if request.temperature is None
                            else request.temperature),
            "max_tokens": request.max_tokens or settings.max_tokens,
        }
        phase, label = request.phase, request.label
        entry = {"phase": phase, "template_version": request.template_version,
                 "model": body["model"]}
        attempts = self.settings.max_retries + 1
        reason = ""
        for attempt in range(attempts):
            with self._slots:
                started = time.monotonic()
                try:
                    response = self._http.post(
                        "chat/completions", json=body, headers={PHASE_HEADER: phase}
                    )
                except httpx.TimeoutException:
                    response, reason = None, f"timed out after {self.settings.timeout:g} s"
                except httpx.TransportError as err:
                    response, reason = None, f"cannot reach {self.settings.base_url} ({err})"
                latency = time.monotonic() - started
            wait = _backoff(attempt)
            if response is not None:
                if response.status_code < 400:
                    return self._accept(response, request, latency, entry, attempt)
                reason = f"HTTP {response.status_code}: {response.text[:300]}"
                if response.status_code != 429 and response.status_code < 500:
                    self.log.write(**entry, attempt=attempt, latency_s=latency, error=reason)
                    raise LLMError(reason, label=label, log_path=self.log.path)
                asked = _retry_after(response)
                wait = wait if asked is None else asked
            self.log.write(**entry, attempt=attempt, latency_s=latency, error=reason)
            if attempt + 1 < attempts:
                self._sleep(wait)
        raise LLMError(
            f"{reason} (gave up after {attempts} attempts)", label=label, log_path=self.log.path
        )

    def _accept(
        self,
        response: httpx.Response,
        request: LLMRequest,
        latency: float,
        entry: dict[str, Any],
        attempt: int,
    ) -> LLMResponse:
        try:
            data = response.json()
            message = data["choices"][0]["message"]
            raw = message.get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as err:
            reason = f"the endpoint did not return a chat completion ({response.text[:200]!r})"
            self.log.write(**entry, attempt=attempt, latency_s=latency, error=reason)
            raise LLMError(reason, label=request.label, log_path=self.log.path) from err
        usage = data.get("usage") or {}
        text = _THINK.sub("", raw)  # reasoning models may think out loud first
        result = LLMResponse(
            text=text,
            latency_s=latency,
            prompt_tokens=int(usage.get("prompt_tokens") or count_tokens(request.prompt)),
            completion_tokens=int(usage.get("completion_tokens") or count_tokens(raw)),
            model=str(data.get("model") or self.settings.model),
        )
        self.log.write(
            **entry,
            attempt=attempt,
            latency_s=round(latency, 4),
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            status=response.status_code,
            response=raw,
        )
        return result

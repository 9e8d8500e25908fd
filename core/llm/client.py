"""One client for any OpenAI-compatible ``/chat/completions`` endpoint (httpx).

Failures are told apart by what they are: transient ones and timeouts are asked again as
every client of ChunkLab does (:mod:`core.http.policy`);

* deterministic refusals — a prompt larger than the model's context (HTTP 400/500 "context size
  exceeded", OpenAI's ``context_length_exceeded``), other 4xx (bad key, unknown model) — fail at
  once with a sentence saying what to change;
* an answer the server cut at its token limit (``finish_reason: "length"``) is an
  :class:`AnswerCutError`, not a format error of the phase that asked;
* once :meth:`LLMClient.close` is called or the run's ``cancel`` event is set (a run stopped,
  failed, or its page was left), requests still in flight are ended at the connection (the
  server sees it close, see :mod:`core.http.transport`) and end as :class:`LLMCancelled`, as do
  requests still waiting in line.

Before its first request is sized or sent, a client asks the server for its limits (llama.cpp's
``/props``: a slot's context and the number of slots) and never uses more context than one slot
has. Every request goes through the server's one gate for the process (:mod:`core.llm.gate`):
at most one request per slot in flight from all pages and runs, the rest waiting in line, and
a request's timeout starts when it is sent. On llama.cpp each request asks to keep its prompt
(``cache_prompt``) and names its slot (``id_slot``); the prompt tokens actually read are logged
(``prompt_processed``). A request with a :class:`Listener` that wants the text is asked as a
stream (:mod:`core.llm.stream`); a server that answers it whole works the same.

The errors and the reading of a context refusal live in :mod:`core.llm.errors`. Every attempt is
written to the response log; the key travels only in the ``Authorization`` header, which is
never logged. llama.cpp servers also count tokens for us (:meth:`LLMClient.count_tokens`) and
say what they are (see :mod:`core.llm.server`).
"""

from __future__ import annotations

import math
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from core.endpoint import MAX_TIMEOUT_S, auth_headers
from core.http.policy import Failure, Policy, cannot_reach, retry_after, transient, with_retries
from core.http.transport import STOPPING, Call, abortable_transport, tracked
from core.llm.errors import ContextExceededError, LLMCancelled, LLMError, context_refusal
from core.llm.forms import FORMS, probe_now
from core.llm.gate import Ticket, gate_for
from core.llm.log import ResponseLog
from core.llm.settings import LLMSettings
from core.llm.slots import prompt_processed
from core.llm.speed import SPEEDS, Speed
from core.llm.stream import read_events
from core.llm.structured import PROBE_PHASE, OutputForm
from core.progress import Listener
from core.tokens import count_tokens

PHASE_HEADER = "X-ChunkLab-Phase"  # lets a fake server answer per phase; real servers ignore it
TIKTOKEN_MARGIN = 1.15  # server tokens per tiktoken token assumed when the server cannot count
MEASURED_MARGIN = 1.03  # on top of a ratio measured with the server's own tokenizer
PROBE_TIMEOUT_S = 5.0  # asking the server about itself
TIMEOUT_SAFETY = 1.5  # a request may take this much longer than the speed says
# What a server with slots (a local llama.cpp) is assumed to manage before a request measured
# it: a 1.5 B model on two busy CPU cores (tokens per second).
ASSUMED_PROMPT_SPEED = 5.0
ASSUMED_ANSWER_SPEED = 2.0
_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)


class AnswerCutError(LLMError):
    """The server stopped the answer at its token limit; ``response`` is what arrived."""

    def __init__(self, reason: str, *, response: LLMResponse, **kwargs: Any) -> None:
        super().__init__(reason, **kwargs)
        self.response = response


@dataclass(frozen=True)
class LLMRequest:
    """One chat completion to send: the prompt, what it is for, and per-request choices.

    ``phase`` names the request in the log and to the server (a header real servers ignore);
    ``label`` is how an error names it to the user. ``model``, ``temperature`` and
    ``max_tokens`` default to the connection's settings; ``seed`` is sent only when given (the
    servers that take one — llama.cpp, vLLM, OpenAI — sample the same way for the same prompt).
    """

    prompt: str
    phase: str
    label: str
    template_version: str = "-"
    model: str | None = None
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    subject: str = ""  # what the request is about, for the log: a document and its blocks
    stop: tuple[str, ...] = ()  # the server ends the answer where one of these would begin
    # Names the text this prompt begins with that other requests begin with too (a document):
    # a llama.cpp server is asked to keep it and gets the request on the slot that read it last.
    shared_prefix: str = ""
    # A JSON schema the answer is held to, for a server that offers structured output (see
    # :meth:`LLMClient.output_form`); None: free text. ``compact``: as compact JSON, where the
    # server takes a grammar.
    schema: dict[str, Any] | None = None
    compact: bool = False
    # A GBNF grammar the answer is held to, sent to a server that takes one (llama.cpp).
    grammar: str | None = None


@dataclass(frozen=True)
class LLMResponse:
    text: str
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    model: str
    log_id: str = ""  # the log entry of this answer (see ResponseLog.reject)
    answer_speed: float | None = None  # answer tokens per second, when the server reports it
    prompt_speed: float | None = None  # prompt tokens per second, when the server reports it
    # Prompt tokens the server actually read, not taken from its prompt cache (None: not said)
    prompt_processed: int | None = None
    stopped: str = ""  # why the answer was ended early, e.g. the model was repeating itself


# What a server reports about itself (context size, slots, speeds) is read without trusting
# it: anything that is not a positive number reads as not reported.
def positive_int(value: Any) -> int | None:
    """``value`` as a positive int, else None."""
    number = positive_float(value)
    return None if number is None or int(number) <= 0 else int(number)


def positive_float(value: Any) -> float | None:
    """``value`` as a positive number, else None."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None
@dataclass
class _Reply:
    """What came back for one attempt: the status, the raw body (for errors), the completion's
    body when it parsed, and when a stream's first and last words came."""

    status: int
    raw: str
    data: dict[str, Any] | None
    first_text_at: float | None = None
    last_text_at: float | None = None
    retry_after: float | None = None  # seconds the server asked to wait before asking again
    stopped: str = ""  # why the answer was not read to its end (see core.llm.repeats)


def _json_body(response: httpx.Response) -> dict[str, Any] | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _part(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def request_seconds(prompt_tokens: float, answer_tokens: float, prompt_speed: float,
                    answer_speed: float, sharing: int = 1) -> float:
    """Seconds a request takes at these speeds (tokens per second) with a margin, when
    ``sharing`` requests share the server's cores."""
    return (prompt_tokens / prompt_speed + answer_tokens / answer_speed) * sharing * TIMEOUT_SAFETY


class LLMClient:
    """Thread-safe: at most ``settings.concurrency`` requests of this client are in flight at
    once, and no more than the server's gate lets through for the whole process."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        log: ResponseLog | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        notice: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """``notice`` hears each request that failed and is asked again (a user watching a
        slow or failing server sees why nothing arrives); once ``cancel`` is set, requests in
        flight are ended and the others are not sent."""
        if not settings.configured:
            raise LLMError(settings.missing_message())
        self.settings = settings
        self.log = log or ResponseLog()
        self._sleep = sleep
        self._notice = notice
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._closed = threading.Event()
        self._cancels = (self._closed, STOPPING, *([cancel] if cancel is not None else []))
        self._gate = gate_for(settings.base_url)
        self._ratio: float | None = None
        self._tokenizer: bool | None = None  # unknown until asked
        self._lock = threading.Lock()
        self._fit_lock = threading.Lock()
        self._fitted = False
        self._local = False  # the server has slots: a local llama.cpp, maybe on a CPU
        self._http = httpx.Client(
            base_url=settings.base_url.rstrip("/") + "/",
            headers=auth_headers(settings),
            timeout=settings.timeout,
            transport=transport or abortable_transport(settings.concurrency + 2),
        )

    def close(self) -> None:
        """Close the connections; requests still waiting or in flight end as cancelled."""
        self._closed.set()
        self._http.close()

    @property
    def cancelled(self) -> bool:
        return any(event.is_set() for event in self._cancels)

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def server_root(self) -> str:
        """The server's own address: the base URL without its ``/v1``."""
        return re.sub(r"/v1/?$", "", self.settings.base_url.rstrip("/")) + "/"

    def get_json(self, path: str, *, root: bool = False) -> Any:
        """GET ``path`` under the base URL (or the server root); None when the server has no
        such endpoint or does not answer with JSON."""
        url = self.server_root + path if root else path
        try:
            response = self._http.get(url, timeout=min(PROBE_TIMEOUT_S, self.settings.timeout))
            return response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            return None

    def server_limits(self) -> tuple[int | None, int | None]:
        """The context one request may use and the slots (requests computed at once) the server
        reports at ``/props`` (llama.cpp); None for what it does not say."""
        props = self.get_json("props", root=True)
        props = props if isinstance(props, dict) else {}
        generation = props.get("default_generation_settings")
        context = generation.get("n_ctx") if isinstance(generation, dict) else None
        return positive_int(context), positive_int(props.get("total_slots"))

    def _fit_to_server(self) -> None:
        """Once, before the first request is sized or sent: at most the server's context per
        request and at most one request per slot."""
        with self._fit_lock:
            if self._fitted:
                return
            self._fitted = True
            context, slots = self.server_limits()
            self._local = slots is not None
            settings = self.settings
            if context and context < settings.context_tokens:
                settings = settings.model_copy(update={"context_tokens": max(context, 1024)})
            if slots and slots < settings.concurrency:
                settings = settings.model_copy(update={"concurrency": slots})
                self._slots = threading.BoundedSemaphore(slots)
            self._gate.configure(slots or settings.concurrency, slots)
            self.settings = settings

    def models(self) -> list[dict[str, Any]]:
        """The entries of ``/models`` (llama.cpp adds a ``meta`` with its context and size)."""
        try:
            response = self._http.get("models")
            response.raise_for_status()
            data = response.json().get("data", [])
        except (httpx.HTTPError, ValueError, AttributeError) as err:
            raise LLMError(f"listing models at {self.settings.base_url} failed: {err}") from err
        return [item for item in data if isinstance(item, dict)]

    def list_models(self) -> list[str]:
        """Model ids the endpoint reports at ``/models``."""
        return sorted(str(item.get("id")) for item in self.models())

    def count_tokens(self, text: str) -> int | None:
        """Tokens of ``text`` by the server's own tokenizer (llama.cpp ``POST /tokenize``);
        None when the server offers none (asked once per client)."""
        if self._tokenizer is False:
            return None
        try:
            response = self._http.post(self.server_root + "tokenize", json={"content": text})
            tokens = response.json().get("tokens") if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            tokens = None
        self._tokenizer = isinstance(tokens, list)
        return len(tokens) if isinstance(tokens, list) else None

    def token_ratio(self, sample: str) -> float:
        """Server tokens per tiktoken token: measured once on ``sample`` with the server's
        tokenizer (plus 3 %), else :data:`TIKTOKEN_MARGIN`. Multiply tiktoken counts by it."""
        self._fit_to_server()
        with self._lock:
            if self._ratio is None:
                local = count_tokens(sample)
                server = self.count_tokens(sample) if local else None
                self._ratio = (TIKTOKEN_MARGIN if server is None or not local
                               else max(1.0, server / local) * MEASURED_MARGIN)
            return self._ratio

    def output_form(self, fresh: bool = False) -> OutputForm:
        """How the server holds answers to a JSON schema, as learnt for this server and model
        (:mod:`core.llm.forms`). Not known yet: the plain form, and it is learnt in the
        background once the server is idle — never in the way of this request. ``fresh``:
        probed now (waiting in line), as Test connection does after a server restarted with
        other abilities. The probe is never logged."""
        self._fit_to_server()
        headers = {PHASE_HEADER: PROBE_PHASE}
        if fresh:
            return probe_now(self._http, self.settings, headers, self._cancels)
        form = FORMS.known(self.settings.base_url, self.settings.model)
        if form is None:
            FORMS.learn_when_idle(self.settings, headers)
            return OutputForm()
        return form

    @contextmanager
    def _through_gate(self, prefix: str = "",
                      queued: Callable[[int], None] | None = None) -> Iterator[Ticket]:
        """This client's share of requests, then the server's gate (waiting in line)."""
        with self._slots:
            ticket = self._gate.enter(prefix, self._cancels, queued)
            try:
                yield ticket
            finally:
                self._gate.leave(ticket)

    def request_timeout(self, request: LLMRequest) -> float:
        """Seconds to wait for ``request``: the settings' timeout, or longer when the speed
        measured on this server's answers (or, before any, the speed assumed for a local CPU
        server) says reading the prompt and writing the answer takes longer."""
        settings = self.settings
        with self._lock:
            ratio = self._ratio or TIKTOKEN_MARGIN
        if not settings.timeout_from_speed:
            return settings.timeout
        measured = SPEEDS.slowest(settings.base_url, settings.model)
        if measured is not None:
            answer_speed = measured.answer
            prompt_speed = measured.prompt or answer_speed * 10
        elif self._local:
            prompt_speed, answer_speed = ASSUMED_PROMPT_SPEED, ASSUMED_ANSWER_SPEED
        else:
            return settings.timeout
        needed = request_seconds(count_tokens(request.prompt) * ratio,
                                 request.max_tokens or settings.max_tokens, prompt_speed,
                                 answer_speed, settings.concurrency)
        return float(min(max(settings.timeout, math.ceil(needed / 10) * 10), MAX_TIMEOUT_S))

    def complete(self, request: LLMRequest, listener: Listener | None = None) -> LLMResponse:
        """One chat completion with the prompt as the user message (see the module's rules);
        ``listener`` hears it wait, go and, when it asks for the text, be written."""
        self._fit_to_server()
        settings = self.settings
        listener = listener or Listener()
        body = {
            "model": request.model or settings.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "temperature": (settings.temperature if request.temperature is None
                            else request.temperature),
            "max_tokens": request.max_tokens or settings.max_tokens,
            **({"seed": request.seed} if request.seed is not None else {}),
            **({"stop": list(request.stop)} if request.stop and not request.schema else {}),
            **(self.output_form().fields(request.phase, request.schema, request.compact)
               if request.schema else {}),
            **({"grammar": request.grammar} if request.grammar and not request.schema else {}),
            **({"stream": True, "stream_options": {"include_usage": True}}
               if listener.text is not None else {}),
        }
        label = request.label
        entry = {"id": uuid.uuid4().hex[:12], "phase": request.phase,
                 "template_version": request.template_version, "model": body["model"],
                 **({"subject": request.subject} if request.subject else {})}

        def attempt(number: int, timeout: float) -> LLMResponse | Failure:
            reply, failure = None, None
            with self._through_gate(request.shared_prefix, listener.queued) as ticket:
                self._stop_if_closed(entry, number, label)
                sent = (body if ticket.slot is None
                        else {**body, "cache_prompt": True, "id_slot": ticket.slot})
                if listener.sent is not None:
                    listener.sent()
                started = time.monotonic()
                call = Call(self._cancels, deadline=started + timeout)
                try:
                    with tracked(call):
                        reply = self._send(sent, request, call, timeout, listener.text)
                except httpx.TimeoutException:
                    failure = Failure(f"timed out after {timeout:g} s", timed_out=True)
                except (httpx.TransportError, RuntimeError) as err:
                    self._stop_if_closed(entry, number, label)
                    failure = Failure(cannot_reach(settings.location or settings.base_url, err),
                                      timed_out=call.ended == "timeout")
                latency = time.monotonic() - started
            if reply is not None:
                if reply.status < 400:
                    return self._accept(reply, request, latency, entry, number,
                                        str(body["model"]))
                reason = f"HTTP {reply.status}: {reply.raw[:300]}"
                refusal = context_refusal(reply.status, reply.raw, settings)
                if refusal or not transient(reply.status):
                    self.log.write(**entry, attempt=number, latency_s=latency, error=reason)
                    error = ContextExceededError if refusal else LLMError
                    raise error(refusal or reason, label=label, log_path=self.log.path)
                failure = Failure(reason, wait=reply.retry_after)
            assert failure is not None
            self.log.write(**entry, attempt=number, latency_s=latency, error=failure.reason)
            return failure

        notice = self._notice
        policy = Policy(settings.max_retries, self.request_timeout(request), MAX_TIMEOUT_S,
                        self._sleep,
                        None if notice is None else lambda said: notice(f"{label}: {said}"))
        return with_retries(attempt, policy, lambda reason: LLMError(
            reason, label=label, log_path=self.log.path))

    def _send(self, body: dict[str, Any], request: LLMRequest, call: Call, timeout: float,
              heard: Callable[[str], None] | None) -> _Reply:
        """One attempt: posted whole, or as a stream when ``heard`` wants the text (a server
        that answers a stream request whole is read whole). A stream's timeout runs until its
        first words and again between words: an answer still being written is not cut."""
        headers = {PHASE_HEADER: request.phase}
        if heard is None:
            response = self._http.post("chat/completions", json=body, headers=headers,
                                       timeout=timeout)
            return _Reply(response.status_code, response.text, _json_body(response),
                          retry_after=retry_after(response))
        with self._http.stream("POST", "chat/completions", json=body, headers=headers,
                               timeout=timeout) as response:
            streaming = "text/event-stream" in response.headers.get("content-type", "")
            if response.status_code >= 400 or not streaming:
                response.read()
                return _Reply(response.status_code, response.text, _json_body(response),
                              retry_after=retry_after(response))
            heard("")

            def words(so_far: str) -> None:
                call.deadline = time.monotonic() + timeout
                heard(so_far)

            streamed = read_events(response.iter_lines(), words)
            if streamed.stopped:
                call.abort()  # the server stops writing what nobody will read
        if not streamed.complete:
            raise httpx.RemoteProtocolError("the connection closed before the answer was "
                                            "complete")
        return _Reply(response.status_code, "", streamed.body, streamed.first_text_at,
                      streamed.last_text_at, stopped=streamed.stopped)

    def _stop_if_closed(self, entry: dict[str, Any], attempt: int, label: str) -> None:
        if self.cancelled:
            self.log.write(**entry, attempt=attempt, error="cancelled: the run stopped")
            raise LLMCancelled("cancelled: the run stopped before this request finished",
                               label=label)

    def _accept(self, reply: _Reply, request: LLMRequest, latency: float,
                entry: dict[str, Any], attempt: int, model: str) -> LLMResponse:
        data = reply.data or {}
        try:
            choice = data["choices"][0]
            raw = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError) as err:
            bad = f"the endpoint did not return a chat completion ({reply.raw[:200]!r})"
            self.log.write(**entry, attempt=attempt, latency_s=latency, error=bad)
            raise LLMError(bad, label=request.label, log_path=self.log.path) from err
        usage, timings = _part(data, "usage"), _part(data, "timings")
        text = _THINK.sub("", raw)  # reasoning models may think out loud first
        prompt_tokens = int(usage.get("prompt_tokens") or count_tokens(request.prompt))
        completion_tokens = int(usage.get("completion_tokens") or count_tokens(raw))
        answer_speed = positive_float(timings.get("predicted_per_second"))
        prompt_speed = positive_float(timings.get("prompt_per_second"))
        first, last = reply.first_text_at, reply.last_text_at
        if answer_speed is None and first is not None and last is not None and last > first:
            answer_speed = max(completion_tokens - 1, 1) / (last - first)  # the stream's pace
        result = LLMResponse(
            text=text,
            latency_s=latency,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            model=str(data.get("model") or self.settings.model),
            log_id=entry["id"],
            answer_speed=answer_speed,
            prompt_speed=prompt_speed,
            prompt_processed=prompt_processed(usage, timings),
            stopped=reply.stopped,
        )
        if answer_speed:
            SPEEDS.record(self.settings.base_url, model, Speed(answer_speed, prompt_speed))
        cut = choice.get("finish_reason") == "length"
        limit = request.max_tokens or self.settings.max_tokens
        reason = self._cut_reason(request, limit) if cut else ""
        self.log.write(
            **entry,
            attempt=attempt,
            latency_s=round(latency, 4),
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            **({"prompt_processed": result.prompt_processed}
               if result.prompt_processed is not None else {}),
            status=reply.status,
            response=raw,
            **({"error": reason} if reason else {}),
            **({"stopped": reply.stopped} if reply.stopped else {}),
        )
        if reason:
            raise AnswerCutError(reason, response=result, label=request.label,
                                 log_path=self.log.path)
        return result

    def _cut_reason(self, request: LLMRequest, limit: int) -> str:
        if request.max_tokens and request.max_tokens < self.settings.max_tokens:
            fix = ("this request needs a short answer, so the model wrote more than asked for "
                   "(small models often do; a larger one keeps to the format)")
        else:
            fix = "raise “Max tokens per answer” in Settings, or ask for a shorter answer"
        return f"answer cut at {limit:,} tokens (the server stopped at the limit): {fix}"


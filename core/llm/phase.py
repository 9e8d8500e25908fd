"""One LLM phase, one object: its template, mode, placeholder values, parser and retry rule.

A phase is sent as one or more requests (structure and boundaries cut long text into windows
that fit the model's context). For each request the phase gives the template's placeholder
values (:meth:`Phase.values`) and reads the answer (:meth:`Phase.parse`). :meth:`PhaseContext.ask`
is the one way a request reaches the model: render, look in the cache, send, parse, ask again
after an invalid answer as often as the phase allows (:attr:`Phase.retries`), and cache only
answers that parsed — and, for a phase that falls back when tolerant, the failure that made it
fall back, so a re-run gives the same chunks. Transient HTTP failures are the client's business.

A phase also says how the Prompts page tries it on a :class:`~core.llm.trial.PhaseInput`
(:meth:`Phase.preview`, :meth:`Phase.test`), so a new phase is one module in
:mod:`core.llm.phases` plus its template.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from core.errors import TemplateError
from core.llm.anchors import Mode
from core.llm.cache import LLMCache
from core.llm.client import AnswerCutError, LLMClient, LLMError, LLMRequest, LLMResponse
from core.llm.errors import TSVError
from core.llm.replies.copies import without_copies
from core.llm.replies.reader import Columns
from core.llm.replies.repairs import Repairs
from core.llm.settings import AnswerSettings, LLMSettings
from core.llm.structured import rows_as_tsv, rows_schema
from core.llm.trial import PhaseInput, PhaseView
from core.progress import Listener
from core.prompts.substitution import Substitution
from core.prompts.template import PromptTemplate
from core.tokens import count_tokens

Req = TypeVar("Req")
Out = TypeVar("Out")
PROMPT_MARGIN_TOKENS = 64
MIN_WINDOW_TOKENS = 256
STRUCTURED_CAP_FACTOR = 2  # answer tokens of JSON rows per answer token of TSV rows


@runtime_checkable
class Tolerant(Protocol):
    """A request that says how its answer is parsed: ``repairs`` None is strict."""

    @property
    def repairs(self) -> Repairs | None: ...


@dataclass
class Usage:
    """What the requests of one run cost, and how often the cache answered instead."""

    requests: int = 0
    prompt_tokens: int = 0
    prompt_processed: int = 0  # prompt tokens the server read, not taken from its cache
    completion_tokens: int = 0
    latency_s: float = 0.0
    cache_hits: int = 0
    cache_misses: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def window_budget(settings: LLMSettings, template: PromptTemplate, *,
                  answer_tokens: int | None = None, ratio: float = 1.0) -> int:
    """Tokens of text (counted with tiktoken) one request may carry: the context less the
    template and the answer. ``ratio`` is the server's tokens per tiktoken token
    (:meth:`LLMClient.token_ratio`), so the window fits the server's own count."""
    answer = answer_tokens or settings.max_tokens
    room = settings.context_tokens - answer - PROMPT_MARGIN_TOKENS
    budget = int(room / ratio) - count_tokens(template.text)
    if budget < MIN_WINDOW_TOKENS:
        raise LLMError(
            f"the model's context ({settings.context_tokens} tokens) leaves no room for text "
            f"after the prompt and {answer} answer tokens; raise the context size "
            "or lower max tokens in Settings"
        )
    return budget


class Phase(ABC, Generic[Req, Out]):
    """One kind of LLM request. Subclasses set the class attributes and the abstract methods."""

    name: ClassVar[str]  # names requests in the log, the cache and to the server
    label: ClassVar[str]  # how errors name the phase to the user
    template: ClassVar[str]  # the template it sends (anchors mode)
    offsets_template: ClassVar[str | None] = None  # … in character-offset mode, when it has one
    retries: ClassVar[int] = 1  # requests again after an invalid answer
    # None: the connection's temperature. The phases whose answers place chunks ask at 0, so a
    # re-run cuts the same chunks.
    temperature: ClassVar[float | None] = None
    # Tolerant parsing replaces an answer it cannot use (the phase falls back to the document's
    # own sections, the recursive splitter): that failure is cached with the inputs that
    # produced it, so a re-run falls back the same way instead of asking again.
    falls_back: ClassVar[bool] = False
    # The longest answer the phase needs (a one-line answer needs few tokens); None: the
    # connection's max tokens. Never more than the connection's.
    answer_tokens: ClassVar[int | None] = None
    text_placeholder: ClassVar[str | None] = None  # the placeholder that carries the text
    # Strings a valid answer never contains, where an echo of the prompt would begin (a block
    # marker such as "\n[12] "): the server stops there instead of writing to its token limit.
    # Four at most, as OpenAI's API allows.
    stop: ClassVar[tuple[str, ...]] = ()
    # Compact JSON (no whitespace) where the server takes a grammar (see core.llm.grammar). Off
    # unless measured: held to it, the bundled model listed every block of a document as a
    # section until its token limit, where indented JSON listed the headings.
    compact: ClassVar[bool] = False
    # What the Prompts page asks for to try the phase: "document", "section", "max_tokens",
    # "chunk", "table", "conversation", "question" (fields of PhaseInput).
    inputs: ClassVar[tuple[str, ...]] = ("document",)

    def template_name(self, mode: Mode = "anchors") -> str:
        return self.offsets_template if mode == "offsets" and self.offsets_template else (
            self.template)

    @abstractmethod
    def values(self, request: Req) -> dict[str, str]:
        """The template's placeholder values for one request."""

    @abstractmethod
    def parse(self, answer: str, request: Req) -> Out:
        """The validated result of one answer; a TSVError names what is wrong."""

    def cache_content(self, request: Req) -> dict[str, object] | None:
        """What the cached answer depends on besides template, model and temperature;
        None: never cached."""
        return None

    def prompt(self, template: PromptTemplate, request: Req) -> str:
        rendered = template.render(self.values(request))
        needed = self.text_placeholder
        if needed and needed in rendered.unused:
            raise TemplateError(
                f"Template {template.label} never uses {{{{{needed}}}}}, so the model would not "
                "see the text; add the placeholder."
            )
        return rendered.text

    def answer_limit(self, settings: LLMSettings) -> int:
        """The answer tokens a request of this phase asks for."""
        return min(self.answer_tokens or settings.max_tokens, settings.max_tokens)

    def subject(self, request: Req) -> str:
        """What the request is about, as the raw log names it ("" when the prompt says it)."""
        return ""

    def columns(self, request: Req) -> Columns | None:
        """The TSV columns of this request's answer; None when it is not rows. A server with
        structured output is asked for them as JSON rows held to a schema, read back into
        these lines (see :mod:`core.llm.structured`)."""
        return None

    def answer_grammar(self, request: Req, context: PhaseContext) -> str | None:
        """A GBNF grammar the answer is held to on a server that takes one; None: free."""
        return None

    def answer_schema(self, request: Req, template: PromptTemplate) -> dict[str, Any] | None:
        """The JSON schema a server with structured output holds the answer to ``template``'s
        prompt to (None: none)."""
        columns = self.columns(request)
        return None if columns is None else rows_schema(columns.names, columns.numeric)

    def rows_from_json(self, answer: str, request: Req) -> str:
        """The TSV lines a structured answer (JSON rows held to :meth:`answer_schema`) stands
        for, which :meth:`parse` reads."""
        columns = self.columns(request)
        return answer if columns is None else rows_as_tsv(answer, columns.names)

    def shared_prefix(self, request: Req) -> str:
        """A name for the text this request's prompt begins with when other requests begin
        with it too (the document a chunk is read in), so the server can keep it; "" when
        nothing is shared."""
        return ""

    def answer_cap(self, request: Req) -> int | None:
        """Answer tokens this request can need at most (None: no cap below
        :meth:`answer_limit`), so a model repeating itself stops early."""
        return None

    def request(self, prompt: str, template: PromptTemplate, context: PhaseContext) -> LLMRequest:
        return LLMRequest(prompt, self.name, self.label, template.version,
                          max_tokens=self.answer_limit(context.settings),
                          temperature=self.temperature)

    @abstractmethod
    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> Req:
        """The first request a test of ``template`` on ``source`` sends (what Preview shows)."""

    @abstractmethod
    def test(self, context: PhaseContext, source: PhaseInput) -> PhaseView:
        """Run the phase on ``source`` with the context's template, for the Prompts page."""

    def preview(self, source: PhaseInput, template: PromptTemplate,
                settings: LLMSettings) -> Substitution:
        """The first request's prompt, with the placeholders the input leaves without value."""
        return template.render(self.values(self.first_request(source, template, settings)))


class OneRequestPhase(Phase[Req, Out]):
    """A phase asked once about one piece (a chunk, a table, a conversation, a question): a test
    asks about the piece chosen on the Prompts page and shows the answer beside that piece."""

    def test(self, context: PhaseContext, source: PhaseInput) -> PhaseView:
        request = self.first_request(source, context.template(self), context.settings)
        return self.view(self.answered(context, request), source)

    def answered(self, context: PhaseContext, request: Req) -> Out:
        """The parsed answer to ``request``."""
        return context.ask(self, request)

    @abstractmethod
    def view(self, result: Out, source: PhaseInput) -> PhaseView:
        """The answer as the Prompts page shows it."""


def parse_answer(phase: Phase[Req, Out], template: PromptTemplate, answer: str,
                 request: Req) -> Out:
    """The phase's result from ``answer`` to ``request`` sent with ``template``; a copy of the
    template's example is as invalid as a bad line (tolerant parsing drops copied lines,
    recorded once the answer parsed)."""
    repairs = request.repairs if isinstance(request, Tolerant) else None
    draft = None if repairs is None else Repairs()
    source = "\n".join(phase.values(request).values())
    value = phase.parse(without_copies(phase.label, template.text, answer, source, draft),
                        request)
    if repairs is not None and draft is not None:
        repairs.extend(draft)
    return value


class PhaseContext:
    """The client, the cache and the template of each phase for one run; counts its usage.

    Thread-safe: the pipeline's workers share one context.
    """

    def __init__(
        self,
        client: LLMClient,
        templates: Mapping[str, PromptTemplate],
        cache: LLMCache | None = None,
        answer_settings: AnswerSettings | None = None,
        listener: Listener | None = None,
    ) -> None:
        """``listener`` hears each request wait, go and (when it asks for the text) be
        written."""
        self.client = client
        self.listener = listener
        self.templates = dict(templates)
        self.cache = cache
        self.answer_settings = answer_settings or AnswerSettings()
        self.usage = Usage()
        self.responses: list[LLMResponse] = []
        self._lock = threading.Lock()

    @property
    def settings(self) -> LLMSettings:
        return self.client.settings

    def template(self, phase: Phase[Any, Any]) -> PromptTemplate:
        return self.templates[phase.name]

    def mode(self, phase: Phase[Any, Any]) -> Mode:
        return self.template(phase).mode or "anchors"

    def budget(self, phase: Phase[Any, Any]) -> int:
        template = self.template(phase)
        return window_budget(self.settings, template,
                             answer_tokens=phase.answer_limit(self.settings),
                             ratio=self.client.token_ratio(template.text))

    def _record(self, response: LLMResponse) -> None:
        with self._lock:
            self.responses.append(response)
            self.usage.requests += 1
            self.usage.prompt_tokens += response.prompt_tokens
            self.usage.prompt_processed += (response.prompt_tokens
                                            if response.prompt_processed is None
                                            else response.prompt_processed)
            self.usage.completion_tokens += response.completion_tokens
            self.usage.latency_s += response.latency_s

    def _cached(self, *keys: str) -> tuple[str, str] | None:
        """The first of ``keys`` the cache holds, with its answer (one hit or miss counted)."""
        assert self.cache is not None
        found = next(((key, answer) for key in keys
                      if (answer := self.cache.get(key)) is not None), None)
        with self._lock:
            if found is None:
                self.usage.cache_misses += 1
            else:
                self.usage.cache_hits += 1
        return found

    def _parse(self, phase: Phase[Req, Out], template: PromptTemplate, answer: str,
               request: Req) -> Out:
        return parse_answer(phase, template, answer, request)

    def _cut(self, phase: Phase[Req, Out], template: PromptTemplate, cut: AnswerCutError,
             request: Req) -> Out:
        """Tolerant: the complete lines of an answer cut at its token limit, when they parse
        (recorded); else the cut is the error."""
        repairs = request.repairs if isinstance(request, Tolerant) else None
        lines = cut.response.text.splitlines()[:-1]  # the last line may stop mid-way
        if repairs is None or not lines:
            raise cut
        try:
            value = self._parse(phase, template, "\n".join(lines), request)
        except TSVError:
            raise cut from None
        repairs.add("answer_cut", phase.label, len(lines) + 1, cut.response.text.splitlines()[-1],
                    cut.reason)
        return value

    def ask(self, phase: Phase[Req, Out], request: Req) -> Out:
        template = self.template(phase)
        llm_request = phase.request(phase.prompt(template, request), template, self)
        llm_request = replace(llm_request, subject=phase.subject(request), stop=phase.stop,
                              shared_prefix=phase.shared_prefix(request))
        cap = phase.answer_cap(request)
        schema = phase.answer_schema(request, template)
        if schema is not None and self.client.output_form().schema:
            llm_request = replace(llm_request, schema=schema, compact=phase.compact)
            # JSON repeats the column names on every row: room for about twice the tokens.
            cap = None if cap is None else cap * STRUCTURED_CAP_FACTOR
        grammar = phase.answer_grammar(request, self)
        if grammar is not None and schema is None and self.client.output_form().grammar:
            llm_request = replace(llm_request, grammar=grammar)
        if cap is not None and cap < (llm_request.max_tokens or self.settings.max_tokens):
            llm_request = replace(llm_request, max_tokens=cap)
        limit = llm_request.max_tokens or self.settings.max_tokens
        content = phase.cache_content(request)
        key = cut_key = failed_key = None
        if self.cache is not None and content is not None:
            model = llm_request.model or self.settings.model
            temperature = (self.settings.temperature if llm_request.temperature is None
                           else llm_request.temperature)
            key = LLMCache.key(phase.name, template.version, model, temperature, **content)
            # An answer cut at its token limit is kept for that limit only: a larger limit
            # asks again, for the whole answer.
            cut_key = LLMCache.key(phase.name, template.version, model, temperature,
                                   **content, cut_at=limit)
            if phase.falls_back and isinstance(request, Tolerant) and request.repairs is not None:
                failed_key = LLMCache.key(phase.name, template.version, model, temperature,
                                          **content, cut_at=limit, failed=True)
            cached = self._cached(key, cut_key, *([failed_key] if failed_key else []))
            if cached is not None and cached[0] == failed_key:
                raise TSVError(phase.label, f"{cached[1]} (kept in the LLM cache: the same "
                               "inputs fall back the same way)")
            if cached is not None and cached[0] == key:
                try:
                    return self._parse(phase, template, cached[1], request)
                except TSVError:  # cached under older rules: ask again
                    self.cache.discard(key)
            elif cached is not None:
                replayed = LLMResponse(cached[1], 0.0, 0, 0, model)
                try:
                    return self._cut(phase, template, AnswerCutError(
                        f"answer cut at {limit:,} tokens (the server stopped at the limit; "
                        "kept in the LLM cache)", response=replayed, label=phase.label),
                        request)
                except AnswerCutError:  # no longer usable under today's rules: ask again
                    self.cache.discard(cut_key)
        try:
            return self._ask_server(phase, template, request, llm_request, key, cut_key)
        except (TSVError, AnswerCutError) as err:
            if failed_key is not None and self.cache is not None:
                self.cache.put(failed_key, phase.name, err.reason)
            raise

    def _ask_server(self, phase: Phase[Req, Out], template: PromptTemplate, request: Req,
                    llm_request: LLMRequest, key: str | None, cut_key: str | None) -> Out:
        """Send, parse, ask again after an invalid answer as often as the phase allows; cache
        what parsed (under ``key``) or what was cut and still parsed (under ``cut_key``)."""
        last: TSVError | None = None
        for _ in range(phase.retries + 1):
            try:
                response = self.client.complete(llm_request, self.listener)
            except AnswerCutError as cut:
                self._record(cut.response)
                value = self._cut(phase, template, cut, request)
                if cut_key is not None and self.cache is not None:
                    self.cache.put(cut_key, phase.name, cut.response.text)
                return value
            self._record(response)
            text = (response.text if llm_request.schema is None
                    else phase.rows_from_json(response.text, request))
            try:
                value = self._parse(phase, template, text, request)
            except TSVError as err:
                err.log_path = self.client.log.path
                self.client.log.reject(response.log_id, err.reason)
                last = err
                continue
            if key is not None and self.cache is not None:
                self.cache.put(key, phase.name, text)
            return value
        assert last is not None
        raise last

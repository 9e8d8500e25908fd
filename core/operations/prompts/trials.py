"""Trying a prompt template on a real input: preview, test run, and A/B of two variants.

The phase that sends a template (:func:`core.llm.phases.phase_of`) builds its values and reads
its answer, so a test shows exactly what the app would send and parse. Tests never use the
cache: a test always asks the model. A rejected answer is a result (``error``), not a failure.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from core.assembly.model import fits
from core.errors import TemplateError
from core.llm.client import LLMClient
from core.llm.errors import TSVError
from core.llm.phase import PhaseContext
from core.llm.phases import phase_of
from core.llm.settings import AnswerSettings, LLMSettings
from core.llm.trial import PhaseInput, PhaseView
from core.progress import Listener
from core.prompts.template import PromptTemplate
from core.tokens import count_tokens


@dataclass(frozen=True)
class Preview:
    text: str
    missing: list[str] = field(default_factory=list)  # placeholders the input gives no value
    note: str = ""  # what to pick so the preview is complete
    tokens: int = 0  # the prompt's size (tiktoken)
    context_tokens: int = 0  # the model's context size
    answer_tokens: int = 0  # kept free in the context for the answer (max tokens)

    @property
    def over_by(self) -> int:
        """Tokens too many for the context once the answer's are kept free (0: it fits)."""
        if fits(self.tokens, 0, self.answer_tokens, self.context_tokens):
            return 0
        return self.tokens + self.answer_tokens - self.context_tokens


def preview(template: PromptTemplate, source: PhaseInput, settings: LLMSettings) -> Preview:
    """The prompt exactly as it would be sent for ``source`` (the first request, when the phase
    sends several) and its size against the model's context; without the input the phase
    needs, the template with what is missing."""
    note = ""
    try:
        rendered = phase_of(template).preview(source, template, settings)
    except TemplateError as err:
        rendered, note = template.render({}), str(err)
    return Preview(rendered.text, rendered.missing, note, count_tokens(rendered.text),
                   settings.context_tokens, settings.max_tokens)


@dataclass(frozen=True)
class TestRun:
    label: str
    version: str
    raw: str = ""
    view: PhaseView = PhaseView()
    error: str | None = None
    error_line: str | None = None
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


def run_template(settings: LLMSettings, template: PromptTemplate, source: PhaseInput, *,
                 answer: AnswerSettings | None = None, cancel: threading.Event | None = None,
                 listener: Listener | None = None) -> TestRun:
    """Run ``template`` on ``source`` with the configured model; ``listener`` hears each
    request wait, go and (when it wants the text) be written; ``cancel`` ends them."""
    phase = phase_of(template)
    with LLMClient(settings, cancel=cancel) as client:
        context = PhaseContext(client, {phase.name: template}, answer_settings=answer,
                               listener=listener)
        view, error, error_line = PhaseView(), None, None
        try:
            view = phase.test(context, source)
        except TSVError as err:
            error, error_line = str(err), err.line
    usage = context.usage
    return TestRun(
        label=template.label, version=template.version,
        raw="\n\n".join(r.text for r in context.responses), view=view, error=error,
        error_line=error_line, requests=usage.requests, prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens, latency_s=usage.latency_s,
    )


@dataclass(frozen=True)
class ABResult:
    a: TestRun
    b: TestRun
    only_a: list[str]
    only_b: list[str]
    raw_diff: str


def text_diff(old: str, new: str, old_label: str, new_label: str) -> str:
    """A unified diff (plain text, shown in a code block, so nothing is rendered as HTML), one
    line per line even where a text does not end with a line break."""
    return "\n".join(difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=old_label, tofile=new_label, n=2,
        lineterm="",
    ))


def run_ab(settings: LLMSettings, a: PromptTemplate, b: PromptTemplate, source: PhaseInput, *,
           answer: AnswerSettings | None = None, cancel: threading.Event | None = None,
           listen: Callable[[], Listener] | None = None) -> ABResult:
    """Both templates on the same input, concurrently; what one found and the other did not.
    ``listen`` gives each side a listener."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(lambda t: run_template(
            settings, t, source, answer=answer, cancel=cancel,
            listener=listen() if listen is not None else None), (a, b))
    return ABResult(
        a=first,
        b=second,
        only_a=[item for item in first.view.items if item not in set(second.view.items)],
        only_b=[item for item in second.view.items if item not in set(first.view.items)],
        raw_diff=text_diff(first.raw, second.raw, f"A {first.label}", f"B {second.label}"),
    )

"""The Prompts page's logic: checks, preview, test runs and A/B comparison of template variants.

Runs go through the LLM phases (``core.llm.phases``) with the edited template, behind a client
that records every request, so the page can show requests, tokens and latency per variant.
"""

from __future__ import annotations

import difflib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from core.documents.model import Document, Section, Span
from core.errors import ChunkLabError, TemplateError
from core.llm import anchors, phases
from core.llm.client import LLMClient, LLMResponse
from core.llm.settings import LLMSettings
from core.llm.tsv import TSVError
from core.prompts.inputs import PromptInput, titles_at, values_for
from core.prompts.library import PromptTemplate
from core.prompts.rag import build_system_prompt, parse_locales
from core.prompts.substitution import substitute
from core.prompts.topic import detect_topic

PASSAGE_TOKENS = 300  # size of the "chunks" offered as input to the chunk-level templates
RAG_PHASE = "rag_answer"
T = TypeVar("T")


@dataclass(frozen=True)
class Checks:
    errors: list[str] = field(default_factory=list)  # the template cannot be used as it is
    warnings: list[str] = field(default_factory=list)  # it can, but probably not as meant


def _mentions(text: str, word: str) -> bool:
    return word.lower() in text.lower()


def check_template(template: PromptTemplate) -> Checks:
    """What the editor warns about: unknown or unused placeholders, a broken answer format."""
    if not template.text.strip():
        return Checks(errors=["The template is empty."])
    if template.syntax == "rag_json":
        try:
            parse_locales(template.text)
        except ChunkLabError as err:
            return Checks(errors=[str(err)])
        return Checks()
    found = substitute(template.text, {}, template.placeholders)
    warnings = [
        f"{{{{{name}}}}} is not a placeholder of this template: it reaches the model as "
        f"written. Known: {', '.join(template.placeholders)}."
        for name in found.unknown
    ]
    warnings += [
        f"{{{{{name}}}}} is not used: the model will not see {template.placeholders[name][0]}"
        f"{template.placeholders[name][1:]}."
        for name in found.unused
    ]
    contract = template.contract
    names = contract.columns if contract.kind == "tsv" else contract.fields
    absent = [n for n in names if not _mentions(template.text, n)]
    if absent:
        what = "columns" if contract.kind == "tsv" else "JSON fields"
        warnings.append(
            f"The parser expects the {what} {', '.join(names)}, but the template never names "
            f"{', '.join(absent)}: the model may answer in another format."
        )
    return Checks(warnings=warnings)


def passages(document: Document, section: Section) -> list[Span]:
    """The section cut into runs of whole blocks of about PASSAGE_TOKENS tokens each."""
    selected = anchors.units_between(anchors.units(document), section.start, section.end)
    runs = anchors.windows(document, selected, PASSAGE_TOKENS)
    spans = [Span(start=run[0].start, end=min(run[-1].end, section.end)) for run in runs]
    return spans or [Span(start=section.start, end=section.end)]


def default_section(document: Document) -> int:
    """Index of the first section with several blocks: one worth splitting into chunks."""
    all_units = anchors.units(document)
    for i, section in enumerate(document.sections):
        if len(anchors.units_between(all_units, section.start, section.end)) >= 3:
            return i
    return 0


def locale_names(template: PromptTemplate) -> list[str]:
    try:
        return list(parse_locales(template.text))
    except ChunkLabError:
        return ["default"]


def reference_entries(document: Document | None, count: int) -> list[str]:
    """Numbered reference entries (seed 004's ``[n] title …`` form) from the document's start."""
    if document is None or count <= 0:
        return []
    entries = []
    for section in document.sections or []:
        for span in passages(document, section):
            entries.append((section.title, document.slice(span).strip()))
            break
        if len(entries) >= count:
            break
    if not entries:
        entries = [(document.source_name, document.text[:1200].strip())]
    return [f"[{i}] {document.source_name} · {title}\n{text}"
            for i, (title, text) in enumerate(entries[:count], start=1)]


@dataclass(frozen=True)
class Preview:
    text: str
    missing: list[str] = field(default_factory=list)


def preview(template: PromptTemplate, source: PromptInput, values: dict[str, str] | None = None,
            *, locale: str | None = None, references: int = 3) -> Preview:
    """The prompt exactly as it would be sent for ``source``."""
    if template.syntax == "rag_json":
        refs = reference_entries(source.document, references)
        return Preview(build_system_prompt(locale, refs, parse_locales(template.text)))
    rendered = template.render(values if values is not None else values_for(template.name,
                                                                            source))
    return Preview(rendered.text, rendered.missing)



class RecordingClient:
    """An LLM client that remembers every response it returned (for requests/tokens/latency)."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.responses: list[LLMResponse] = []

    def complete(self, prompt: str, **kwargs: Any) -> LLMResponse:
        response = self.client.complete(prompt, **kwargs)
        self.responses.append(response)
        return response

    def __getattr__(self, name: str) -> Any:  # settings, log: what the phases read
        return getattr(self.client, name)


@dataclass(frozen=True)
class TestRun:
    label: str
    version: str
    raw: str = ""
    rows: list[dict[str, Any]] = field(default_factory=list)  # the parsed answer as a table
    items: list[str] = field(default_factory=list)  # one line per parsed item, for A/B diffs
    spans: list[tuple[int, int, str]] = field(default_factory=list)  # drawn on the document
    error: str | None = None
    error_line: str | None = None
    warning: str | None = None
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


def _measured(run: dict[str, Any], recorder: RecordingClient, template: PromptTemplate) -> TestRun:
    responses = recorder.responses
    raw = run.pop("raw", None)
    if raw is None:
        raw = "\n\n".join(r.text for r in responses)
    return TestRun(
        label=template.label,
        version=template.version,
        raw=raw,
        requests=len(responses),
        prompt_tokens=sum(r.prompt_tokens for r in responses),
        completion_tokens=sum(r.completion_tokens for r in responses),
        latency_s=sum(r.latency_s for r in responses),
        **run,
    )


def _need(value: T | None, what: str) -> T:
    if value is None:
        raise TemplateError(f"Pick {what} under Input first.")
    return value


def run_phase(client: RecordingClient, template: PromptTemplate,
              source: PromptInput) -> dict[str, Any]:
    """One LLM phase with ``template`` on ``source``: parsed rows, diffable items, spans.

    No cache: a test always asks the model. A rejected answer is a result, not a failure.
    """
    document = _need(source.document, "a document")
    try:
        if template.name.startswith("structure_analysis"):
            result = phases.analyze_structure(client, document, template)
            return {
                "rows": [asdict(s) for s in result.sections],
                "items": [f"{'  ' * (s.level - 1)}{s.title} [{s.start}-{s.end})"
                          for s in result.sections],
                "spans": [(s.start, s.end, s.title) for s in result.sections],
            }
        if template.name.startswith("boundary_detection"):
            section = _need(source.section, "a section")
            found = phases.detect_boundaries(client, document, section, template,
                                             source.max_tokens)
            cuts = [b.position for b in found.boundaries] + [found.end]
            return {
                "rows": [asdict(b) for b in found.boundaries],
                "items": [f"chunk starts at {b.position} ({b.boundary_type})"
                          for b in found.boundaries],
                "spans": [(start, stop, f"chunk {i + 1}")
                          for i, (start, stop) in enumerate(zip(cuts, cuts[1:], strict=False))],
            }
        if template.name == "table_summary":
            table = _need(source.table, "a table")
            summary = phases.table_summary(client, document, table.markdown, template,
                                           heading_path=document.heading_path(table.start),
                                           caption=table.caption)
            return {"rows": [{"summary": summary}], "items": [summary],
                    "spans": [(table.start, table.end, "table")]}
        chunk = _need(source.chunk, "a chunk")
        chapter, section_title, subsection = titles_at(document, chunk.start)
        chunk_text = document.slice(chunk)
        span = [(chunk.start, chunk.end, "chunk")]
        if template.name == "chunk_metadata":
            row = asdict(phases.chunk_metadata(client, document, chunk_text, template,
                                               chapter=chapter, section=section_title))
            return {"rows": [row], "items": [f"{k}: {v}" for k, v in row.items()], "spans": span}
        if template.name == "contextual_prefix":
            prefix = phases.contextual_prefix(client, document, chunk_text, template,
                                              chapter=chapter, section=section_title,
                                              subsection=subsection)
            return {"rows": [{"prefix": prefix}], "items": [prefix], "spans": span}
    except TSVError as err:
        return {"error": str(err), "error_line": err.line}
    raise TemplateError(f"Template {template.name!r} cannot be tested here.")


def run_template(settings: LLMSettings, template: PromptTemplate, source: PromptInput, *,
                 question: str = "", locale: str | None = None,
                 references: int = 3) -> TestRun:
    """Run ``template`` on ``source`` with the configured model; parse errors become ``error``."""
    with LLMClient(settings) as client:
        recorder = RecordingClient(client)
        if template.name == "topic_detection":
            talk = source.conversation
            result = detect_topic(recorder, template, talk.current_topic, talk.context,
                                  talk.message)
            run = {"rows": [{"topic_status": result.status, "topic_summary": result.summary}],
                   "items": [f"{result.status}: {result.summary}"], "warning": result.warning}
        elif template.syntax == "rag_json":
            system = preview(template, source, locale=locale, references=references).text
            prompt = f"{system}\n\n# Question\n{question}"
            answer = recorder.complete(prompt, phase=RAG_PHASE, template_version=template.version)
            run = {"items": [line for line in answer.text.splitlines() if line.strip()]}
        else:
            run = run_phase(recorder, template, source)
    return _measured(run, recorder, template)


@dataclass(frozen=True)
class ABResult:
    a: TestRun
    b: TestRun
    only_a: list[str]
    only_b: list[str]
    raw_diff: str


def text_diff(old: str, new: str, old_label: str, new_label: str) -> str:
    """A unified diff (plain text, shown in a code block, so nothing is rendered as HTML)."""
    return "".join(difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile=old_label, tofile=new_label, n=2,
    ))


def run_ab(settings: LLMSettings, a: PromptTemplate, b: PromptTemplate, source: PromptInput,
           **options: Any) -> ABResult:
    """Both templates on the same input, concurrently; what one found and the other did not."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(lambda t: run_template(settings, t, source, **options), (a, b))
    return ABResult(
        a=first,
        b=second,
        only_a=[item for item in first.items if item not in set(second.items)],
        only_b=[item for item in second.items if item not in set(first.items)],
        raw_diff=text_diff(first.raw, second.raw, f"A {first.label}", f"B {second.label}"),
    )

"""The RAG answer: the assembled prompt sent with the user's answer model and temperature.

Every answer request goes through here — Assemble's "Ask the LLM", the Prompts page's RAG test
and ``python -m core assemble --ask`` — so the answer settings (model, temperature) always apply,
while the other phases keep theirs (:attr:`core.llm.phase.Phase.temperature`). The answer is
checked for its citation markers; it is never cached (asking again shows how answers vary).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.assembly import AssembledPrompt, Citation, CitationCheck, check_citations, marker
from core.llm import anchors
from core.llm.client import LLMRequest
from core.llm.phase import OneRequestPhase, PhaseContext, PhaseInput, PhaseView
from core.llm.settings import LLMSettings
from core.prompts.library import PromptTemplate
from core.prompts.locales import build_system_prompt, parse_locales
from core.prompts.substitution import Substitution


@dataclass(frozen=True)
class AnswerRequest:
    system: str
    user: str
    citations: list[Citation] = field(default_factory=list)

    @classmethod
    def of(cls, assembled: AssembledPrompt) -> AnswerRequest:
        return cls(assembled.prompt.system, assembled.prompt.user, list(assembled.citations))


@dataclass(frozen=True)
class Answer:
    text: str
    check: CitationCheck


def reference_entries(source: PhaseInput) -> list[str]:
    """Numbered reference entries (``[n] document · section`` and a passage) from the start of
    the chosen document, for trying the RAG template without a chunk set."""
    document = source.document
    if document is None or source.references <= 0:
        return []
    entries = [(section.title, document.slice(anchors.passages(document, section)[0]).strip())
               for section in document.sections[: source.references]]
    if not entries:
        entries = [(document.source_name, document.text[:1200].strip())]
    return [f"[{i}] {document.source_name} · {title}\n{text}"
            for i, (title, text) in enumerate(entries, start=1)]


def reference_citations(source: PhaseInput, count: int) -> list[Citation]:
    """The citations behind :func:`reference_entries`, so a test answer's markers are checked
    the way an assembled prompt's are."""
    document = source.document
    if document is None:
        return []
    titles = [s.title for s in document.sections[:count]] or [document.source_name]
    return [Citation(marker=marker(n), pack_id=f"reference-{n}", doc_id=document.doc_id,
                     source=document.source_name, heading_path=[title], span_offsets=[])
            for n, title in enumerate(titles[:count], start=1)]


class AnswerPhase(OneRequestPhase[AnswerRequest, Answer]):
    name = "rag_answer"
    label = "answer"
    template = "rag_system"
    inputs = ("document", "question")
    retries = 0

    def values(self, request: AnswerRequest) -> dict[str, str]:
        return {}

    def prompt(self, template: PromptTemplate, request: AnswerRequest) -> str:
        """System and user prompt as one chat message (the client sends one user message)."""
        return f"{request.system}\n\n{request.user}"

    def request(self, prompt: str, template: PromptTemplate, context: PhaseContext) -> LLMRequest:
        answer = context.answer_settings
        return LLMRequest(prompt, self.name, self.label, template.version,
                          model=answer.model or None, temperature=answer.temperature)

    def parse(self, answer: str, request: AnswerRequest) -> Answer:
        return Answer(answer, check_citations(answer, request.citations))

    def run(self, context: PhaseContext, assembled: AssembledPrompt) -> Answer:
        return context.ask(self, AnswerRequest.of(assembled))

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> AnswerRequest:
        entries = reference_entries(source)
        system = build_system_prompt(source.locale, entries, parse_locales(template.text))
        return AnswerRequest(system, f"# Question\n{source.question}",
                             reference_citations(source, len(entries)))

    def preview(self, source: PhaseInput, template: PromptTemplate,
                settings: LLMSettings) -> Substitution:
        """The system prompt the template makes (the question follows it when sent)."""
        return Substitution(self.first_request(source, template, settings).system)

    def view(self, result: Answer, source: PhaseInput) -> PhaseView:
        return PhaseView(items=[line for line in result.text.splitlines() if line.strip()],
                         check=result.check)


ANSWER = AnswerPhase()

"""The RAG answer: the assembled prompt sent with the user's answer model and temperature.

Every answer request goes through here — Assemble's "Ask the LLM", the Prompts page's RAG test
(on passages retrieved for its question), answer runs and ``python -m core assemble --ask`` —
so the answer settings (model, temperature) always apply, while the other phases keep theirs
(:attr:`core.llm.phase.Phase.temperature`). The answer is checked for its citation markers; it is
not cached here (asking again shows how answers vary; answer runs keep their own cache).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from core.assembly.citations import CitationCheck, check_citations
from core.assembly.model import AssembledPrompt, Citation
from core.assembly.prompt import marker
from core.chunking.chunk import Chunk
from core.chunking.registry import build_chunker
from core.llm.client import LLMRequest
from core.llm.grammar import cited_lines
from core.llm.phase import OneRequestPhase, PhaseContext
from core.llm.settings import LLMSettings
from core.llm.trial import PhaseInput, PhaseView
from core.prompts.locales import build_system_prompt, parse_locales
from core.prompts.substitution import Substitution
from core.prompts.template import PromptTemplate
from core.retrieval.bm25 import BM25Index

TEST_PASSAGE_TOKENS = 300  # a passage of the Prompts page's RAG test: a typical chunk


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
    stopped: str = ""  # why the answer was ended early (the model was repeating itself)


def test_passages(source: PhaseInput) -> list[Chunk]:
    """The passages of the chosen document that best match the question (BM25 over its
    recursive chunks of :data:`TEST_PASSAGE_TOKENS`), best first: what a retrieval would put in
    the prompt, for trying the RAG template without a chunk set. Without a question, the first
    passages."""
    document = source.document
    if document is None or source.references <= 0:
        return []
    chunks = build_chunker("recursive", size=TEST_PASSAGE_TOKENS, overlap=0).chunk(document)
    if not chunks:
        return []
    scores = BM25Index([c.text for c in chunks]).scores(source.question)
    best = sorted(range(len(chunks)), key=lambda i: (-scores[i], i))[: source.references]
    return [chunks[i] for i in best]


def _where(chunk: Chunk, source_name: str) -> str:
    return " > ".join(chunk.heading_path) or source_name


def reference_entries(source: PhaseInput) -> list[str]:
    """Reference entries of :func:`test_passages`, labelled with the markers an assembled
    prompt uses (``[¹] document · section`` and the passage), so the citation check names the
    sources as the prompt labels them."""
    document = source.document
    if document is None:
        return []
    return [f"{marker(n)} {document.source_name} · {_where(c, document.source_name)}\n"
            f"{c.text.strip()}" for n, c in enumerate(test_passages(source), start=1)]


def reference_citations(source: PhaseInput) -> list[Citation]:
    """The citations behind :func:`reference_entries`, so a test answer's markers are checked
    the way an assembled prompt's are."""
    document = source.document
    if document is None:
        return []
    return [Citation(marker=marker(n), pack_id=c.id, doc_id=document.doc_id,
                     source=document.source_name, heading_path=list(c.heading_path),
                     span_offsets=[(c.start, c.end)])
            for n, c in enumerate(test_passages(source), start=1)]


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
                          model=answer.model or None, temperature=answer.temperature,
                          seed=answer.seed)

    def answer_grammar(self, request: AnswerRequest, context: PhaseContext) -> str | None:
        """Held format: each line ends with markers of the prompt's passages (when the answer
        settings ask for it and the prompt has passages)."""
        if not (context.answer_settings.held_format and request.citations):
            return None
        return cited_lines([c.marker for c in request.citations])

    def parse(self, answer: str, request: AnswerRequest) -> Answer:
        return Answer(answer, check_citations(answer, request.citations))

    def run(self, context: PhaseContext, assembled: AssembledPrompt) -> Answer:
        return self.answered(context, AnswerRequest.of(assembled))

    def answered(self, context: PhaseContext, request: AnswerRequest) -> Answer:
        """The answer, saying whether it was ended early."""
        answer = context.ask(self, request)
        return replace(answer, stopped=context.responses[-1].stopped)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> AnswerRequest:
        entries = reference_entries(source)
        system = build_system_prompt(source.locale, entries, parse_locales(template.text))
        return AnswerRequest(system, f"# Question\n{source.question}",
                             reference_citations(source))

    def preview(self, source: PhaseInput, template: PromptTemplate,
                settings: LLMSettings) -> Substitution:
        """The system prompt the template makes (the question follows it when sent)."""
        return Substitution(self.first_request(source, template, settings).system)

    def view(self, result: Answer, source: PhaseInput) -> PhaseView:
        return PhaseView(items=[line for line in result.text.splitlines() if line.strip()],
                         check=result.check, warning=result.stopped.capitalize() or None,
                         references=reference_entries(source))


ANSWER = AnswerPhase()

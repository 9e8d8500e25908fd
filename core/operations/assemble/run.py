"""Retrieve, assemble the RAG prompt, and ask the model: what Assemble and the CLI do.

:class:`AssemblyOptions` holds every choice of the Assemble page and ``python -m core assemble``;
:func:`assemble` retrieves packs from a chunk set and builds the prompt; :func:`ask` sends it
with the user's answer settings and checks the answer's citations.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from core.assembly.citations import CitationCheck
from core.assembly.model import AssembledPrompt, CitationStyle, Estimator, Style
from core.assembly.prompt import SystemPrompt, assemble_prompt
from core.embeddings.settings import EmbeddingSettings
from core.errors import RerankError
from core.library import default_library
from core.llm.client import LLMClient
from core.llm.phase import PhaseContext
from core.llm.phases import ANSWER
from core.llm.settings import (
    AnswerSettings,
    LLMSettings,
    load_answer_settings,
    load_settings,
)
from core.progress import Listener
from core.prompts.library import PromptLibrary
from core.prompts.locales import TEMPLATE_NAME, build_system_prompt, parse_locales
from core.prompts.template import PromptTemplate
from core.retrieval.front_matter import SetApart
from core.retrieval.modes import RankMode
from core.retrieval.pack import Pack
from core.retrieval.rerank import Reranker
from core.retrieval.rerank_settings import RerankSettings, load_rerank_settings
from core.retrieval.retrieve import chunk_filter, retrieve
from core.store import ChunkStore

SystemChoice = Literal["builtin", "library"]


@dataclass(frozen=True)
class AssemblyOptions:
    limit: int = 5
    neighbors: int = 0
    ranking: RankMode = "vector"
    headroom: int = 300
    style: Style = "qa"
    citation_style: CitationStyle = "numeric"
    context_tokens: int | None = None
    estimator: Estimator = "tiktoken"
    system: SystemChoice = "library"  # the answer prompt of the prompt library, or the style's
    # built-in prompt (a summary's)
    locale: str | None = None  # of the library's RAG template
    doc_ids: tuple[str, ...] = ()  # retrieve from these documents only; empty: all
    merge_adjacent: bool = False  # small-to-big: neighbouring hits come back as one pack
    autocut: int | None = None  # jumps: hits up to the first large drop in score (limit: most)
    autocut_floor: int = 0  # hits autocut keeps whatever the scores
    rerank: bool = False  # the configured reranker reorders the best hits before the cut
    include_front_matter: bool = False  # covers, contents, indexes may be sources too


@dataclass(frozen=True)
class Assembly:
    chunk_set: str
    packs: list[Pack]
    assembled: AssembledPrompt
    set_apart: SetApart = SetApart()  # front matter the retrieval left out

    def export(self, question: str, options: AssemblyOptions) -> dict[str, Any]:
        """The assembly as JSON, the same from the Assemble page's download and
        ``python -m core assemble --with-packs``: the chunk set, the question and the options
        it was assembled with, the assembled prompt, and the retrieved packs."""
        return {"chunk_set": self.chunk_set, "question": question, "settings": asdict(options),
                "assembled": self.assembled.model_dump(mode="json"),
                "packs": [p.model_dump(mode="json") for p in self.packs]}


def template_system_prompt(template: PromptTemplate, locale: str | None) -> SystemPrompt:
    """A RAG answer template (any variant) as a system prompt of the kept packs."""
    locales = parse_locales(template.text)
    return lambda references: build_system_prompt(locale, references, locales)


def library_system_prompt(locale: str | None, library: PromptLibrary) -> SystemPrompt:
    """The prompt library's active RAG answer template as a system prompt of the kept packs."""
    return template_system_prompt(library.template(TEMPLATE_NAME), locale)


def assemble(question: str, chunk_set: str | None, options: AssemblyOptions, *,
             store: ChunkStore | None = None, library: PromptLibrary | None = None,
             doc_names: Mapping[str, str] | None = None,
             embedding: EmbeddingSettings | None = None,
             reranking: RerankSettings | None = None) -> Assembly:
    """Retrieve and build the prompt; sources are named by file name (``doc_names``, else the
    document library's, else the name the chunk set kept at ingest), the citations keep the
    document ids. ``embedding`` and ``reranking``
    are the session's endpoint settings (default: the saved ones and the environment)."""
    store = store or ChunkStore()
    if doc_names is None:
        doc_names = {e.doc_id: e.source_name for e in default_library().entries()}
    name = chunk_set or store.active_set() or ""
    filters = {"doc_id": list(options.doc_ids)} if options.doc_ids else None
    reranker = None
    if options.rerank:
        reranking = reranking or load_rerank_settings()
        if not reranking.configured:
            raise RerankError(reranking.missing_message())
        reranker = Reranker(reranking)
    try:
        packs = retrieve(question, limit=options.limit, per_hit_neighbors=options.neighbors,
                         ranking=options.ranking, chunk_set=name or None, filters=filters,
                         store=store, merge_adjacent=options.merge_adjacent,
                         autocut=options.autocut, embedding=embedding, reranker=reranker,
                         autocut_floor=options.autocut_floor,
                         include_front_matter=options.include_front_matter)
    finally:
        if reranker is not None:
            reranker.close()
    set_apart = SetApart()
    if name and not options.include_front_matter:
        set_apart = SetApart.of(c for c in store.front_matter_chunks(name)
                                if chunk_filter(filters)(c))
    doc_names = {**store.info(name).doc_names, **doc_names} if name else doc_names
    system = (library_system_prompt(options.locale, library or PromptLibrary())
              if options.system == "library" else None)
    assembled = assemble_prompt(
        question, packs, headroom_tokens=options.headroom, style=options.style,
        citation_style=options.citation_style, context_tokens=options.context_tokens,
        estimator=options.estimator, system_prompt=system, doc_names=doc_names,
    )
    return Assembly(name, packs, assembled, set_apart)


@dataclass(frozen=True)
class AnswerRun:
    text: str
    check: CitationCheck
    model: str
    temperature: float
    latency_s: float
    completion_tokens: int = 0
    answer_speed: float | None = None  # tokens per second written, when measured
    stopped: str = ""  # why the answer was ended early (the model was repeating itself)

    def took(self) -> str:
        """How the answer came: its model, temperature, time and pace."""
        pace = f" · {self.answer_speed:.1f} tokens/s" if self.answer_speed else ""
        tokens = f" · {self.completion_tokens:,} tokens" if self.completion_tokens else ""
        stopped = f" · {self.stopped}" if self.stopped else ""
        return (f"Answer from {self.model} (temperature {self.temperature:g}) in "
                f"{self.latency_s:.1f} s{tokens}{pace}{stopped}")

    def as_json(self) -> dict[str, object]:
        """The answer with its checked citations, as ``python -m core assemble --ask`` prints
        it: markers cited that exist (``used``), cited without a source (``unknown``), and
        sources never cited (``unused``); sentences said more than once (``repeats``)."""
        check = self.check
        return {"answer": self.text, "model": self.model, "temperature": self.temperature,
                "latency_s": round(self.latency_s, 3),
                "citations": {"ok": check.ok, "used": check.used, "unknown": check.unknown,
                              "unused": check.unused},
                "repeats": [r.model_dump() for r in check.repeats],
                **({"stopped": self.stopped} if self.stopped else {})}


def ask(assembled: AssembledPrompt, settings: LLMSettings | None = None,
        answer: AnswerSettings | None = None, library: PromptLibrary | None = None, *,
        cancel: threading.Event | None = None, listener: Listener | None = None) -> AnswerRun:
    """Send the assembled prompt with the answer settings (default: the saved ones, as the CLI
    uses them); check the answer's markers. ``listener`` hears the request wait in line, go
    and — when it asks for the text — be written; once ``cancel`` is set the request ends."""
    settings = settings or load_settings()
    answer = answer or load_answer_settings()
    template = (library or PromptLibrary()).template(ANSWER.template)
    with LLMClient(settings, cancel=cancel) as client:
        context = PhaseContext(client, {ANSWER.name: template}, answer_settings=answer,
                               listener=listener)
        result = ANSWER.run(context, assembled)
    response = context.responses[-1]
    return AnswerRun(result.text, result.check, response.model, answer.temperature,
                     response.latency_s, response.completion_tokens, response.answer_speed,
                     result.stopped)

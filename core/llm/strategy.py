"""The "llm" chunking strategy: it needs a model, so its run takes the connection.

Unlike a local strategy (:mod:`core.chunking.registry`), running it sends requests: :meth:`run`
takes the connection settings, the prompt library, progress and cancellation, and returns the
full result per document (structure, boundaries, usage, repairs, its error) besides the chunks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from core.documents.model import Document
from core.llm.anchors import Mode
from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.phase import PhaseContext
from core.llm.pipeline import CHUNKING_PHASES, STRATEGY, LLMConfig, LLMPipeline
from core.llm.run import LLMRun
from core.llm.settings import LLMSettings
from core.progress import Listener, ProgressFn
from core.prompts.library import PromptLibrary
from core.prompts.template import PromptTemplate


def chunking_templates(library: PromptLibrary, mode: Mode) -> dict[str, PromptTemplate]:
    """The active template of every chunking phase for ``mode``, by phase name."""
    return {phase.name: library.template(phase.template_name(mode)) for phase in CHUNKING_PHASES}


@dataclass(frozen=True)
class LLMStrategy:
    name: str = STRATEGY
    config: type[LLMConfig] = LLMConfig
    summary: str = "A model finds sections and chunk boundaries, and writes summaries."
    needs_llm: bool = True

    def run(
        self,
        documents: list[Document],
        config: LLMConfig,
        *,
        settings: LLMSettings,
        library: PromptLibrary,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
        notice: Callable[[str], None] | None = None,
        listener: Listener | None = None,
    ) -> list[LLMRun]:
        cache = LLMCache(enabled=config.cache)
        try:
            with LLMClient(settings, notice=notice, cancel=cancel) as client:
                context = PhaseContext(client, chunking_templates(library, config.mode), cache,
                                       listener=listener)
                return LLMPipeline(context, config, progress=progress, cancel=cancel).run(
                    documents)
        finally:
            cache.close()


LLM_STRATEGY = LLMStrategy()

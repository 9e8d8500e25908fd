"""Every chunking strategy a user can pick, local or LLM, and the one way to run one.

The local strategies come from :mod:`core.chunking.registry`; the "llm" strategy needs a model,
so running it takes the connection settings (its type says so: :class:`LLMStrategy`). Pages and
the CLI list strategies and chunk documents through here only.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from core.chunking.base import ChunkerConfig
from core.chunking.chunk import Chunk
from core.chunking.registry import LOCAL_STRATEGIES, LocalStrategy, make_config
from core.documents.model import Document
from core.errors import ChunkingError
from core.llm.pipeline import LLMConfig, LLMRun
from core.llm.settings import LLMSettings, load_settings
from core.llm.strategy import LLM_STRATEGY, LLMStrategy
from core.progress import ProgressFn
from core.prompts.library import PromptLibrary

Strategy = LocalStrategy | LLMStrategy
STRATEGIES: dict[str, Strategy] = {**LOCAL_STRATEGIES, LLM_STRATEGY.name: LLM_STRATEGY}


def strategy(name: str) -> Strategy:
    if name not in STRATEGIES:
        raise ChunkingError(
            f"Unknown chunking strategy {name!r}; choose one of {', '.join(STRATEGIES)}."
        )
    return STRATEGIES[name]


def validated_config(name: str, settings: Mapping[str, Any]) -> ChunkerConfig:
    """The strategy's typed configuration; ChunkingError names the first mistake."""
    return make_config(name, strategy(name).config, settings)


def run_llm(
    documents: list[Document],
    settings: Mapping[str, Any],
    *,
    llm: LLMSettings | None = None,
    library: PromptLibrary | None = None,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> list[LLMRun]:
    """LLM chunking of ``documents`` with everything each run found (structure, boundaries)."""
    config = validated_config(LLM_STRATEGY.name, settings)
    assert isinstance(config, LLMConfig)
    return LLM_STRATEGY.run(documents, config, settings=llm or load_settings(),
                            library=library or PromptLibrary(), progress=progress, cancel=cancel)


def chunk(
    document: Document,
    strategy_name: str,
    settings: Mapping[str, Any],
    *,
    llm: LLMSettings | None = None,
    library: PromptLibrary | None = None,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> list[Chunk]:
    """The chunks of ``document``; an LLM strategy uses ``llm`` (default: the saved settings)."""
    chosen = strategy(strategy_name)
    if isinstance(chosen, LocalStrategy):
        return chosen.build(settings).chunk(document)
    return run_llm([document], settings, llm=llm, library=library, progress=progress,
                   cancel=cancel)[0].chunks

"""Every chunking strategy a user can pick, local or LLM, and the one way to run one.

The local strategies come from :mod:`core.chunking.registry`; the "llm" strategy needs a model,
so running it takes the connection settings (its type says so: :class:`LLMStrategy`). Pages and
the CLI list strategies and chunk documents through here only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from core.chunking.base import ChunkerConfig
from core.chunking.chunk import Chunk
from core.chunking.edits import EDITED, EditedConfig, apply_edits
from core.chunking.registry import LOCAL_STRATEGIES, LocalStrategy, make_config
from core.documents.model import Document
from core.embeddings.port import Embedder
from core.errors import ChunkingError
from core.llm.pipeline import LLMConfig
from core.llm.plan import ChunkingEstimate, chunking_estimate
from core.llm.run import LLMRun
from core.llm.settings import LLMSettings, load_settings
from core.llm.strategy import LLM_STRATEGY, LLMStrategy
from core.progress import Listener, ProgressFn
from core.prompts.library import PromptLibrary


@dataclass(frozen=True)
class EditedStrategy:
    """Another configuration's chunks with hand edits (:mod:`core.chunking.edits`); it is made
    on Compare, never picked from scratch."""

    name: str = EDITED
    config: type[EditedConfig] = EditedConfig
    summary: str = "Another configuration's chunks, edited by hand."
    needs_llm: bool = False


EDITED_STRATEGY = EditedStrategy()
Strategy = LocalStrategy | LLMStrategy | EditedStrategy
STRATEGIES: dict[str, Strategy] = {**LOCAL_STRATEGIES, LLM_STRATEGY.name: LLM_STRATEGY,
                                   EDITED: EDITED_STRATEGY}
PICKABLE = [name for name in STRATEGIES if name != EDITED]  # what a user can start from


def strategy(name: str) -> Strategy:
    if name not in STRATEGIES:
        raise ChunkingError(
            f"Unknown chunking strategy {name!r}; choose one of {', '.join(STRATEGIES)}."
        )
    return STRATEGIES[name]


def uses_llm(name: str, settings: Mapping[str, Any]) -> bool:
    """Whether running this configuration calls the model (hand edits of an LLM chunking do)."""
    if name == EDITED:
        return uses_llm(str(settings.get("base", "")), settings.get("base_settings") or {})
    return name in STRATEGIES and STRATEGIES[name].needs_llm


def embeds(name: str, settings: Mapping[str, Any]) -> bool:
    """Whether this configuration's chunks depend on the embedder (hand edits of a cluster
    chunking do)."""
    if name == EDITED:
        return embeds(str(settings.get("base", "")), settings.get("base_settings") or {})
    chosen = STRATEGIES.get(name)
    return isinstance(chosen, LocalStrategy) and chosen.embeds


def strategy_label(name: str, settings: Mapping[str, Any]) -> str:
    """A short label of a strategy and its size: "recursive 300/30", "fixed 800 chars"."""
    size = settings.get("size")
    if not isinstance(size, int):
        return name
    overlap = settings.get("overlap") or 0
    unit = " chars" if settings.get("unit") == "chars" else ""
    return f"{name} {size}" + (f"/{overlap}" if overlap else "") + unit


def describe_settings(name: str, settings: Mapping[str, Any]) -> str:
    """The strategy's settings in a few words (:meth:`ChunkerConfig.describe`); nothing when
    they no longer make a configuration (a chunk set stored by an older version)."""
    try:
        return validated_config(name, settings).describe()
    except ChunkingError:
        return ""


def validated_config(name: str, settings: Mapping[str, Any]) -> ChunkerConfig:
    """The strategy's typed configuration; ChunkingError names the first mistake (a hand-edited
    configuration's base is checked too)."""
    config = make_config(name, strategy(name).config, settings)
    if isinstance(config, EditedConfig):
        if config.base == EDITED:
            raise ChunkingError("Hand edits start from a strategy's chunks, not from other "
                                "hand edits.")
        validated_config(config.base, config.base_settings)
    return config


@dataclass(frozen=True)
class RunOptions:
    """What running a strategy may need besides the document and its settings: for the LLM
    strategy the connection (default: the saved settings), the prompt library, where its
    warnings go (repairs of tolerant parsing, annotations missing) and where retried requests
    are told; for a strategy that embeds, the set's embedder (default MiniLM); progress and
    cancellation for every long run."""

    llm: LLMSettings | None = None
    embedder: Embedder | None = None
    library: PromptLibrary | None = None
    progress: ProgressFn | None = None
    cancel: threading.Event | None = None
    warn: Callable[[Document, str], None] | None = None
    notice: Callable[[str], None] | None = None  # a request failed and is asked again
    listener: Listener | None = None  # hears each model request wait in line and go


DEFAULT_OPTIONS = RunOptions()


def run_llm(documents: list[Document], settings: Mapping[str, Any],
            options: RunOptions = DEFAULT_OPTIONS) -> list[LLMRun]:
    """LLM chunking of ``documents`` with everything each run found (structure, boundaries,
    repairs); a document whose structure or boundaries failed carries its error instead."""
    config = validated_config(LLM_STRATEGY.name, settings)
    assert isinstance(config, LLMConfig)
    return LLM_STRATEGY.run(documents, config, settings=options.llm or load_settings(),
                            library=options.library or PromptLibrary(),
                            progress=options.progress, cancel=options.cancel,
                            notice=options.notice, listener=options.listener)


def llm_estimate(documents: list[Document], strategy_name: str, settings: Mapping[str, Any],
                 options: RunOptions = DEFAULT_OPTIONS) -> ChunkingEstimate | None:
    """What chunking ``documents`` with this configuration will cost in model calls before it
    runs, and their time at the server's measured speed (:mod:`core.llm.plan`); None when it
    calls no model (hand edits count their base's calls)."""
    if strategy_name == EDITED:
        return llm_estimate(documents, str(settings.get("base", "")),
                            settings.get("base_settings") or {}, options)
    if not uses_llm(strategy_name, settings):
        return None
    config = validated_config(strategy_name, settings)
    assert isinstance(config, LLMConfig)
    return chunking_estimate(documents, config, options.llm or load_settings(),
                             options.library or PromptLibrary())


@dataclass(frozen=True)
class Chunking:
    """A configuration's chunks of one document and, when the model made them (directly or as
    the base of hand edits), the LLM run behind them: its repairs and missing annotations."""

    chunks: list[Chunk]
    llm_run: LLMRun | None = None


def chunking(document: Document, strategy_name: str, settings: Mapping[str, Any],
             options: RunOptions = DEFAULT_OPTIONS) -> Chunking:
    """The chunks of ``document`` with the LLM run that made them, if any; the LLM strategy
    runs with ``options`` (and raises the error of a failed structure or boundary phase)."""
    chosen = strategy(strategy_name)
    if isinstance(chosen, LocalStrategy):
        return Chunking(chosen.build(settings, options.embedder).chunk(document))
    if isinstance(chosen, EditedStrategy):
        config = validated_config(strategy_name, settings)
        assert isinstance(config, EditedConfig)
        base = chunking(document, config.base, config.base_settings, options)
        return Chunking(apply_edits(document, base.chunks, config.edits.get(document.doc_id, []),
                                    config), base.llm_run)
    run = run_llm([document], settings, options)[0].checked()
    if options.warn is not None:
        for line in run.warning_lines():
            options.warn(document, line)
    return Chunking(run.chunks, run)


def chunk(document: Document, strategy_name: str, settings: Mapping[str, Any],
          options: RunOptions = DEFAULT_OPTIONS) -> list[Chunk]:
    """The chunks of ``document`` (see :func:`chunking`)."""
    return chunking(document, strategy_name, settings, options).chunks

"""The local chunking strategies by name, with their settings validated up front.

A local strategy is pure: it needs nothing but the document (the "llm" strategy, which needs a
model, is registered beside these by the operations layer). Adding one is a new module with its
config and chunker, plus one line in :data:`LOCAL_STRATEGIES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from core.chunking.base import Chunker, ChunkerConfig
from core.chunking.cluster import ClusterChunker, ClusterConfig
from core.chunking.fixed import FixedChunker, FixedConfig
from core.chunking.recursive import RecursiveChunker, RecursiveConfig
from core.chunking.semantic import SemanticChunker, SemanticConfig
from core.embeddings.port import Embedder
from core.errors import ChunkingError

BOUNDS = {"ge": "at least", "le": "at most", "gt": "more than", "lt": "less than"}


@dataclass(frozen=True)
class LocalStrategy:
    name: str
    config: type[ChunkerConfig]
    chunker: type[Chunker]
    summary: str
    needs_llm: bool = False
    # chunks by the set's embedder: the same settings under two embedders are two chunkings
    embeds: bool = False

    def build(self, settings: Mapping[str, Any], embedder: Embedder | None = None) -> Chunker:
        return self.chunker(make_config(self.name, self.config, settings), embedder)


LOCAL_STRATEGIES: dict[str, LocalStrategy] = {
    s.name: s
    for s in (
        LocalStrategy("fixed", FixedConfig, FixedChunker,
                      "Windows of a fixed size in tokens or characters."),
        LocalStrategy("recursive", RecursiveConfig, RecursiveChunker,
                      "Split on paragraphs, then lines, sentences and words, up to a size."),
        LocalStrategy("semantic", SemanticConfig, SemanticChunker,
                      "Group sentences whose meaning holds together, up to a size."),
        LocalStrategy("cluster", ClusterConfig, ClusterChunker,
                      "Group small pieces by the set's embedder, the most alike together, up "
                      "to a size.", embeds=True),
    )
}


def make_config(
    strategy: str, config: type[ChunkerConfig], settings: Mapping[str, Any]
) -> ChunkerConfig:
    """``config(**settings)``, or a ChunkingError with one sentence naming the mistake."""
    try:
        return config(**settings)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        if first["type"] == "extra_forbidden":
            fields = ", ".join(sorted(config.model_fields))
            raise ChunkingError(
                f"The {strategy} strategy has no setting {where!r}; its settings are {fields}."
            ) from None
        bound = next((f"{words} {first['ctx'][key]}" for key, words in BOUNDS.items()
                      if key in first.get("ctx", {})), None)
        if bound and where:
            raise ChunkingError(f"Invalid {strategy} settings: {where} must be {bound}, not "
                                f"{first['input']!r}.") from None
        message = first["msg"].removeprefix("Value error, ")
        prefix = f"setting {where!r}: " if where else ""
        raise ChunkingError(f"Invalid {strategy} settings: {prefix}{message}.") from None


def local_strategy(name: str) -> LocalStrategy:
    if name not in LOCAL_STRATEGIES:
        raise ChunkingError(
            f"Unknown chunking strategy {name!r}; choose one of {', '.join(LOCAL_STRATEGIES)}."
        )
    return LOCAL_STRATEGIES[name]


def build_chunker(strategy: str, embedder: Embedder | None = None, **settings: Any) -> Chunker:
    """A local chunker for ``strategy`` with ``settings`` (``embedder``: the set's, for a
    strategy that embeds); ChunkingError names what is wrong."""
    return local_strategy(strategy).build(settings, embedder)

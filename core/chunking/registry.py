"""Strategies by name, their settings validated up front, and the named presets.

The "llm" strategy lives in :mod:`core.llm.chunker` (HTTP client and all); it is imported only
when someone asks for it, so importing this module stays light and works without it.
"""

from __future__ import annotations

import importlib
import json
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from core.chunking.base import Chunk, Chunker, ChunkerConfig
from core.chunking.fixed import FixedChunker
from core.chunking.recursive import RecursiveChunker
from core.chunking.semantic import SemanticChunker
from core.config import data_dir
from core.documents.model import Document
from core.errors import ChunkingError
from core.files import write_json

LAZY_STRATEGIES = {"llm": "core.llm.chunker"}


class _Strategies(Mapping[str, type[Chunker]]):
    """``name -> Chunker class``; lazy entries are imported on first access."""

    def __init__(self, eager: list[type[Chunker]], lazy: dict[str, str]) -> None:
        self._loaded = {c.strategy: c for c in eager}
        self._lazy = lazy

    def __getitem__(self, name: str) -> type[Chunker]:
        if name not in self._loaded and name in self._lazy:
            module = importlib.import_module(self._lazy[name])
            found = [
                obj for obj in vars(module).values()
                if isinstance(obj, type) and issubclass(obj, Chunker)
                and getattr(obj, "strategy", None) == name
            ]
            if not found:
                raise KeyError(name)
            self._loaded[name] = found[0]
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter([*self._loaded, *(n for n in self._lazy if n not in self._loaded)])

    def __len__(self) -> int:
        return len(set(self._loaded) | set(self._lazy))


STRATEGIES: Mapping[str, type[Chunker]] = _Strategies(
    [FixedChunker, RecursiveChunker, SemanticChunker], LAZY_STRATEGIES
)

PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "fixed 1000 chars": ("fixed", {"size": 1000, "overlap": 0, "unit": "chars", "tables": False}),
    "fixed 500 tokens": ("fixed", {"size": 500, "overlap": 0, "unit": "tokens", "tables": False}),
    "recursive 500/50": (
        "recursive", {"size": 500, "overlap": 50, "unit": "tokens", "tables": True}
    ),
    "recursive 500/50 (no tables)": (
        "recursive", {"size": 500, "overlap": 50, "unit": "tokens", "tables": False}
    ),
    "recursive 500/50 by section": (
        "recursive",
        {"size": 500, "overlap": 50, "unit": "tokens", "tables": True, "respect_sections": True},
    ),
    "semantic": ("semantic", {"size": 400, "tables": True}),
}


def available(strategy: str) -> bool:
    """Whether the strategy can be loaded here (the LLM module may be missing)."""
    try:
        STRATEGIES[strategy]
    except (KeyError, ImportError):
        return False
    return True


def _chunker_class(strategy: str) -> type[Chunker]:
    try:
        return STRATEGIES[strategy]
    except (KeyError, ImportError) as err:
        if strategy in LAZY_STRATEGIES:
            raise ChunkingError(
                f"The {strategy} strategy is not available in this installation."
            ) from err
        names = ", ".join(n for n in STRATEGIES if available(n))
        raise ChunkingError(
            f"Unknown chunking strategy {strategy!r}; choose one of {names}."
        ) from err


def config_class(strategy: str) -> type[ChunkerConfig]:
    """The settings model of a strategy: the type its chunker declares for ``config``."""
    chunker = _chunker_class(strategy)
    declared = typing.get_type_hints(chunker).get("config")
    if isinstance(declared, type) and issubclass(declared, ChunkerConfig):
        return declared
    return ChunkerConfig


def _sentence(err: ValidationError, strategy: str) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        fields = ", ".join(sorted(config_class(strategy).model_fields))
        return f"The {strategy} strategy has no setting {where!r}; its settings are {fields}."
    prefix = f"setting {where!r}: " if where else ""
    return f"Invalid {strategy} settings: {prefix}{message}."


def build_chunker(strategy: str, **settings: Any) -> Chunker:
    """A chunker for ``strategy`` with ``settings``; ChunkingError names what is wrong."""
    chunker = _chunker_class(strategy)
    try:
        config = config_class(strategy)(**settings)
    except ValidationError as err:
        raise ChunkingError(_sentence(err, strategy)) from None
    return chunker(config)


def chunk_document(document: Document, strategy: str, **settings: Any) -> list[Chunk]:
    return build_chunker(strategy, **settings).chunk(document)


def _user_presets_path() -> Path:
    return data_dir() / "chunk_presets.json"


def user_presets() -> dict[str, tuple[str, dict[str, Any]]]:
    """Named configurations the user saved (data folder); unreadable entries are skipped."""
    try:
        raw = json.loads(_user_presets_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        name: (entry[0], dict(entry[1]))
        for name, entry in raw.items()
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], dict)
    }


def save_user_preset(name: str, strategy: str, settings: dict[str, Any]) -> None:
    """Save a named configuration after checking it builds; a built-in name cannot be reused."""
    name = name.strip()
    if not name or len(name) > 80:
        raise ChunkingError("A preset name needs 1 to 80 characters.")
    if name in PRESETS:
        raise ChunkingError(f"{name!r} is a built-in preset; choose another name.")
    build_chunker(strategy, **settings)
    presets = {n: list(p) for n, p in user_presets().items()}
    presets[name] = [strategy, settings]
    write_json(_user_presets_path(), presets, indent=2, sort_keys=True)


def delete_user_preset(name: str) -> None:
    presets = user_presets()
    if presets.pop(name, None) is not None:
        write_json(_user_presets_path(), presets, indent=2, sort_keys=True)

"""Options shared by ``ingest``, ``eval``, ``tune`` and ``assemble``: which embedder, which
reranking."""

from __future__ import annotations

import argparse

from core.embeddings.settings import BUILTIN_NAME, ENDPOINT_NAME
from core.operations.evaluation.stacks import RERANK_MODES

EMBEDDER_HELP = (f"{BUILTIN_NAME} (the built-in MiniLM) or {ENDPOINT_NAME} (EMBEDDING_BASE_URL, "
                 "EMBEDDING_MODEL, EMBEDDING_API_KEY, or as saved on Settings)")


def add_embedder_option(parser: argparse.ArgumentParser, *, repeat: bool = False,
                        repeated: str = f"repeat to compare embedders (default {BUILTIN_NAME})"
                        ) -> None:
    """``--embedder``; with ``repeat`` it may be given several times (``repeated`` says what
    that does, and the default)."""
    if repeat:
        parser.add_argument("--embedder", action="append", choices=(BUILTIN_NAME, ENDPOINT_NAME),
                            help=f"embed with {EMBEDDER_HELP}; {repeated}")
    else:
        parser.add_argument("--embedder", choices=(BUILTIN_NAME, ENDPOINT_NAME),
                            default=BUILTIN_NAME,
                            help=f"embed a new set with {EMBEDDER_HELP} (default {BUILTIN_NAME})")


def add_rerank_option(parser: argparse.ArgumentParser, *, modes: bool = False) -> None:
    where = "the /v1/rerank endpoint of RERANK_BASE_URL and RERANK_MODEL (or as saved on Settings)"
    if modes:
        parser.add_argument("--rerank", choices=RERANK_MODES, default="off",
                            help=f"reorder the best hits with {where}: off (default), on, or "
                                 "both (each configuration with and without)")
    else:
        parser.add_argument("--rerank", action="store_true",
                            help=f"reorder the best hits with {where} before the cut")

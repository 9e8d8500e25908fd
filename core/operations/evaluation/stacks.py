"""Which embedder and reranker a configuration runs with: what a page or the CLI offers, and
configurations × embedders × reranking as the candidates of one evaluation.

The same chunking under two embedders is two candidates, so the evaluation compares them pair
by pair like any two configurations. A chunk set is embedded by its own embedder, and a
configuration that names one (a preset saved with its embedder) by that one: neither is
multiplied by the embedders chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from core.embeddings.identity import BUILTIN, EmbedderRef
from core.errors import RerankError
from core.operations.evaluation.candidates import Candidate
from core.retrieval.rerank_settings import RerankRef, RerankSettings, load_rerank_settings

RerankMode = Literal["off", "on", "both"]
RERANK_MODES: tuple[RerankMode, ...] = ("off", "on", "both")
RERANKED = "reranked"


def configured_reranker(settings: RerankSettings | None = None) -> RerankRef:
    """The configured reranker; RerankError saying what to set when there is none."""
    settings = settings or load_rerank_settings()
    if not settings.configured:
        raise RerankError(settings.missing_message())
    return settings.ref()


def expand(candidates: Sequence[Candidate], embedders: Sequence[EmbedderRef] = (BUILTIN,),
           rerank: RerankRef | None = None, mode: RerankMode = "off") -> list[Candidate]:
    """Each configuration under each embedder (a chunk set or a configuration that names its
    embedder once, under its own), reranked per ``mode``; labels name the embedder when it is
    not MiniLM alone, and the reranking."""
    embedders = list(dict.fromkeys(embedders)) or [BUILTIN]
    named = len(embedders) > 1 or not embedders[0].builtin
    out: list[Candidate] = []
    for candidate in candidates:
        if candidate.chunk_set or candidate.own_embedder:
            out.append(candidate)
            continue
        for ref in embedders:
            label = f"{candidate.label} · {ref.label}" if named else candidate.label
            out.append(replace(candidate, label=label, embedder=ref))
    if mode == "off":
        return out
    if rerank is None:
        raise RerankError("Reranking was asked for, but no reranker is configured.")
    reranked = [replace(c, label=f"{c.label} · {RERANKED}", rerank=rerank) for c in out]
    return reranked if mode == "on" else [c for pair in zip(out, reranked, strict=True)
                                          for c in pair]

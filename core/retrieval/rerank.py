"""An optional reranking stage: a ``/v1/rerank`` endpoint reorders the top N hits before the cut.

The request is the Jina/Cohere shape that llama.cpp (``--reranking``) and Text Embeddings
Inference serve: ``{model, query, documents, top_n}`` → ``{results: [{index,
relevance_score}]}`` (a bare list of ``{index, score}`` is read too). No registry package ships
cross-encoder weights, so the stage is endpoint-only, configured like the embedder
(:mod:`core.retrieval.rerank_settings`). A failure raises one :class:`~core.errors.RerankError`.

:func:`rerank_hits` is the step: the best ``top_n`` hits come back in the reranker's order with
its relevance scores, the hits below them follow unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import httpx

from core.endpoint import EndpointClient
from core.errors import RerankError
from core.retrieval.rerank_settings import RerankRef, RerankSettings, load_rerank_settings

WHAT = "The reranking endpoint"
T = TypeVar("T")


class Reranker:
    """``settings.model`` at ``settings.base_url``, one request per query (thread-safe)."""

    def __init__(self, settings: RerankSettings, *,
                 transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not settings.configured:
            raise RerankError(settings.missing_message())
        self.settings = settings
        self.ref = settings.ref()
        self._client = EndpointClient(settings, RerankError, WHAT, transport=transport,
                                      sleep=sleep)

    def __enter__(self) -> Reranker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def scores(self, query: str, documents: Sequence[str]) -> list[tuple[int, float]]:
        """``(index into documents, relevance)`` best first, every document once."""
        if not documents:
            return []
        answer = self._client.post("rerank", {"model": self.settings.model, "query": query,
                                              "documents": list(documents),
                                              "top_n": len(documents)})
        return _ranked(answer, len(documents), self._client)


def _ranked(answer: Any, count: int, client: EndpointClient) -> list[tuple[int, float]]:
    items = answer.get("results") if isinstance(answer, dict) else answer
    if not isinstance(items, list):
        raise client.fail("its answer holds no results list")
    found: dict[int, float] = {}
    try:
        for item in items:
            index = int(item["index"])
            score = float(item["relevance_score"] if "relevance_score" in item
                          else item["score"])
            if 0 <= index < count:
                found.setdefault(index, score)
    except (KeyError, TypeError, ValueError):
        raise client.fail("its results lack an index or a relevance_score") from None
    if not found:
        raise client.fail(f"it scored none of the {count} documents")
    ranked = sorted(found.items(), key=lambda pair: (-pair[1], pair[0]))
    # Documents the endpoint left out keep their order, after the ones it scored.
    return ranked + [(i, float("-inf")) for i in range(count) if i not in found]


def rerank_hits(reranker: Reranker, query: str, hits: Sequence[tuple[T, float]],
                text: Callable[[T], str]) -> list[tuple[T, float]]:
    """``hits`` (best first) with the best ``top_n`` reordered by the reranker and scored by
    its relevance; the rest follow as they were."""
    head = list(hits[: reranker.settings.top_n])
    order = reranker.scores(query, [text(item) for item, _ in head])
    reordered = [(head[i][0], score if score != float("-inf") else head[i][1])
                 for i, score in order]
    return reordered + list(hits[len(head):])


def resolve_reranker(ref: RerankRef, settings: RerankSettings | None = None) -> Reranker:
    """The reranker ``ref`` names; ``settings`` (default: the saved ones and the environment)
    bring the key and timeouts when they point at the same address."""
    aimed = (settings or load_rerank_settings()).aimed_at(ref)
    return Reranker(aimed.model_copy(update={"top_n": ref.top_n}))

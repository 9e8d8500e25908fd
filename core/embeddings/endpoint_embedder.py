"""Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint.

Texts go in batches of ``batch_size`` per request, ``concurrency`` requests at once; a transient
failure (connect error, timeout, 429, 5xx) is asked again with backoff, ``max_retries`` times
(:class:`core.endpoint.EndpointClient`). The first batch that fails for good stops the others
and raises one :class:`~core.errors.EmbeddingError` whose sentence names the model and host
(never the key). Vectors are L2-normalised and cached like MiniLM's, under this model and
address (:mod:`core.embeddings.cache`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

import httpx
import numpy as np

from core.embeddings.cache import cache_for, cached_embed
from core.embeddings.settings import EmbeddingSettings
from core.endpoint import EndpointClient
from core.errors import EmbeddingError

WHAT = "The embedding endpoint"


class EndpointEmbedder:
    """``settings.model`` at ``settings.base_url``; the key travels only in a request header."""

    def __init__(self, settings: EmbeddingSettings, *,
                 transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not settings.configured:
            raise EmbeddingError(settings.missing_message())
        self.settings = settings
        self.ref = settings.ref()
        self._transport = transport
        self._sleep = sleep
        self._cache = cache_for(self.ref.namespace, self.ref.cache_stem)

    def __reduce__(self) -> tuple[type[EndpointEmbedder], tuple[EmbeddingSettings]]:
        """Pickled as its settings (a chunk task carries it to a Ray worker, which embeds
        with its own cache)."""
        return EndpointEmbedder, (self.settings,)

    @property
    def parallel_texts(self) -> int:
        """Texts one call should carry to keep every allowed request busy."""
        return self.settings.batch_size * self.settings.concurrency

    def embed(self, texts: Sequence[str], *, use_cache: bool = True,
              persist: bool = True) -> np.ndarray:
        """Rows of norm 1 in the order of ``texts``; EmbeddingError when the endpoint fails."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return cached_embed(self._cache, self._compute, texts, use_cache=use_cache,
                            persist=persist)

    def embed_queries(self, texts: Sequence[str], *, persist: bool = True) -> np.ndarray:
        """Questions are embedded as any text (no instruction prefix is assumed)."""
        return self.embed(texts, persist=persist)

    def _compute(self, texts: list[str]) -> np.ndarray:
        size = self.settings.batch_size
        batches = [texts[start : start + size] for start in range(0, len(texts), size)]
        client = EndpointClient(self.settings, EmbeddingError, WHAT, transport=self._transport,
                                sleep=self._sleep)
        with client, ThreadPoolExecutor(max_workers=min(self.settings.concurrency,
                                                        len(batches))) as pool:
            futures = [pool.submit(self._batch, client, batch) for batch in batches]
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            failed = next((f for f in futures if f in done and f.exception()), None)
            if failed is not None:
                client.stop()  # requests not yet sent fail at once
                for future in futures:
                    future.cancel()
                raise failed.exception()  # type: ignore[misc]
            parts = [future.result() for future in futures]
        sizes = {part.shape[1] for part in parts}
        if len(sizes) > 1:
            raise client.fail(f"vectors of {min(sizes)} and {max(sizes)} dimensions came back "
                              "for one model")
        matrix = np.concatenate(parts).astype(np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.clip(norms, 1e-12, None)

    def _batch(self, client: EndpointClient, batch: list[str]) -> np.ndarray:
        answer = client.post("embeddings", {"model": self.settings.model, "input": batch,
                                            "encoding_format": "float"})
        return _vectors(answer, len(batch), client)


def _vectors(answer: Any, expected: int, client: EndpointClient) -> np.ndarray:
    """The ``data[].embedding`` lists of an OpenAI embeddings answer, in ``index`` order."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != expected:
        got = len(data) if isinstance(data, list) else "no"
        raise client.fail(f"it answered {got} vectors for {expected} texts")
    try:
        ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
        matrix = np.array([item["embedding"] for item in ordered], dtype=np.float32)
    except (AttributeError, KeyError, TypeError, ValueError):
        raise client.fail("its answer holds no list of numbers under data[].embedding"
                          ) from None
    if matrix.ndim != 2 or matrix.shape[1] == 0 or not np.isfinite(matrix).all():
        raise client.fail("its vectors are empty, ragged or not finite")
    return matrix

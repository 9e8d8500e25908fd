"""Check an embedding or reranking endpoint before using it: one small request each, without
retries, and what came back (vector size and speed; whether the ranking makes sense)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.embeddings.endpoint_embedder import EndpointEmbedder
from core.embeddings.settings import EmbeddingSettings
from core.retrieval.rerank import Reranker
from core.retrieval.rerank_settings import RerankSettings

PROBES = [
    "The policy pays for water damage caused by a burst pipe.",
    "Claims must be reported within thirty days of the loss.",
    "The pump station runs two duty pumps and one standby pump.",
    "Minutes of the planning committee meeting held on Tuesday.",
    "Quarterly revenue rose by four percent against the budget.",
    "Replace the filter cartridge every six months.",
    "A deductible of 500 applies to each claim.",
    "The asset register lists every vehicle with its depot.",
] * 2  # 16 texts
QUERY = "What does the policy pay for water damage?"
DOCUMENTS = ["The football league standings were published on Monday.",
             "Water damage from a burst pipe is covered by the policy.",
             "Bake the bread for forty minutes at 200 degrees."]
RELEVANT = 1


@dataclass(frozen=True)
class EmbedderReport:
    model: str
    location: str
    dimension: int
    texts: int
    seconds: float

    @property
    def texts_per_second(self) -> float:
        return self.texts / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        return (f"Connected: {self.model} at {self.location} embeds {self.dimension}-dimension "
                f"vectors, {self.texts} sentences in {self.seconds * 1000:.0f} ms "
                f"({self.texts_per_second:,.0f} a second).")


def check_embedder(settings: EmbeddingSettings) -> EmbedderReport:
    """Embed a few sentences (uncached, no retries); EmbeddingError says what failed."""
    embedder = EndpointEmbedder(settings.model_copy(update={"max_retries": 0}))
    texts = [f"{text} ({n})" for n, text in enumerate(PROBES)]
    started = time.perf_counter()
    vectors = embedder.embed(texts, use_cache=False)
    seconds = time.perf_counter() - started
    return EmbedderReport(settings.model, settings.location, int(vectors.shape[1]), len(texts),
                          seconds)


@dataclass(frozen=True)
class RerankReport:
    model: str
    location: str
    seconds: float
    order: list[int]  # the probe documents, best first

    @property
    def sensible(self) -> bool:
        return bool(self.order) and self.order[0] == RELEVANT

    def summary(self) -> str:
        took = f"{self.model} at {self.location} ranked 3 passages in {self.seconds * 1000:.0f} ms"
        if self.sensible:
            return f"Connected: {took}, the relevant one first."
        return (f"Connected, but {took} without putting the relevant one first: is it a "
                "reranking model?")


def check_reranker(settings: RerankSettings) -> RerankReport:
    """Rerank three passages for one question (no retries); RerankError says what failed."""
    with Reranker(settings.model_copy(update={"max_retries": 0})) as reranker:
        started = time.perf_counter()
        order = [index for index, _ in reranker.scores(QUERY, DOCUMENTS)]
        seconds = time.perf_counter() - started
    return RerankReport(settings.model, settings.location, seconds, order)

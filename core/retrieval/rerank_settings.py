"""The reranking endpoint's settings: a ``/v1/rerank`` endpoint (llama.cpp ``--reranking``, Text
Embeddings Inference), configured like the embedder: ``RERANK_BASE_URL``, ``RERANK_MODEL``,
``RERANK_API_KEY`` (environment, an ``[rerank]`` table in ``.streamlit/secrets.toml``, or the
Settings page, saved without the key), plus ``top_n``, how many ranked hits it reorders."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from core.endpoint import EndpointRef, EndpointSettings, SettingsSource

SOURCE = SettingsSource(
    "rerank_settings.json",
    {"base_url": "RERANK_BASE_URL", "api_key": "RERANK_API_KEY", "model": "RERANK_MODEL"},
    "rerank")
ENV_KEYS = SOURCE.env
DEFAULT_TOP_N = 20


class RerankRef(EndpointRef):
    """The reranker a result depends on: model, address (no credentials) and depth."""

    top_n: int = DEFAULT_TOP_N


class RerankSettings(EndpointSettings):
    """The endpoint, and how many of the best ranked hits it reorders."""

    top_n: int = Field(DEFAULT_TOP_N, ge=2, le=200)

    def ref(self) -> RerankRef:
        return RerankRef(model=self.model.strip(), base_url=self.base_url, top_n=self.top_n)

    def missing_message(self) -> str:
        return SOURCE.missing(self, "reranking endpoint",
                              "a llama.cpp server started with --reranking or Text Embeddings "
                              "Inference")


def load_rerank_settings() -> RerankSettings:
    return SOURCE.load(RerankSettings)


def save_rerank_settings(settings: RerankSettings) -> Path:
    """Persist the non-secret settings; the API key is never written."""
    return SOURCE.save(settings)

"""The embedding endpoint's settings: any OpenAI-compatible ``/v1/embeddings`` (OpenAI, Ollama,
llama.cpp ``--embedding``, vLLM, LM Studio, Text Embeddings Inference).

Configured like the LLM (:class:`core.endpoint.SettingsSource`): ``EMBEDDING_BASE_URL``,
``EMBEDDING_MODEL``, ``EMBEDDING_API_KEY`` in the environment, the same keys or an
``[embedding]`` table in ``.streamlit/secrets.toml``, or the Settings page (saved without the
key in ``data_dir()/embedding_settings.json``).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from core.embeddings.identity import EmbedderRef
from core.endpoint import EndpointSettings, SettingsSource

SOURCE = SettingsSource(
    "embedding_settings.json",
    {"base_url": "EMBEDDING_BASE_URL", "api_key": "EMBEDDING_API_KEY",
     "model": "EMBEDDING_MODEL"}, "embedding")
ENV_KEYS = SOURCE.env


class EmbeddingSettings(EndpointSettings):
    """The endpoint, and how many texts go in one request."""

    batch_size: int = Field(64, ge=1, le=2048)

    def ref(self) -> EmbedderRef:
        return EmbedderRef(model=self.model.strip(), base_url=self.base_url)

    def missing_message(self) -> str:
        return SOURCE.missing(self, "embedding endpoint",
                              "Ollama, a llama.cpp server started with --embedding, vLLM, "
                              "LM Studio, Text Embeddings Inference or OpenAI")


def load_embedding_settings() -> EmbeddingSettings:
    return SOURCE.load(EmbeddingSettings)


def save_embedding_settings(settings: EmbeddingSettings) -> Path:
    """Persist the non-secret settings; the API key is never written."""
    return SOURCE.save(settings)

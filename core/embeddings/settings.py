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

from core.embeddings.identity import BUILTIN, EmbedderRef
from core.endpoint import EndpointSettings, SettingsSource
from core.errors import EmbeddingError

SOURCE = SettingsSource(
    "embedding_settings.json",
    {"base_url": "EMBEDDING_BASE_URL", "api_key": "EMBEDDING_API_KEY",
     "model": "EMBEDDING_MODEL"}, "embedding")
ENV_KEYS = SOURCE.env
BUILTIN_NAME = "minilm"  # how the CLI names MiniLM
ENDPOINT_NAME = "endpoint"  # the CLI's name for the configured endpoint


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


def choices(settings: EmbeddingSettings | None = None) -> list[EmbedderRef]:
    """What a page offers: MiniLM, and the configured endpoint when there is one."""
    settings = settings or load_embedding_settings()
    return [BUILTIN, *([settings.ref()] if settings.configured else [])]


def by_name(name: str, settings: EmbeddingSettings | None = None) -> EmbedderRef:
    """The CLI's ``--embedder``: ``minilm`` or ``endpoint`` (the configured one)."""
    if name == BUILTIN_NAME:
        return BUILTIN
    if name == ENDPOINT_NAME:
        settings = settings or load_embedding_settings()
        if not settings.configured:
            raise EmbeddingError(settings.missing_message())
        return settings.ref()
    raise EmbeddingError(f"Unknown embedder “{name}”; choose {BUILTIN_NAME} or {ENDPOINT_NAME}.")

"""Connection settings for any OpenAI-compatible endpoint, and the user's answer settings.

Where they come from, later sources winning: defaults, the non-secret settings the Settings page
saved in ``data_dir()/llm_settings.json``, ``.streamlit/secrets.toml``, then the environment
(``LLM_BASE_URL``, ``LLM_API_KEY``, ``LLM_MODEL``). The API key lives only in memory: it is a
:class:`~pydantic.SecretStr`, never written by :func:`save_settings`, never logged or cached.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from core.config import data_dir
from core.files import write_json

SETTINGS_FILE = "llm_settings.json"
ANSWER_SETTINGS_FILE = "answer_settings.json"
SECRETS_FILES = (Path(".streamlit/secrets.toml"), Path("~/.streamlit/secrets.toml"))
ENV_KEYS = {"base_url": "LLM_BASE_URL", "api_key": "LLM_API_KEY", "model": "LLM_MODEL"}
MAX_TIMEOUT_S = 3600.0  # a CPU server on a busy machine may read a long prompt for many minutes


class EndpointPreset(BaseModel):
    """A kind of server: where it usually listens, whether it wants a key, a model to try."""

    model_config = ConfigDict(frozen=True)

    base_url: str
    needs_key: bool
    example_model: str


ENDPOINT_PRESETS: dict[str, EndpointPreset] = {
    "OpenAI": EndpointPreset(
        base_url="https://api.openai.com/v1", needs_key=True, example_model="gpt-4o-mini"
    ),
    "OpenRouter": EndpointPreset(
        base_url="https://openrouter.ai/api/v1",
        needs_key=True,
        example_model="openai/gpt-4o-mini",
    ),
    "Ollama": EndpointPreset(
        base_url="http://127.0.0.1:11434/v1", needs_key=False, example_model="qwen2.5:1.5b"
    ),
    "llama.cpp server": EndpointPreset(
        base_url="http://127.0.0.1:8080/v1", needs_key=False, example_model="local"
    ),
    "Custom": EndpointPreset(base_url="", needs_key=False, example_model=""),
}


class LLMSettings(BaseModel):
    """One endpoint and the generation choices of the structured phases (chunking, metadata,
    prefixes, summaries, topics). Answers use :class:`AnswerSettings` on top of it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    base_url: str = ""
    api_key: SecretStr = SecretStr("")
    model: str = ""
    temperature: float = Field(0.3, ge=0.0, le=2.0)
    max_tokens: int = Field(1024, ge=16, le=65536)  # completion limit per request
    timeout: float = Field(60.0, gt=0, le=MAX_TIMEOUT_S)  # seconds per request
    # Wait longer than ``timeout`` when the server's measured speed says a request needs it.
    timeout_from_speed: bool = True
    concurrency: int = Field(4, ge=1, le=32)  # requests in flight at once
    context_tokens: int = Field(8192, ge=1024, le=2_000_000)  # the model's context window
    max_retries: int = Field(3, ge=0, le=10)  # transient failures only
    # A key was given when these settings were saved: without one now (a browser refresh ends
    # the session that held it), the pages say so instead of failing with HTTP 401.
    needs_key: bool = False

    @property
    def configured(self) -> bool:
        return bool(self.base_url.strip() and self.model.strip())

    @property
    def key_missing(self) -> bool:
        return self.needs_key and not self.api_key.get_secret_value()

    def public_dict(self) -> dict[str, Any]:
        """Everything except the key: safe to save, log, cache or show."""
        return self.model_dump(mode="json", exclude={"api_key"})

    def missing_message(self) -> str:
        """The sentence telling the user what to configure, or '' when nothing is missing."""
        missing = [name for name in ("base_url", "model") if not getattr(self, name).strip()]
        if not missing:
            return ""
        envs = " and ".join(ENV_KEYS[name] for name in missing)
        return (
            f"No LLM endpoint configured: a base URL and a model (Settings, or {envs} in the "
            "environment) point ChunkLab at an OpenAI-compatible server such as Ollama, a "
            "llama.cpp server, OpenAI or OpenRouter."
        )


def settings_path() -> Path:
    return data_dir() / SETTINGS_FILE


def _saved() -> dict[str, Any]:
    path = settings_path()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    data.pop("api_key", None)  # never trust a key found on disk
    return data


def _secrets() -> dict[str, Any]:
    """``LLM_BASE_URL`` style keys at top level, or base_url/api_key/model in an ``[llm]`` table."""
    for candidate in SECRETS_FILES:
        path = candidate.expanduser()
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        found = {name: data[env] for name, env in ENV_KEYS.items() if env in data}
        table = data.get("llm")
        if isinstance(table, dict):
            found.update({k: v for k, v in table.items() if k in LLMSettings.model_fields})
        return found
    return {}


def _environment() -> dict[str, Any]:
    return {name: os.environ[env] for name, env in ENV_KEYS.items() if os.environ.get(env)}


def load_settings() -> LLMSettings:
    """Defaults < saved settings < secrets.toml < environment. Invalid saved values are dropped."""
    values: dict[str, Any] = {}
    for source in (_saved(), _secrets(), _environment()):
        values.update(source)
    try:
        return LLMSettings(**values)
    except ValidationError:
        keep = {k: v for k, v in values.items() if k in ENV_KEYS}
        return LLMSettings(**keep)


def save_settings(settings: LLMSettings) -> Path:
    """Persist the non-secret settings; the API key is never written."""
    path = settings_path()
    write_json(path, settings.public_dict(), indent=2)
    return path


class AnswerSettings(BaseModel):
    """The user's choices for RAG answers: model (empty: the connection's), temperature, locale.

    Every answer request uses them (Assemble, the Prompts page's RAG test, the CLI), while the
    structured phases keep the connection's temperature.
    """

    model_config = ConfigDict(frozen=True)

    model: str = Field("", max_length=200)
    temperature: float = Field(0.7, ge=0.0, le=2.0)
    locale: str = Field("default", max_length=35)


def load_answer_settings() -> AnswerSettings:
    path = data_dir() / ANSWER_SETTINGS_FILE
    try:
        return AnswerSettings.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return AnswerSettings()


def save_answer_settings(settings: AnswerSettings) -> Path:
    path = data_dir() / ANSWER_SETTINGS_FILE
    write_json(path, settings.model_dump(mode="json"), indent=2)
    return path

"""Connection settings for any OpenAI-compatible chat endpoint, and the user's answer settings.

Where they come from, later sources winning (:class:`core.endpoint.SettingsSource`): defaults,
the non-secret settings the Settings page saved in ``data_dir()/llm_settings.json``,
``.streamlit/secrets.toml`` (``LLM_*`` keys or an ``[llm]`` table), then the environment
(``LLM_BASE_URL``, ``LLM_API_KEY``, ``LLM_MODEL``). The API key lives only in memory: it is a
:class:`~pydantic.SecretStr`, never written by :func:`save_settings`, never logged or cached.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.config import data_dir
from core.endpoint import EndpointSettings, SettingsSource
from core.files import write_json

ANSWER_SETTINGS_FILE = "answer_settings.json"
SOURCE = SettingsSource(
    "llm_settings.json",
    {"base_url": "LLM_BASE_URL", "api_key": "LLM_API_KEY", "model": "LLM_MODEL"}, "llm")
ENV_KEYS = SOURCE.env
# The answer judge may run elsewhere than the answers (a larger model grading a small one):
# ``JUDGE_BASE_URL``, ``JUDGE_API_KEY``, ``JUDGE_MODEL`` or a ``[judge]`` table in secrets.toml.
JUDGE_SOURCE = SettingsSource(
    "judge_settings.json",
    {"base_url": "JUDGE_BASE_URL", "api_key": "JUDGE_API_KEY", "model": "JUDGE_MODEL"}, "judge")


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


class LLMSettings(EndpointSettings):
    """One endpoint and the generation choices of the structured phases (chunking, metadata,
    prefixes, summaries, topics). Answers use :class:`AnswerSettings` on top of it."""

    temperature: float = Field(0.3, ge=0.0, le=2.0)
    max_tokens: int = Field(1024, ge=16, le=65536)  # completion limit per request
    # Wait longer than ``timeout`` when the server's measured speed says a request needs it.
    timeout_from_speed: bool = True
    context_tokens: int = Field(8192, ge=1024, le=2_000_000)  # the model's context window

    def missing_message(self) -> str:
        """The sentence telling the user what to configure, or '' when nothing is missing."""
        return SOURCE.missing(self, "LLM endpoint",
                              "Ollama, a llama.cpp server, OpenAI or OpenRouter")


def settings_path() -> Path:
    return SOURCE.path()


def load_settings() -> LLMSettings:
    """Defaults < saved settings < secrets.toml < environment. Invalid saved values are dropped."""
    return SOURCE.load(LLMSettings)


def load_judge_settings() -> LLMSettings | None:
    """The answer judge's own endpoint, when one is configured (else the answers' judge)."""
    judge = JUDGE_SOURCE.load(LLMSettings)
    return judge if judge.base_url and judge.model else None


def save_settings(settings: LLMSettings) -> Path:
    """Persist the non-secret settings; the API key is never written."""
    return SOURCE.save(settings)


class AnswerSettings(BaseModel):
    """The user's choices for RAG answers: model (empty: the connection's), temperature, locale.

    Every answer request uses them (Assemble, the Prompts page's RAG test, the CLI), while the
    other phases keep the connection's temperature (structure and boundaries ask at 0).
    """

    model_config = ConfigDict(frozen=True)

    model: str = Field("", max_length=200)
    temperature: float = Field(0.7, ge=0.0, le=2.0)
    locale: str = Field("default", max_length=35)
    seed: int | None = None  # fixed sampling for comparisons (answer runs); None: the server's
    # Hold answers to the cited format (each line ends with the markers of its passages) on a
    # server that takes a grammar; elsewhere answers stay free.
    held_format: bool = True


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

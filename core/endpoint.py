"""What every OpenAI-compatible endpoint ChunkLab talks to shares: the LLM, an embedding model,
a reranker.

:class:`EndpointSettings` is one connection (base URL, model, API key, timeout, concurrency,
retries); each kind of endpoint extends it with its own choices. :class:`SettingsSource` says
where a kind's settings come from, later sources winning: defaults, the non-secret settings the
Settings page saved in the data folder, ``.streamlit/secrets.toml`` (``PREFIX_BASE_URL`` style
keys at top level, or ``base_url``/``api_key``/``model`` in the kind's table), then the
environment. The API key is a :class:`~pydantic.SecretStr` that lives in memory only: never
saved, never logged, cached or shown (:func:`scrub` takes it out of a server's words).

:class:`EndpointClient` posts JSON, asking again as every client does
(:mod:`core.http.policy`), and turns a failure into one sentence of the caller's error type.
"""

from __future__ import annotations

import json
import os
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from core.config import data_dir
from core.errors import ChunkLabError
from core.files import write_json
from core.http.policy import Failure, Policy, cannot_reach, retry_after, transient, with_retries

SECRETS_FILES = (Path(".streamlit/secrets.toml"), Path("~/.streamlit/secrets.toml"))
MAX_TIMEOUT_S = 3600.0  # a CPU server on a busy machine may read a long prompt for many minutes
CONNECTION_FIELDS = ("base_url", "api_key", "model")


class EndpointSettings(BaseModel):
    """One OpenAI-compatible endpoint: where it is, which model, the key, and how to ask it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    base_url: str = ""
    api_key: SecretStr = SecretStr("")
    model: str = ""
    timeout: float = Field(60.0, gt=0, le=MAX_TIMEOUT_S)  # seconds per request
    concurrency: int = Field(4, ge=1, le=32)  # requests in flight at once
    max_retries: int = Field(3, ge=0, le=10)  # transient failures only
    # A key was given when these settings were saved: without one now (a browser refresh ends
    # the session that held it), the pages say so instead of failing with HTTP 401.
    needs_key: bool = False

    LONGEST_TIMEOUT: ClassVar[float] = MAX_TIMEOUT_S  # what a form may offer for ``timeout``

    @property
    def configured(self) -> bool:
        return bool(self.base_url.strip() and self.model.strip())

    @property
    def key_missing(self) -> bool:
        return self.needs_key and not self.api_key.get_secret_value()

    @property
    def location(self) -> str:
        """Where the endpoint runs, fit to show and to keep: its host, without credentials."""
        return location(self.base_url)

    def public_dict(self) -> dict[str, Any]:
        """Everything except the key: safe to save, log, cache or show."""
        return self.model_dump(mode="json", exclude={"api_key"})

    def aimed_at(self, ref: EndpointRef) -> Self:
        """These settings for ``ref``'s model and address; the key goes only to the address
        it was given for."""
        if public_url(self.base_url) == ref.base_url:
            return self.model_copy(update={"model": ref.model})
        return self.model_copy(update={"model": ref.model, "base_url": ref.base_url,
                                       "api_key": SecretStr(""), "needs_key": False})

    def scrub(self, text: str) -> str:
        """``text`` (a server's error, say) with the key, if it shows up there, masked."""
        key = self.api_key.get_secret_value()
        return text.replace(key, "•••") if key else text


S = TypeVar("S", bound=EndpointSettings)


@dataclass(frozen=True)
class SettingsSource:
    """Where one kind of endpoint's settings come from (see the module's docstring)."""

    file: str  # the saved non-secret settings, in the data folder
    env: dict[str, str]  # field -> environment variable (base_url, api_key, model)
    table: str  # the table of .streamlit/secrets.toml

    def path(self) -> Path:
        return data_dir() / self.file

    def _saved(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path().read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return {}
        if not isinstance(data, dict):
            return {}
        data.pop("api_key", None)  # never trust a key found on disk
        return data

    def _secrets(self, fields: dict[str, Any]) -> dict[str, Any]:
        for candidate in SECRETS_FILES:
            path = candidate.expanduser()
            if not path.is_file():
                continue
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError):
                continue
            found = {name: data[env] for name, env in self.env.items() if env in data}
            table = data.get(self.table)
            if isinstance(table, dict):
                found.update({k: v for k, v in table.items() if k in fields})
            return found
        return {}

    def _environment(self) -> dict[str, Any]:
        return {name: os.environ[env] for name, env in self.env.items() if os.environ.get(env)}

    def load(self, kind: type[S]) -> S:
        """Defaults < saved settings < secrets.toml < environment. Invalid saved values are
        dropped."""
        values: dict[str, Any] = {}
        for found in (self._saved(), self._secrets(kind.model_fields), self._environment()):
            values.update(found)
        try:
            return kind(**values)
        except ValidationError:
            return kind(**{k: v for k, v in values.items() if k in self.env})

    def save(self, settings: EndpointSettings) -> Path:
        """Persist the non-secret settings; the API key is never written."""
        path = self.path()
        write_json(path, settings.public_dict(), indent=2)
        return path

    def missing(self, settings: EndpointSettings, what: str, examples: str) -> str:
        """The sentence telling what to configure for ``what``, or '' when nothing is missing."""
        lacking = [name for name in ("base_url", "model") if not getattr(settings, name).strip()]
        if not lacking:
            return ""
        envs = " and ".join(self.env[name] for name in lacking)
        return (f"No {what} configured: a base URL and a model (Settings, or {envs} in the "
                f"environment) point ChunkLab at an OpenAI-compatible server such as {examples}.")


class EndpointRef(BaseModel):
    """A model at an endpoint, as results and caches are keyed by it and pages name it: the
    address without user, password, query or fragment (nothing secret), so it may be kept."""

    model_config = ConfigDict(frozen=True)

    model: str = ""
    base_url: str = ""

    @field_validator("base_url")
    @classmethod
    def _public(cls, value: str) -> str:
        return public_url(value) if value.strip() else ""

    @property
    def where(self) -> str:
        """The endpoint's host (and port)."""
        return location(self.base_url) or self.base_url

    @property
    def label(self) -> str:
        return f"{self.model} @ {self.where}"

    def key(self) -> str:
        """Stable text for cache keys of results that depend on it."""
        return json.dumps(self.model_dump(), sort_keys=True)


def public_url(url: str) -> str:
    """``url`` without credentials, query or fragment, and without a trailing slash."""
    url = url.strip()
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return ""
    if not host:
        return url.rstrip("/")
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{port}" if port else ""
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def location(url: str) -> str:
    """``host`` or ``host:port`` of ``url``, without user, password, path or query."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return ""
    return f"{host}:{port}" if host and port else host


def auth_headers(settings: EndpointSettings) -> dict[str, str]:
    """JSON headers, and the key as a bearer token when there is one (headers are never
    logged)."""
    headers = {"Content-Type": "application/json"}
    key = settings.api_key.get_secret_value()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def one_line(text: str, limit: int = 300) -> str:
    """A server's words on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _said(response: httpx.Response) -> str:
    """What a failed response says: its ``error.message`` (OpenAI's shape) or its body."""
    try:
        error = response.json().get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = None
    return str(message) if isinstance(message, str) and message else response.text[:300]


class EndpointClient:
    """POST JSON to one endpoint, asking again after transient failures (bounded, with backoff);
    thread-safe. A failure raises ``error`` with one sentence naming the endpoint by model and
    host (never the key); :meth:`stop` makes requests not yet sent fail at once."""

    def __init__(self, settings: EndpointSettings, error: type[ChunkLabError], what: str, *,
                 transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.error = error
        self.name = f"{what} ({settings.model} at {settings.location or settings.base_url})"
        self._sleep = sleep
        self._stopped = threading.Event()
        self._http = httpx.Client(
            base_url=settings.base_url.strip().rstrip("/") + "/", headers=auth_headers(settings),
            timeout=settings.timeout, transport=transport,
            limits=httpx.Limits(max_connections=settings.concurrency + 2))

    def __enter__(self) -> EndpointClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def stop(self) -> None:
        self._stopped.set()

    def fail(self, reason: str) -> ChunkLabError:
        """The error to raise for ``reason`` (the key masked, one line)."""
        return self.error(f"{self.name} failed: {one_line(self.settings.scrub(reason))}.")

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The JSON answer to ``body`` posted at ``path`` under the base URL."""

        def attempt(number: int, timeout: float) -> Any:
            if self._stopped.is_set():
                raise self.fail("stopped after another request failed")
            try:
                response = self._http.post(path, json=body, timeout=timeout)
            except httpx.TimeoutException:
                return Failure(f"timed out after {timeout:g} s", timed_out=True)
            except httpx.TransportError as err:
                return Failure(cannot_reach(self.settings.location or "the server", err))
            if response.status_code < 400:
                try:
                    return response.json()
                except ValueError:
                    raise self.fail(f"the answer is not JSON ({response.text[:120]!r})") from None
            reason = f"HTTP {response.status_code}: {_said(response)}"
            if not transient(response.status_code):
                raise self.fail(reason)
            return Failure(reason, wait=retry_after(response))

        policy = Policy(self.settings.max_retries, self.settings.timeout, MAX_TIMEOUT_S,
                        self._sleep)
        return with_retries(attempt, policy, self.fail)

"""How an LLM request fails, in words a user can act on.

:class:`LLMError` names what the request was for and where its raw responses are logged;
:func:`context_refusal` recognises a server saying the prompt is larger than the model's context
(llama.cpp's ``exceed_context_size_error``, OpenAI's ``context_length_exceeded`` and the usual
wordings of other servers) and says what to change. :class:`TSVError` is an answer that breaks
its format, naming the line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Protocol

from core.errors import ChunkLabError
from core.llm.settings import LLMSettings

_CONTEXT_REFUSAL = re.compile(
    r"context_length_exceeded|exceed_context_size|exceeds? the (available )?context|"
    r"maximum context length|context (size|window|length) (has been |was )?exceeded|"
    r"too (long|large) for the (model's )?context", re.IGNORECASE)
_NUMBERS = (re.compile(r"(\d+) tokens\)? exceeds"), re.compile(r"resulted in (\d+) tokens"))
_CONTEXT = (re.compile(r"context size \((\d+) tokens\)"), re.compile(r"context length is (\d+)"))


class LLMError(ChunkLabError):
    """An LLM request failed; names what it was for (``label``) and where it was logged."""

    def __init__(self, reason: str, *, label: str = "", log_path: Path | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.label = label
        self.log_path = log_path

    def __str__(self) -> str:
        text = f"{self.label} failed: {self.reason}" if self.label else self.reason
        if self.log_path is not None:
            text += f" (raw responses are logged in {self.log_path})"
        return text


class ParsedLine(Protocol):
    """A row parsed from an answer, with the line it came from."""

    @property
    def line_number(self) -> int: ...

    @property
    def line(self) -> str: ...


class DataLine(Protocol):
    """One data line of an answer, numbered from 1."""

    @property
    def number(self) -> int: ...

    @property
    def text(self) -> str: ...

class TSVError(LLMError):
    """An answer that breaks its format; ``line_number`` is 1-based within the answer."""

    def __init__(
        self,
        label: str,
        reason: str,
        *,
        line_number: int | None = None,
        line: str | None = None,
        log_path: Path | None = None,
    ) -> None:
        where = f"line {line_number}: " if line_number is not None else ""
        shown = f" — line was {line[:200]!r}" if line is not None else ""
        super().__init__(f"{where}{reason}{shown}", label=label, log_path=log_path)
        self.line_number = line_number
        self.line = line

    @classmethod
    def at(cls, label: str, reason: str, row: ParsedLine) -> TSVError:
        """An error about one parsed row (a value that is well-formed but wrong here)."""
        return cls(label, reason, line_number=row.line_number, line=row.line)

    @classmethod
    def on(cls, label: str, reason: str, line: DataLine) -> TSVError:
        """An error about one data line of the answer."""
        return cls(label, reason, line_number=line.number, line=line.text)


class ContextExceededError(LLMError):
    """The prompt does not fit the model's context: asking again cannot help."""


class LLMCancelled(LLMError):
    """The client was closed (the run stopped) while this request waited or was in flight."""


def _first_number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def context_refusal(status: int, body: str, settings: LLMSettings) -> str | None:
    """The sentence for an HTTP error that says the prompt is larger than the model's context,
    else None. Reads llama.cpp's ``exceed_context_size_error`` and OpenAI's
    ``context_length_exceeded`` (and the usual wordings of other servers)."""
    if status not in (400, 413, 500) or not _CONTEXT_REFUSAL.search(body):
        return None
    try:
        error = json.loads(body).get("error") or {}
    except (ValueError, AttributeError):
        error = {}
    error = error if isinstance(error, dict) else {}
    message = str(error.get("message") or body)
    prompt = error.get("n_prompt_tokens") or _first_number(_NUMBERS, message)
    context = error.get("n_ctx") or _first_number(_CONTEXT, message)
    size = f"{prompt:,} tokens" if prompt else "the prompt"
    window = f"the server's context of {context:,} tokens" if context else "the model's context"
    fix = (f"set “Model context” in Settings to {context:,} (what the server has, it is "
           f"{settings.context_tokens:,} now)" if context and context != settings.context_tokens
           else "lower “Model context” in Settings")
    return (f"{size} do not fit {window} (HTTP {status}); asking again cannot help: {fix} so "
            "long text is sent in smaller windows, or start the server with a larger context")

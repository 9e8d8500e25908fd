"""A chat completion read as it is written: the server-sent events of ``stream: true``.

OpenAI-compatible servers send ``data: {json}`` lines, each with a piece of the answer in
``choices[0].delta.content``, then ``data: [DONE]``; the last pieces carry ``finish_reason``,
``usage`` (asked for with ``stream_options``) and, from llama.cpp, ``timings``.
:func:`read_events` gathers them into the body a server that does not stream would have sent,
so one reader takes both; the pace of the pieces gives the answer speed when the server does
not say it. A stream whose text falls into a loop is not read further
(:mod:`core.llm.repeats`): its text is kept up to where the repetition began, and the caller
ends the request.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from core.llm.repeats import STOPPED_REPEATING, loop_start


@dataclass
class Streamed:
    """What a stream delivered: the body as one completion, and when its first and last
    pieces of text came (``time.monotonic()``; None before any)."""

    body: dict[str, Any]
    first_text_at: float | None
    last_text_at: float | None
    complete: bool  # it ended as a stream ends (a finish reason or ``[DONE]``), not cut off
    stopped: str = ""  # why it was not read to its end (the model was repeating itself)


def read_events(lines: Iterable[str], heard: Callable[[str], None] | None = None) -> Streamed:
    """The completion of a stream's ``lines``; ``heard(text so far)`` after each piece."""
    text: list[str] = []
    body: dict[str, Any] = {}
    finish: str | None = None
    first = last = None
    done = False
    stopped = ""
    for line in lines:
        if not line.startswith("data:"):
            continue  # blank separators, comments, event names
        payload = line[5:].strip()
        if payload == "[DONE]":
            done = True
            break
        try:
            event = json.loads(payload)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict):
            continue
        for key in ("model", "usage", "timings"):
            if event.get(key):
                body[key] = event[key]
        choices = event.get("choices") or []
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        finish = choice.get("finish_reason") or finish
        delta = choice.get("delta")
        piece = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(piece, str) and piece:
            last = time.monotonic()
            first = first or last
            text.append(piece)
            so_far = "".join(text)
            cut = loop_start(so_far)
            if cut is not None:
                text, finish, stopped = [so_far[:cut].rstrip()], "stop", STOPPED_REPEATING
                if heard is not None:
                    heard(text[0])
                break
            if heard is not None:
                heard(so_far)
    body["choices"] = [{"message": {"role": "assistant", "content": "".join(text)},
                        "finish_reason": finish}]
    return Streamed(body, first, last, done or finish is not None, stopped)

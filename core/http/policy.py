"""The one way ChunkLab asks a server again, and the sentences its failures are told in.

Every client (the LLM's, the embedding endpoint's, the reranker's) sends through
:func:`with_retries`: a transient failure — a connect error, HTTP 429 or 5xx — is asked again a
bounded number of times, after a doubling backoff or what the server's ``Retry-After`` asks for;
a timeout is asked again once at most, with twice the time (the server may still be computing
the abandoned request, so asking again from scratch each time would pile requests onto a busy
server); anything else fails at once. A failure is one line naming what failed, never the key
(:meth:`core.endpoint.EndpointSettings.scrub`).
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx

BACKOFF_BASE_S = 0.5
BACKOFF_MAX_S = 10.0
RETRY_AFTER_MAX_S = 60.0
TIMEOUT_RETRIES = 1  # a timed-out request is asked again at most this often, with twice the time
T = TypeVar("T")


def retry_after(response: httpx.Response) -> float | None:
    """The seconds a server asks to wait (``Retry-After``: seconds or a date), capped."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), RETRY_AFTER_MAX_S)


def backoff(attempt: int) -> float:
    """Seconds to wait before attempt ``attempt + 1``: doubling from half a second, capped."""
    return min(BACKOFF_BASE_S * 2**attempt, BACKOFF_MAX_S)


def transient(status: int) -> bool:
    """An HTTP status worth asking again for: too many requests, or the server's failure."""
    return status == 429 or status >= 500


def cannot_reach(where: str, err: Exception) -> str:
    return f"cannot reach {where} ({err})"


@dataclass(frozen=True)
class Failure:
    """An attempt that failed in a way worth asking again for (see the module's rules)."""

    reason: str  # one line, fit to show
    timed_out: bool = False
    wait: float | None = None  # what the server asked to wait (Retry-After), if it did


@dataclass(frozen=True)
class Policy:
    retries: int  # transient failures asked again at most this often
    timeout: float  # seconds the first attempt may take
    max_timeout: float  # what doubling may reach
    sleep: Callable[[float], None] = time.sleep
    # Hears each failure that is asked again: "reason; asking again in 2 s (attempt 2 of 4)".
    told: Callable[[str], None] | None = None


def timeout_reason(timeouts: int, first: float, last: float) -> str:
    """Why a request that timed out (``timeouts`` times) failed, and what to change."""
    asked = (f"timed out after {first:g} s and again after {last:g} s (a timed-out request "
             "is asked again once only, so requests do not pile up on a busy server)"
             if timeouts > 1 else f"timed out after {first:g} s")
    return (f"{asked}: the server may still be working on it; raise the timeout in "
            "Settings, or lower concurrency or the answer length")


def with_retries(attempt: Callable[[int, float], T | Failure], policy: Policy,
                 fail: Callable[[str], Exception]) -> T:
    """``attempt(number, timeout)``'s result, asking again after its :class:`Failure` as the
    module's rules say; ``fail(sentence)`` is raised when it gives up. Failures that must not
    be asked again are raised by ``attempt`` itself."""
    attempts, timeouts, timeout = policy.retries + 1, 0, policy.timeout
    number = 0
    while True:
        outcome = attempt(number, timeout)
        if not isinstance(outcome, Failure):
            return outcome
        number += 1
        wait = backoff(number - 1) if outcome.wait is None else outcome.wait
        if outcome.timed_out:
            timeouts += 1
            if timeouts > TIMEOUT_RETRIES or number >= attempts:
                raise fail(timeout_reason(timeouts, policy.timeout, timeout))
            timeout, wait = min(timeout * 2, policy.max_timeout), 0.0
        elif number >= attempts:
            raise fail(f"{outcome.reason} (gave up after {attempts} attempt"
                       f"{'s' * (attempts > 1)})")
        if policy.told is not None:
            again = f"in {wait:.0f} s" if wait >= 1 else "now"
            extra = f", waiting up to {timeout:g} s" if outcome.timed_out else ""
            policy.told(f"{outcome.reason}; asking again {again} (attempt {number + 1} of "
                        f"{attempts}{extra})")
        if wait:
            policy.sleep(wait)

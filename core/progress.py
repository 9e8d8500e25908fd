"""Progress and cancellation: the one shape every long operation reports in.

A long operation takes ``progress: ProgressFn | None`` and ``cancel: threading.Event | None``;
it reports :class:`Progress` through a :class:`Tracker` (which adds the time-left estimate) and
stops with :class:`Cancelled` at the next step once ``cancel`` is set (its model requests end
at once: see :class:`core.llm.client.LLMClient`). One that asks a model may also take a
:class:`Listener`, which hears each request wait in line, go, and be written.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.errors import ChunkLabError


@dataclass(frozen=True)
class Progress:
    done: float  # steps finished (fractions allowed)
    total: float  # steps known so far; it may grow while work is discovered
    message: str
    eta_s: float | None = None  # seconds left at the pace so far; None until it can be told

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total > 0 else 0.0

    def caption(self) -> str:
        """``message · about 12 s left`` (the estimate only once there is one)."""
        if self.eta_s is None or self.done >= self.total:
            return self.message
        left = f"{self.eta_s:.0f} s" if self.eta_s < 90 else f"{self.eta_s / 60:.0f} min"
        return f"{self.message} · about {left} left"


ProgressFn = Callable[[Progress], None]


@dataclass(frozen=True)
class Listener:
    """Hears a model request as it goes: its place in line at the server (``queued(ahead)``,
    each time the number of requests ahead of it changes), the moment it is sent (``sent()``),
    and — given ``text``, the answer is asked as a stream — the answer so far each time words
    arrive (``text(so_far)``; it starts again from "" when the request is asked again)."""

    queued: Callable[[int], None] | None = None
    sent: Callable[[], None] | None = None
    text: Callable[[str], None] | None = None


class Cancelled(ChunkLabError):
    def __init__(self, what: str = "The run") -> None:
        super().__init__(f"{what} was cancelled; nothing more was changed.")


class Tracker:
    """Reports steps of one operation to an optional callback, with a time-left estimate."""

    def __init__(self, report: ProgressFn | None, total: float,
                 cancel: threading.Event | None = None, *, what: str = "The run") -> None:
        self.report = report
        self.total = total
        self.cancel = cancel
        self.what = what
        self.started = time.monotonic()
        self._done = 0.0  # the last step reported
        self._paced_from = 0.0  # steps done before the pace is measured (see rebase)

    def check(self) -> None:
        """Raise :class:`Cancelled` when the user asked to stop."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled(self.what)

    def rebase(self) -> None:
        """The steps so far took no time worth counting (answers from a cache, say): the pace,
        and so the time left, is measured from here on."""
        self.started, self._paced_from = time.monotonic(), self._done

    def step(self, done: float, message: str, total: float | None = None) -> None:
        self.check()
        self._done = done
        if total is not None:
            self.total = total
        if self.report is None:
            return
        elapsed = time.monotonic() - self.started
        paced = done - self._paced_from
        eta = elapsed * (self.total - done) / paced if paced > 0 and elapsed > 0.5 else None
        self.report(Progress(done, self.total, message, eta))

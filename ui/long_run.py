"""A long operation on a page — a model answer, a run of many — that stays live and can be
stopped at its source.

The work runs on a thread of its own while the page's script thread watches it, drawing every
fraction of a second: its progress (with the time-left estimate), its place in the model
server's queue, the answer as it is written (with elapsed time and tokens per second), and a
Cancel button. Streamlit stops a script at its next drawing call when the user clicks a button,
reloads, leaves the page or closes the tab, and the app stops them all on shutdown: the watch
then sets the run's ``cancel`` event, which ends its model requests at the connection and drops
its queued ones (see :class:`core.llm.client.LLMClient`). So no request outlives its page.
``running`` stays set in the session only while it runs, so the next run of the page can tell
it was cancelled.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Generic, TypeVar

import streamlit as st

from core.errors import ChunkLabError
from core.progress import Listener, Progress
from ui.answer import disarm
from ui.render import md_escape
from ui.state import show_error

T = TypeVar("T")
TICK_S = 0.2  # how often the page redraws a run (and so how soon a stop is noticed)
NOTES_SHOWN = 12  # the run's latest notes drawn under its status


def _seconds(value: float) -> str:
    value = int(value)
    return f"{value} s" if value < 90 else f"{value // 60} min {value % 60:02d} s"


@dataclass(frozen=True)
class Snapshot:
    """Where a run stands, as the page draws it."""

    elapsed: float
    progress: Progress | None
    ahead: int | None  # requests ahead of the current one in the server's line
    sent_for: float | None  # seconds since the current request was sent
    text: str | None  # the answer so far, when it is streamed
    pieces: int  # pieces of text (about a token each) streamed so far
    writing_for: float | None  # seconds since its first piece
    notes: tuple[str, ...] = ()  # what the run said as it went, oldest first

    def status(self) -> str:
        """One line: waiting in line, reading the prompt, or writing (and how fast)."""
        took = _seconds(self.elapsed)
        if self.ahead is not None and self.sent_for is None:
            ahead = "1 request" if self.ahead == 1 else f"{self.ahead} requests"
            return f"Waiting for the model server: {ahead} ahead of yours · {took}"
        if self.sent_for is not None and not self.pieces:
            return f"The model is reading the prompt · {took}"
        if self.pieces:
            speed = (f" · {self.pieces / self.writing_for:.1f} tokens/s"
                     if self.writing_for and self.writing_for > 0.5 else "")
            return f"Writing · {self.pieces:,} tokens{speed} · {took}"
        return f"Working · {took}"


class LiveRun(Generic[T]):
    """What the work reports from its thread (thread-safe), for the page to draw."""

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.started = time.monotonic()
        self.result: T | None = None
        self.error: ChunkLabError | None = None
        self._lock = threading.Lock()
        self._progress: Progress | None = None
        self._ahead: int | None = None
        self._sent_at: float | None = None
        self._text: str | None = None
        self._pieces = 0
        self._first_piece_at: float | None = None
        self._shown = 0  # the request drawn: the one sent last
        self._requests = itertools.count(1)
        self._notes: list[str] = []

    def progress(self, progress: Progress) -> None:
        with self._lock:
            self._progress = progress

    def note(self, line: str) -> None:
        """Something the run did that the page shows as it happens (a question kept, say)."""
        with self._lock:
            self._notes.append(line)

    def _queued(self, request: int, ahead: int) -> None:
        with self._lock:
            if self._sent_at is None or request == self._shown:
                self._ahead, self._sent_at = ahead, None

    def _sent(self, request: int) -> None:
        with self._lock:
            self._shown, self._ahead, self._sent_at = request, None, time.monotonic()
            self._text, self._pieces, self._first_piece_at = None, 0, None

    def _heard(self, request: int, text: str) -> None:
        with self._lock:
            if request != self._shown:
                return
            if not text:  # asked again: the answer starts over
                self._text, self._pieces, self._first_piece_at = "", 0, None
                return
            self._text = text
            self._pieces += 1
            self._first_piece_at = self._first_piece_at or time.monotonic()

    def listener(self, stream: bool = False) -> Listener:
        """A listener for one request (or a run of them, one after the other); the page draws
        the request sent last. With ``stream``, answers are drawn as they are written."""
        request = next(self._requests)
        return Listener(queued=partial(self._queued, request), sent=partial(self._sent, request),
                        text=partial(self._heard, request) if stream else None)

    def snapshot(self) -> Snapshot:
        now = time.monotonic()
        with self._lock:
            return Snapshot(now - self.started, self._progress, self._ahead,
                            None if self._sent_at is None else now - self._sent_at, self._text,
                            self._pieces,
                            None if self._first_piece_at is None else now - self._first_piece_at,
                            tuple(self._notes))

    def run(self, work: Callable[[LiveRun[T]], T]) -> None:
        try:
            self.result = work(self)
        except ChunkLabError as err:
            self.error = err


def run_live(work: Callable[[LiveRun[T]], T], *, key: str, running: str | None = None,
             stream: bool = False) -> LiveRun[T]:
    """The finished run: ``result`` is ``work(run)``'s, or None with ``error`` (its sentence
    shown) when it failed. ``work`` runs on its own thread: it must not call Streamlit, and it
    passes ``run.cancel``, ``run.progress`` and ``run.listener()`` to the operation. With
    ``stream`` the answer is drawn as it is written."""
    live: LiveRun[T] = LiveRun()
    cancel = st.empty()
    cancel.button("Cancel", key=key, icon=":material/stop:")
    bar, status, notes = st.empty(), st.empty(), st.empty()
    answer = st.empty() if stream else None
    thread = threading.Thread(target=live.run, args=(work,), name="page-run", daemon=True)
    thread.start()
    try:
        while True:
            thread.join(TICK_S)
            done = not thread.is_alive()
            shot = live.snapshot()
            if running:  # what a cancelled run had done, for the page's next run to say
                st.session_state[running] = shot.progress or True
            if shot.progress is not None:
                bar.progress(shot.progress.fraction, text=md_escape(shot.progress.caption()))
            status.caption(md_escape(shot.status()))
            if shot.notes:
                notes.caption("  \n".join(md_escape(n) for n in shot.notes[-NOTES_SHOWN:]))
            if answer is not None and shot.text:
                with answer.container(border=True):
                    st.markdown(disarm(shot.text) + ("" if done else " ▌"))
            if done:
                break
    finally:
        live.cancel.set()  # stopped by a click, a reload, leaving or shutdown: end its requests
    if running:
        st.session_state.pop(running, None)
    cancel.empty()
    bar.empty()
    status.empty()
    notes.empty()
    if answer is not None:
        answer.empty()
    if live.error is not None:
        show_error(live.error)
    return live


def say_if_cancelled(running: str, kept: Callable[[Progress | None], str]) -> None:
    """After a Cancel (``running`` still set from the run it stopped): what was kept — told by
    ``kept(the run's last progress)`` — and that Resume goes on from it."""
    stopped = st.session_state.pop(running, None)
    if stopped:
        progress = stopped if isinstance(stopped, Progress) else None
        st.info(f"Cancelled: {md_escape(kept(progress))}; **Resume** goes on from them.",
                icon=":material/stop:")

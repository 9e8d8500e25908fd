"""HTTP connections that another thread can end.

Closing an httpx client does not end a request another thread is blocked in: a socket closed
under a thread blocked reading it stays open until the server answers, so the server goes on
computing for a page that is gone, and whatever waits for that thread waits too. Every request
sent inside :func:`tracked` through :func:`abortable_transport` opens a connection of its own
and registers its socket with the :class:`Call`; :meth:`Call.abort` shuts the socket down, so
the blocked read returns at once and the server sees the connection close.

A watcher thread aborts each call whose cancel event is set or whose deadline has passed (a
deadline counts from when the request was sent, never from when it was queued).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

import httpcore
import httpx

WATCH_EVERY_S = 0.1  # how often the watcher looks at the calls in flight
Ended = Literal["cancelled", "timeout"]


class Call:
    """One request in flight: its sockets, what ends it, and why it ended (``ended``)."""

    def __init__(self, cancels: Sequence[threading.Event] = (),
                 deadline: float | None = None) -> None:
        self.cancels = tuple(cancels)
        self.deadline = deadline  # time.monotonic() after which it is aborted as timed out
        self.ended: Ended | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def attach(self, sock: socket.socket) -> None:
        """Hold a duplicate of ``sock``'s descriptor: shutting it down ends the connection
        whatever wraps the original (TLS included)."""
        held = socket.socket(fileno=socket.dup(sock.fileno()))
        with self._lock:
            self._sockets.append(held)
            ended = self.ended
        if ended is not None:
            self._shut(held)

    def abort(self, why: Ended = "cancelled") -> None:
        with self._lock:
            if self.ended is None:
                self.ended = why
            held = list(self._sockets)
        for sock in held:
            self._shut(sock)

    def due(self, now: float) -> Ended | None:
        """Why the watcher should end this call now, if it should."""
        if any(event.is_set() for event in self.cancels):
            return "cancelled"
        if self.deadline is not None and now >= self.deadline:
            return "timeout"
        return None

    def release(self) -> None:
        with self._lock:
            held, self._sockets = self._sockets, []
        for sock in held:
            sock.close()

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed by the server or by httpx


class _Watcher:
    """The calls in flight, and the one daemon thread that ends those due to end."""

    def __init__(self) -> None:
        self._calls: set[Call] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, call: Call) -> None:
        with self._lock:
            self._calls.add(call)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="http-watch",
                                                daemon=True)
                self._thread.start()

    def discard(self, call: Call) -> None:
        with self._lock:
            self._calls.discard(call)

    def abort_all(self) -> int:
        with self._lock:
            calls = list(self._calls)
        for call in calls:
            call.abort("cancelled")
        return len(calls)

    def in_flight(self) -> int:
        with self._lock:
            return len(self._calls)

    def _watch(self) -> None:
        while True:
            time.sleep(WATCH_EVERY_S)
            with self._lock:
                calls = list(self._calls)
            now = time.monotonic()
            for call in calls:
                why = call.due(now)
                if why is not None and call.ended is None:
                    call.abort(why)


_WATCHER = _Watcher()
_current = threading.local()
# Set once the process is stopping (Ctrl-C in the CLI): requests not yet sent are not sent.
STOPPING = threading.Event()


@contextmanager
def tracked(call: Call) -> Iterator[Call]:
    """Requests this thread sends inside the block (through :func:`abortable_transport`) end
    when ``call`` is aborted."""
    _current.call = call
    _WATCHER.add(call)
    try:
        yield call
    finally:
        _WATCHER.discard(call)
        _current.call = None
        call.release()


def abort_all() -> int:
    """The process is stopping: end every request in flight (how many) and send no more."""
    STOPPING.set()
    return _WATCHER.abort_all()


def in_flight() -> int:
    """Requests in flight in this process."""
    return _WATCHER.in_flight()


class _Backend(httpcore.SyncBackend):
    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        call: Call | None = getattr(_current, "call", None)
        if call is not None and call.ended is not None:
            raise httpcore.ConnectError(f"the request was {call.ended} before it was sent")
        stream = super().connect_tcp(host, port, timeout, local_address, socket_options)
        if call is not None:
            call.attach(stream.get_extra_info("socket"))
        return stream


def abortable_transport(max_connections: int) -> httpx.HTTPTransport:
    """A transport whose every request opens a connection of its own, registered with the
    thread's :class:`Call` (see the module's docstring)."""
    transport = httpx.HTTPTransport(limits=httpx.Limits(
        max_connections=max_connections, max_keepalive_connections=0))
    transport._pool._network_backend = _Backend()  # noqa: SLF001
    return transport

"""One gate per model server, for the whole process: at most one request per slot in flight,
the others queued in the order they came, each knowing its place.

Every page and session of the app (and every thread of a CLI run) asks a server through its
:class:`Gate`, so a request never queues inside the server behind requests the process sent
before it, where its timeout would run while it waits. A request's timeout starts when the gate
lets it through. A request whose run is cancelled leaves the queue at once. Work the process
does for itself (learning how the server holds answers to a schema) goes through only when the
gate is idle (:meth:`Gate.enter_if_idle`) and gives way as soon as a request comes.

The gate also chooses llama.cpp's slot for each request it lets through
(:class:`~core.llm.slots.SlotChooser`), so a shared beginning is read once.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.endpoint import public_url
from core.llm.errors import LLMCancelled
from core.llm.slots import SlotChooser

POLL_S = 0.2  # how often a waiting request looks at its cancel events


@dataclass(eq=False)
class Ticket:
    """One request's passage through the gate: the slot it was given once through."""

    prefix: str = ""
    slot: int | None = None
    through: bool = False
    cancels: tuple[threading.Event, ...] = field(default_factory=tuple)
    # Set once another request waits behind this one, for a ticket that gives way (see
    # :meth:`Gate.enter_if_idle`): its request should end so the other one can go.
    give_way: threading.Event | None = None


class Gate:
    """Thread-safe. ``capacity`` requests through at once (the server's slots, once known)."""

    def __init__(self, capacity: int = 1) -> None:
        self._capacity = max(1, capacity)
        self._queue: deque[Ticket] = deque()
        self._through: set[Ticket] = set()
        self._slots = SlotChooser()
        self._cond = threading.Condition()

    @property
    def capacity(self) -> int:
        return self._capacity

    def configure(self, capacity: int, slots: int | None) -> None:
        """``capacity`` requests at once; ``slots``: the server's numbered slots (llama.cpp),
        or None when it names none."""
        with self._cond:
            self._capacity = max(1, capacity)
            self._slots.configure(slots or 0)
            self._cond.notify_all()

    def enter(self, prefix: str = "", cancels: Sequence[threading.Event] = (),
              waiting: Callable[[int], None] | None = None) -> Ticket:
        """Wait in line until a slot is free; ``waiting(ahead)`` hears the requests ahead of
        this one (those in flight and those queued before it) each time that number changes.
        Raises :class:`LLMCancelled` when one of ``cancels`` is set while it waits."""
        ticket = Ticket(prefix=prefix, cancels=tuple(cancels))
        told = -1
        with self._cond:
            self._queue.append(ticket)
            for other in self._through:
                if other.give_way is not None:
                    other.give_way.set()
            while True:
                if any(event.is_set() for event in ticket.cancels):
                    self._queue.remove(ticket)
                    self._cond.notify_all()
                    raise LLMCancelled("cancelled while waiting for the model server")
                position = self._queue.index(ticket)
                if position == 0 and len(self._through) < self._capacity:
                    self._queue.popleft()
                    self._through.add(ticket)
                    ticket.through = True
                    ticket.slot = self._slots.take(prefix)
                    self._cond.notify_all()
                    return ticket
                ahead = len(self._through) + position
                if waiting is not None and ahead != told:
                    told = ahead
                    self._cond.release()
                    try:
                        waiting(ahead)
                    finally:
                        self._cond.acquire()
                    continue
                self._cond.wait(POLL_S)

    def enter_if_idle(self) -> Ticket | None:
        """Through at once when nothing is in flight or waiting, else None. The ticket's
        ``give_way`` is set as soon as another request waits behind it."""
        with self._cond:
            if self._through or self._queue:
                return None
            ticket = Ticket(through=True, give_way=threading.Event())
            self._through.add(ticket)
            return ticket

    def leave(self, ticket: Ticket) -> None:
        with self._cond:
            if ticket in self._through:
                self._through.discard(ticket)
                self._slots.free(ticket.slot)
            elif ticket in self._queue:
                self._queue.remove(ticket)
            self._cond.notify_all()

    def load(self) -> tuple[int, int]:
        """(requests in flight, requests waiting)."""
        with self._cond:
            return len(self._through), len(self._queue)

    def busy(self) -> int:
        """Requests in flight or waiting: what a new request would wait behind."""
        return sum(self.load())


_GATES: dict[str, Gate] = {}
_LOCK = threading.Lock()


def gate_for(base_url: str) -> Gate:
    """The process's gate for the server at ``base_url`` (its ``/v1`` and credentials left out,
    so every model and key of one server share it)."""
    key = public_url(base_url).removesuffix("/v1")
    with _LOCK:
        gate = _GATES.get(key)
        if gate is None:
            gate = _GATES[key] = Gate()
        return gate

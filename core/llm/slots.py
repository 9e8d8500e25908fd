"""llama.cpp's prompt cache: which slot a request goes to, so the server reads a shared
beginning once, and how much of a prompt it actually read.

llama.cpp keeps, per slot, the prompt it read last and reads only what differs when asked to
(``cache_prompt``). A request whose prompt begins like an earlier one (the document its phase
is about) is sent to the slot that read that beginning, when it is free; otherwise to the free
slot used longest ago. The server's gate (:mod:`core.llm.gate`) lets at most one request per slot
through, so a request that gets here always finds a free slot.
"""

from __future__ import annotations

import threading
from typing import Any


class SlotChooser:
    """Thread-safe; knows no slots (and chooses none) until :meth:`configure` is called."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._order: list[int] = []  # slots, least recently used first
        self._busy: set[int] = set()
        self._holder: dict[str, int] = {}  # shared beginning → the slot that read it last

    def configure(self, slots: int) -> None:
        with self._lock:
            if slots != len(self._order):
                self._order = list(range(slots))

    def take(self, prefix: str) -> int | None:
        """The slot for a request beginning with ``prefix`` ("" for none shared), marked busy;
        None when the server has no slots."""
        with self._lock:
            free = [s for s in self._order if s not in self._busy]
            if not free:
                return None
            kept = self._holder.get(prefix) if prefix else None
            slot = kept if kept in free else free[0]
            self._busy.add(slot)
            self._order.remove(slot)
            self._order.append(slot)
            if prefix:
                self._holder = {k: v for k, v in self._holder.items() if v != slot}
                self._holder[prefix] = slot
            return slot

    def free(self, slot: int | None) -> None:
        if slot is not None:
            with self._lock:
                self._busy.discard(slot)


def prompt_processed(usage: dict[str, Any], timings: dict[str, Any]) -> int | None:
    """Prompt tokens the server read rather than took from its prompt cache: llama.cpp's
    ``timings.prompt_n``, else the prompt less OpenAI's ``prompt_tokens_details.cached_tokens``;
    None when it does not say."""
    if isinstance(timings.get("prompt_n"), int):
        return max(int(timings["prompt_n"]), 0)
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if isinstance(cached, int) and isinstance(usage.get("prompt_tokens"), int):
        return max(int(usage["prompt_tokens"]) - cached, 0)
    return None

"""How each server and model holds answers to a JSON schema (:class:`OutputForm`): learnt once,
kept on disk, and never learnt in the way of a request someone waits for.

Learning the form takes a request (:func:`core.llm.structured.probe`); on a one-slot CPU server
a user's first request would wait behind it. So the form is learnt at Test connection (which
asks again, as a server may have restarted with other abilities), or in the background when the
server has had nothing to do for a while — and that probe ends as soon as a request comes
(:meth:`core.llm.gate.Gate.enter_if_idle`). Until the form is known requests are sent in the
plain form, which every server takes. What was learnt is kept in
``data_dir()/llm_cache/answer_forms.json``, keyed by the server's public address and the model
(no key, no credentials), so later processes start knowing it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from core.config import data_dir
from core.endpoint import auth_headers, public_url
from core.files import file_lock, read_json_object, write_json
from core.http.transport import STOPPING, Call, abortable_transport, tracked
from core.llm.gate import Gate, gate_for
from core.llm.settings import LLMSettings
from core.llm.structured import OutputForm, probe

FORMS_FILE = "answer_forms.json"
IDLE_S = 2.0  # the server has been idle this long before the background probe goes
LEARN_ATTEMPTS = 3  # background probes that gave way or failed before giving up for the process
_IDLE_POLL_S = 0.2


def forms_path() -> Path:
    return data_dir() / "llm_cache" / FORMS_FILE


def _entry_key(base_url: str, model: str) -> str:
    return f"{public_url(base_url)} {model}"


class FormBook:
    """Thread-safe: the forms known to this process, read from and written to disk."""

    def __init__(self) -> None:
        self._memory: dict[tuple[Path, str], OutputForm] = {}
        self._learning: set[tuple[Path, str]] = set()  # background learning started
        self._lock = threading.Lock()

    def known(self, base_url: str, model: str) -> OutputForm | None:
        """The form learnt for this server and model (by this process or an earlier one);
        None when it was never learnt."""
        path, key = forms_path(), _entry_key(base_url, model)
        with self._lock:
            form = self._memory.get((path, key))
        if form is None:
            entry = read_json_object(path).get(key)
            if isinstance(entry, dict):
                form = OutputForm(schema=entry.get("schema") is True,
                                  grammar=entry.get("grammar") is True)
                with self._lock:
                    self._memory[(path, key)] = form
        return form

    def keep(self, base_url: str, model: str, form: OutputForm, *, replace: bool = True) -> None:
        """Remember ``form`` here and on disk (``replace`` False: only when nothing is known
        yet — a background probe never overrides what Test connection learnt meanwhile)."""
        path, key = forms_path(), _entry_key(base_url, model)
        with file_lock(path.with_name(f".{FORMS_FILE}.lock")):
            saved = read_json_object(path)
            if not replace and isinstance(saved.get(key), dict):
                return
            saved[key] = {"schema": form.schema, "grammar": form.grammar,
                          "learnt": time.strftime("%Y-%m-%dT%H:%M:%S")}
            write_json(path, saved, indent=1)
        with self._lock:
            self._memory[(path, key)] = form

    def forget_memory(self) -> None:
        """Drop what this process remembers (what is on disk stays): as a new process starts."""
        with self._lock:
            self._memory.clear()
            self._learning.clear()

    def learn_when_idle(self, settings: LLMSettings, headers: dict[str, str]) -> None:
        """Learn the form in a background thread once the server is idle (at most once per
        server and model for the process); ``headers`` go with the probe."""
        marker = (forms_path(), _entry_key(settings.base_url, settings.model))
        with self._lock:
            if marker in self._learning:
                return
            self._learning.add(marker)
        threading.Thread(target=self._learn_in_background, args=(settings, headers),
                         name="learn-answer-form", daemon=True).start()

    def _learn_in_background(self, settings: LLMSettings, headers: dict[str, str]) -> None:
        gate = gate_for(settings.base_url)
        with httpx.Client(base_url=settings.base_url.rstrip("/") + "/",
                          headers=auth_headers(settings), timeout=settings.timeout,
                          transport=abortable_transport(1)) as http:
            for _ in range(LEARN_ATTEMPTS):
                if not _wait_until_idle(gate):
                    return
                ticket = gate.enter_if_idle()
                if ticket is None:
                    continue
                assert ticket.give_way is not None
                call = Call((STOPPING, ticket.give_way))
                try:
                    with tracked(call):
                        form = probe(http, settings.model, settings.timeout, headers)
                finally:
                    gate.leave(ticket)
                if form is not None and call.ended is None:
                    self.keep(settings.base_url, settings.model, form, replace=False)
                    return


def _wait_until_idle(gate: Gate) -> bool:
    """Wait until ``gate`` has had nothing in flight or waiting for :data:`IDLE_S`; False when
    the process is stopping."""
    idle_since = time.monotonic()
    while not STOPPING.is_set():
        if gate.busy():
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= IDLE_S:
            return True
        time.sleep(_IDLE_POLL_S)
    return False


def probe_now(http: httpx.Client, settings: LLMSettings, headers: dict[str, str],
              cancels: Sequence[threading.Event]) -> OutputForm:
    """Probe through the server's gate (waiting in line like any request) and keep what was
    learnt; the plain form when the server could not be asked."""
    gate = gate_for(settings.base_url)
    ticket = gate.enter("", cancels)
    try:
        with tracked(Call(cancels)):
            form = probe(http, settings.model, settings.timeout, headers)
    finally:
        gate.leave(ticket)
    if form is None:
        return OutputForm()
    FORMS.keep(settings.base_url, settings.model, form)
    return form


FORMS = FormBook()

"""Writing files in the data folder so that a crash or a second writer never leaves half a file,
and reading back the small JSON records written that way."""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    write_atomic_with(path, lambda tmp: tmp.write_bytes(data))


def write_atomic_with(path: Path, write: Callable[[Path], object]) -> None:
    """Have ``write`` write a temporary file beside ``path`` (its argument), then rename it
    over ``path``; a failed write leaves no temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, value: Any, **dumps: Any) -> None:
    """:func:`write_atomic` of ``value`` as UTF-8 JSON (``dumps`` go to :func:`json.dumps`)."""
    write_atomic(path, json.dumps(value, **dumps).encode("utf-8"))


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; empty when the file is missing, unreadable or not an object
    (a user's saved choices must never stop the app from starting)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) across processes and threads.

    Read-modify-write of a shared record (a chunk set's description, the active-set flag) goes
    under it, so the app and several CLI runs may work on one data folder at once.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

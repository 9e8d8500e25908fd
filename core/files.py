"""Writing files in the data folder so that a crash or a second writer never leaves half a file."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def write_json(path: Path, value: Any, **dumps: Any) -> None:
    """:func:`write_atomic` of ``value`` as UTF-8 JSON (``dumps`` go to :func:`json.dumps`)."""
    write_atomic(path, json.dumps(value, **dumps).encode("utf-8"))

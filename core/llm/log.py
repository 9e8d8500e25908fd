"""The raw response log: one JSON line per LLM request in ``data_dir()/llm_log.jsonl``.

Each line holds the phase, template version, model, latency, token counts, HTTP status and the raw
text the model returned (or the error), so a failed phase can be debugged from the UI or a shell.
Request headers are never logged, so the API key cannot end up here.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from core.config import data_dir

LOG_FILE = "llm_log.jsonl"
MAX_BYTES = 20 * 1024 * 1024  # rotate to llm_log.jsonl.1 beyond this


class ResponseLog:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / LOG_FILE
        self._lock = threading.Lock()

    def write(self, **entry: Any) -> None:
        line = json.dumps({"time": time.time(), **entry}, ensure_ascii=False)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size > MAX_BYTES:
                self.path.replace(self.path.with_name(self.path.name + ".1"))
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")

    def tail(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest ``limit`` entries, newest first; unreadable lines are skipped."""
        if not self.path.exists():
            return []
        with self._lock:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        entries = []
        for line in reversed(lines):
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                continue
            if len(entries) >= limit:
                break
        return entries

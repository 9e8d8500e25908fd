"""On-disk cache of validated LLM answers (sqlite in ``data_dir()/llm_cache``).

Keys follow seed 000 — phase 1: template version + document hash; phase 2: section hash + max
tokens; phase 3/3b and table summaries: chunk hash (with the context the prompt shows) — and always
the model and the temperature. Only answers that passed validation are stored, so a bad answer is
asked again next time. Counters (hits, misses, requests, tokens) are per instance: one per run.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from core.config import data_dir


def digest(*parts: object) -> str:
    """A short stable hash of strings/numbers, for document, section and chunk hashes."""
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:32]


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "tokens": self.tokens}


class LLMCache:
    """Thread-safe; ``enabled=False`` keeps the counters but never reads or writes."""

    def __init__(self, path: Path | None = None, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self.stats = CacheStats()
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if enabled:
            self.path = path or data_dir() / "llm_cache" / "answers.sqlite3"
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, phase TEXT, text TEXT)"
            )
            self._db.commit()

    @staticmethod
    def key(
        phase: str, template_version: str, model: str, temperature: float, **content: object
    ) -> str:
        return digest(phase, template_version, model, temperature, sorted(content.items()))

    def get(self, key: str) -> str | None:
        with self._lock:
            row = None
            if self._db is not None:
                row = self._db.execute("SELECT text FROM answers WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.stats.misses += 1
                return None
            self.stats.hits += 1
            return row[0]

    def put(self, key: str, phase: str, text: str) -> None:
        with self._lock:
            if self._db is None:
                return
            self._db.execute(
                "INSERT OR REPLACE INTO answers (key, phase, text) VALUES (?, ?, ?)",
                (key, phase, text),
            )
            self._db.commit()

    def count_request(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.stats.requests += 1
            self.stats.prompt_tokens += prompt_tokens
            self.stats.completion_tokens += completion_tokens

    def clear(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.execute("DELETE FROM answers")
                self._db.commit()

    def close(self) -> None:
        """Safe while abandoned workers of a cancelled run still call get/put: they see None."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

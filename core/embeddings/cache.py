"""Vectors by text hash, one cache per embedder: a bounded in-memory LRU in front of a SQLite file
under ``data_dir()/embeddings``.

Each embedder has its own namespace (its name, and for an endpoint its address without
credentials), which names the file and is hashed into every key: two embedders never share a
vector. :func:`cached_embed` is how every embedder embeds: cached vectors are looked up, only the
rest is computed, once per distinct text.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from core.config import data_dir
from core.errors import EmbeddingError

MEMORY_CACHE_SIZE = 50_000


class VectorCache:
    """The vectors of one embedder (``namespace``), stored in ``<file_stem>.sqlite``."""

    def __init__(self, namespace: str, file_stem: str) -> None:
        self.namespace = namespace
        self.file_stem = file_stem
        self.memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self.lock = threading.Lock()
        self.local = threading.local()  # each thread's open connection, by file

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.namespace}\0{text}".encode()).hexdigest()[:32]

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection to the data folder's cache file, kept open: semantic
        chunking looks vectors up once per section, and opening and closing the file each time
        (a WAL checkpoint at every close) cost more than the lookups."""
        folder = data_dir() / "embeddings"
        path = folder / f"{self.file_stem}.sqlite"
        opened: dict[Path, sqlite3.Connection] = self.local.__dict__.setdefault("open", {})
        if path in opened:
            if path.exists():
                return opened[path]
            opened.pop(path).close()  # the file was deleted: start a new one
        folder.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, timeout=30)
        opened[path] = connection
        connection.execute("PRAGMA journal_mode=WAL")
        # A cache: losing the last writes on a power cut costs a re-embedding, while a full sync
        # per write costs a query as much time as running the model.
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB)")
        return connection

    def _remember(self, key: str, vector: np.ndarray) -> None:
        self.memory[key] = vector
        self.memory.move_to_end(key)
        while len(self.memory) > MEMORY_CACHE_SIZE:
            self.memory.popitem(last=False)

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self.lock:
            for key in keys:
                if key in self.memory:
                    self.memory.move_to_end(key)
                    found[key] = self.memory[key]
        missing = [key for key in keys if key not in found]
        if missing:
            with self._connect() as connection:
                for start in range(0, len(missing), 500):
                    part = missing[start : start + 500]
                    marks = ",".join("?" * len(part))
                    rows = connection.execute(
                        f"SELECT key, vec FROM vectors WHERE key IN ({marks})", part
                    ).fetchall()
                    for key, blob in rows:
                        found[key] = np.frombuffer(blob, dtype=np.float32).copy()
            with self.lock:
                for key in missing:
                    if key in found:
                        self._remember(key, found[key])
        return found

    def put_many(self, items: dict[str, np.ndarray], persist: bool = True) -> None:
        with self.lock:
            for key, vector in items.items():
                self._remember(key, vector)
        if not persist:
            return
        with self._connect() as connection:
            connection.executemany(
                "INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
                [(key, vector.astype(np.float32).tobytes()) for key, vector in items.items()],
            )


_caches: dict[str, VectorCache] = {}
_caches_lock = threading.Lock()
_embedded = [0]  # texts the embedders have computed in this process


def embedded_texts() -> int:
    """How many texts the embedders have computed in this process (cache hits not counted): a
    caller tells from two readings how much of its work the cache served."""
    return _embedded[0]


def cache_for(namespace: str, file_stem: str) -> VectorCache:
    """The process's one cache of ``namespace`` (its memory part outlives each embedder object)."""
    with _caches_lock:
        if namespace not in _caches:
            _caches[namespace] = VectorCache(namespace, file_stem)
        return _caches[namespace]


def cached_embed(
    cache: VectorCache,
    compute: Callable[[list[str]], np.ndarray],
    texts: Sequence[str],
    *,
    use_cache: bool = True,
    persist: bool = True,
) -> np.ndarray:
    """``compute`` the vectors of the texts ``cache`` does not hold (each distinct text once);
    the new ones are cached in memory, and on disk unless ``persist`` is false. Rows in the
    order of ``texts``, float32."""
    texts = list(texts)
    if not use_cache:
        _embedded[0] += len(texts)
        return compute(texts)
    keys = [cache.key(text) for text in texts]
    found = cache.get_many(list(dict.fromkeys(keys)))
    todo = {key: text for key, text in zip(keys, texts, strict=True) if key not in found}
    if todo:
        _embedded[0] += len(todo)
        vectors = compute(list(todo.values()))
        fresh = dict(zip(todo, vectors, strict=True))
        cache.put_many(fresh, persist)
        found.update(fresh)
    sizes = {len(found[key]) for key in keys}
    if len(sizes) > 1:  # a model replaced under the same name and address
        raise EmbeddingError(
            f"The embedder's cached vectors have {min(sizes)} and {max(sizes)} dimensions: it "
            f"changed under the same name; delete {data_dir() / 'embeddings'} / "
            f"{cache.file_stem}.sqlite to start its cache afresh.")
    return np.stack([found[key] for key in keys]).astype(np.float32, copy=False)

"""Where the chunk store lives and how it is reached: an embedded Chroma folder, or a Chroma
server (``CHROMA_HOST``, ``CHROMA_PORT`` default 8000) that several people can share.

The connection owns what is about the place, not about chunk sets: opening the client, turning a
lost connection into one sentence, taking turns with other processes on this machine to write,
and — embedded only — reopening the client when another process wrote since this one looked (an
open embedded client keeps each collection's vector index in memory). Chroma is imported when a
connection is opened.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from core.config import data_dir
from core.errors import StoreError, StoreUnreachable
from core.files import file_lock, write_atomic

CHROMA_HOST_ENV = "CHROMA_HOST"
CHROMA_PORT_ENV = "CHROMA_PORT"
DEFAULT_PORT = 8000
HEARTBEAT_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class StoreAddress:
    """An embedded store's folder, or a Chroma server's host and port."""

    path: Path | None = None
    host: str = ""
    port: int = DEFAULT_PORT

    @classmethod
    def from_env(cls, path: Path | None = None) -> StoreAddress:
        """``path`` when given, else the server ``CHROMA_HOST`` names, else the data folder's."""
        host = os.environ.get(CHROMA_HOST_ENV, "").strip()
        if path is not None or not host:
            return cls(path=Path(path) if path is not None else data_dir() / "chroma")
        port = os.environ.get(CHROMA_PORT_ENV, "").strip() or str(DEFAULT_PORT)
        if not port.isdigit():
            raise StoreError(f"{CHROMA_PORT_ENV} must be a port number, not “{port}”.")
        return cls(host=host, port=int(port))

    @property
    def server(self) -> bool:
        return self.path is None

    @property
    def location(self) -> str:
        """``Chroma server host:port`` or the embedded store's folder."""
        return f"Chroma server {self.host}:{self.port}" if self.path is None else str(self.path)

    def answers(self) -> bool:
        """The server answers its heartbeat (an embedded store always does)."""
        if self.path is not None:
            return True
        try:
            url = f"http://{self.host}:{self.port}/api/v2/heartbeat"
            return httpx.get(url, timeout=HEARTBEAT_TIMEOUT_S).is_success
        except httpx.HTTPError:
            return False


class Connection:
    """An open Chroma client for one :class:`StoreAddress`."""

    def __init__(self, address: StoreAddress) -> None:
        import chromadb
        from chromadb.config import Settings

        self.address = address
        self._lock_path = self.beside("lock")
        self.not_found = chromadb.errors.NotFoundError
        self._settings = Settings(anonymized_telemetry=False)
        self.client: Any
        if address.path is None:
            try:
                self.client = chromadb.HttpClient(host=address.host, port=address.port,
                                                  settings=self._settings)
            except Exception as err:  # chromadb raises ValueError/httpx errors when unreachable
                raise StoreUnreachable(
                    f"The Chroma server at {address.host}:{address.port} cannot be reached; "
                    f"start it or unset {CHROMA_HOST_ENV} to use the embedded store."
                ) from err
            self._generation_path: Path | None = None  # the server sees every writer's records
        else:
            path = address.path
            path.mkdir(parents=True, exist_ok=True)
            # Opening a new store creates its tables: two processes doing it at once would
            # both try ("table collections already exists"), so they take turns.
            with file_lock(self._lock_path):
                self.client = chromadb.PersistentClient(path=str(path), settings=self._settings)
            self._generation_path = self.beside("generation")
        self._seen = self._generation()
        # Held while a collection object is in use, so that no other thread reopens the client
        # under it (fresh); reads are milliseconds, and an ingest holds it only to write.
        self.in_use = threading.RLock()

    def beside(self, suffix: str) -> Path:
        """A file of this machine's that goes with the store: beside an embedded store's
        folder, in the data folder for a server."""
        if self.address.path is None:
            return data_dir() / f"chunk_sets.{self.address.host}_{self.address.port}.{suffix}"
        return self.address.path.parent / f"{self.address.path.name}.{suffix}"

    @contextmanager
    def talking(self) -> Iterator[None]:
        """Turn a lost connection into one sentence; everything else propagates."""
        try:
            yield
        except (httpx.TransportError, ConnectionError) as err:
            raise StoreUnreachable(
                f"The chunk store ({self.address.location}) cannot be reached.") from err

    def _generation(self) -> str:
        """What the last writer (any process) left in the generation file ("" if none yet)."""
        path = self._generation_path  # replaced atomically by each writer, never removed
        return path.read_text(encoding="utf-8") if path is not None and path.exists() else ""

    def fresh(self) -> None:
        """Reopen the embedded store when another process wrote to it since this one looked."""
        with self.in_use:
            current = self._generation()
            if current == self._seen:
                return
            import chromadb

            self.client.close()  # on Client, not on ClientAPI
            self.client = chromadb.PersistentClient(path=str(self.address.path),
                                                    settings=self._settings)
            self._seen = current

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Serialise writes with the other processes (and threads) on this machine; a write
        leaves a new generation for the other processes to notice."""
        with self.in_use, file_lock(self._lock_path):
            self.fresh()
            yield
            if self._generation_path is not None:
                self._seen = f"{os.getpid()}-{time.time_ns()}"
                write_atomic(self._generation_path, self._seen.encode("utf-8"))

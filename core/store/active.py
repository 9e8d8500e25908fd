"""Which chunk set is active — the feature flag retrieval follows — and which was active before
(the rollback target).

An embedded store keeps the flag in a small JSON file beside its folder. A Chroma server keeps it
on the server, in the metadata of a collection of its own that holds no records, so everyone
using that server sees the same cutover.
"""

from __future__ import annotations

import json
from typing import Protocol

from core.files import write_json
from core.store.connection import Connection

FLAG_COLLECTION = "chunklab-active-set"
FLAG_KEY = "chunklab_flag"


class ActiveFlag(Protocol):
    def read(self) -> dict[str, str]:
        """``{"active": name, "previous": name}``, either key absent when unset."""

    def write(self, flag: dict[str, str]) -> None: ...


def _parsed(text: str | None) -> dict[str, str]:
    try:
        value = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return {}
    return {k: v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}


class FileFlag:
    """The flag of an embedded store: a JSON file beside its folder."""

    def __init__(self, connection: Connection) -> None:
        self._path = connection.beside("active_chunk_set.json")

    def read(self) -> dict[str, str]:
        try:
            return _parsed(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def write(self, flag: dict[str, str]) -> None:
        write_json(self._path, flag)


class ServerFlag:
    """The flag of a Chroma server: the metadata of one empty collection on it."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def _collection(self):
        with self._connection.talking():
            return self._connection.client.get_or_create_collection(FLAG_COLLECTION)

    def read(self) -> dict[str, str]:
        metadata = self._collection().metadata or {}
        return _parsed(metadata.get(FLAG_KEY))

    def write(self, flag: dict[str, str]) -> None:
        collection = self._collection()
        with self._connection.talking():
            collection.modify(metadata={FLAG_KEY: json.dumps(flag)})


def active_flag(connection: Connection) -> ActiveFlag:
    return ServerFlag(connection) if connection.address.server else FileFlag(connection)

"""Chunk sets in Chroma: several chunkings side by side, one of them active.

A chunk set is one chunking of some documents (strategy, settings, prompt versions, embedder). It
lives in its own Chroma collection (cosine space) whose metadata holds its :class:`ChunkSetInfo`
as JSON. Which set is *active* — the feature flag retrieval follows — is kept by
:mod:`core.store.active`; activating a new set is the cutover, activating the previous one again
the rollback, and re-processing never touches a set other than the one it writes.

The store is embedded (``chromadb.PersistentClient`` under ``data_dir()/chroma``) unless
``CHROMA_HOST`` (and ``CHROMA_PORT``, default 8000) name a Chroma server
(:mod:`core.store.connection`).

What is embedded is not always the stored text: a table chunk is embedded by its summary when
it has one (else a digest plus windows of its rows) and a contextual prefix is put in front, while
the stored document stays the exact span of the source (:mod:`core.store.records`).
:meth:`ChunkStore.get_chunks` and the counts skip extra view records and :meth:`ChunkStore.query`
folds their hits into their chunk (best score).

Each set is embedded by one embedder, recorded in its info (name, where it ran, dimension): its
chunks and the questions asked of it are embedded by that one (:meth:`ChunkStore.embedder`), and
the vectors are always handed to Chroma (the collection's embedding function is never asked).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar, get_args

import numpy as np

from core.chunking.chunk import Chunk
from core.documents.model import MatterRole
from core.embeddings.chroma import get_embedding_function
from core.embeddings.encoder import word_pieces
from core.embeddings.port import Embedder, resolve
from core.embeddings.settings import EmbeddingSettings
from core.errors import StoreError, StoreUnreachable
from core.store.active import active_flag
from core.store.connection import Connection, StoreAddress
from core.store.info import ChunkSetInfo, FailedDocument
from core.store.records import (
    FRONT_MATTER_KEY,
    OLD_FRONT_MATTER_KEY,
    VIEW_NUMBER,
    VIEW_OF,
    chunk_from_record,
    records,
    with_extra_views,
)
from core.store.undo import Undo, UndoJournal
from core.store.views import EMBEDDING_INPUT_VERSION, chunk_views

INFO_KEY = "chunklab_set"
MAX_NAME_LENGTH = 80
T = TypeVar("T")
QUERY_FACTOR = 4  # a query asks for k × this records at first (views can crowd out chunks)


def _collection_name(name: str) -> str:
    """Chroma allows only [a-zA-Z0-9._-] in collection names; set names are free text."""
    return "chunkset-" + hashlib.sha256(name.encode()).hexdigest()[:24]


def _serialised(method: Callable[..., T]) -> Callable[..., T]:
    """Run a read of the store while no other thread of this process may reopen its client."""

    @functools.wraps(method)
    def locked(self: ChunkStore, *args: Any, **kwargs: Any) -> T:
        with self._in_use:
            return method(self, *args, **kwargs)

    return locked


class ChunkStore:
    """Chunk sets in an embedded Chroma store (``path``) or on the server ``CHROMA_HOST`` names."""

    def __init__(self, path: Path | None = None) -> None:
        self._connection = Connection(StoreAddress.from_env(path))
        self._flags = active_flag(self._connection)
        self._in_use = self._connection.in_use
        self._talking = self._connection.talking
        self._locked = self._connection.locked
        self._undos = UndoJournal(self._connection.beside("undo.json"))

    @property
    def location(self) -> str:
        """The embedded store's folder, or ``Chroma server host:port``."""
        return self._connection.address.location

    @property
    def client(self) -> Any:
        return self._connection.client

    def _collection(self, name: str):
        self._connection.fresh()
        with self._talking():
            try:
                return self.client.get_collection(
                    _collection_name(name), embedding_function=get_embedding_function()
                )
            except self._connection.not_found:
                raise StoreError(f"There is no chunk set named “{name}”.") from None

    # -- sets --------------------------------------------------------------------------------

    def create_set(self, info: ChunkSetInfo, *, exist_ok: bool = False) -> ChunkSetInfo:
        """Create the set ``info`` describes; with ``exist_ok`` a set of that name (made by
        another process a moment ago, say) is returned as it is."""
        name = info.name.strip()
        if not name or len(name) > MAX_NAME_LENGTH:
            raise StoreError(f"A chunk set needs a name of 1 to {MAX_NAME_LENGTH} characters.")
        with self._locked():
            if self._named(name):
                if exist_ok:
                    return self.info(name)
                raise StoreError(f"A chunk set named “{name}” already exists.")
            info = info.model_copy(update={"name": name, "docs": 0, "chunks": 0, "doc_ids": [],
                                           "embedding_input": EMBEDDING_INPUT_VERSION})
            with self._talking():
                self.client.create_collection(
                    _collection_name(name),
                    embedding_function=get_embedding_function(),
                    configuration={"hnsw": {"space": "cosine"}},
                    metadata={INFO_KEY: info.model_dump_json()},
                )
        return info

    def has_set(self, name: str) -> bool:
        return any(info.name == name for info in self.list_sets())

    def _named(self, name: str) -> bool:
        """:meth:`has_set` for a caller that holds the lock (no pending undo is done)."""
        return any(info.name == name for info in self._list_sets())

    def info(self, name: str) -> ChunkSetInfo:
        return self._info(self._collection(name))

    @staticmethod
    def _info(collection) -> ChunkSetInfo:
        return ChunkSetInfo.model_validate_json(collection.metadata[INFO_KEY])

    def list_sets(self) -> list[ChunkSetInfo]:
        """Every chunk set, oldest first (an undo left for when the store answers done first)."""
        self._finish_undos()
        return self._list_sets()

    def _list_sets(self) -> list[ChunkSetInfo]:
        self._connection.fresh()
        with self._talking():
            collections = self.client.list_collections()
        infos = [
            ChunkSetInfo.model_validate_json(c.metadata[INFO_KEY])
            for c in collections
            if c.metadata and INFO_KEY in c.metadata
        ]
        return sorted(infos, key=lambda info: (info.created, info.name))

    def delete_set(self, name: str) -> None:
        """Delete a set and its chunks; if it was active, no set is active afterwards."""
        with self._locked():
            self._collection(name)
            with self._talking():
                self.client.delete_collection(_collection_name(name))
            flag = self._flags.read()
            if name in flag.values():
                self._flags.write({key: value for key, value in flag.items() if value != name})

    # -- the feature flag (core.store.active) -----------------------------------------------

    def active_set(self) -> str | None:
        """The set retrieval uses by default (None when none is active or it was deleted)."""
        name = self._flags.read().get("active")
        return name if name and self._named(name) else None

    def previous_set(self) -> str | None:
        """The set that was active before the last cutover: the rollback target."""
        name = self._flags.read().get("previous")
        return name if name and self._named(name) else None

    def activate(self, name: str) -> None:
        """Cutover to ``name``; activating the previous set again is the rollback."""
        with self._locked():
            self._activate(name)

    def _activate(self, name: str) -> None:
        self._collection(name)
        current = self.active_set()
        previous = current if current and current != name else self.previous_set()
        flag = {"active": name}
        if previous and previous != name:
            flag["previous"] = previous
        self._flags.write(flag)

    def rollback(self) -> str:
        """Activate the previous set again and return its name."""
        with self._locked():
            previous = self.previous_set()
            if not previous:
                raise StoreError("There is no previous chunk set to roll back to.")
            self._activate(previous)
        return previous

    # -- chunks ------------------------------------------------------------------------------

    def add_chunks(
        self,
        name: str,
        chunks: Iterable[Chunk],
        *,
        documents: Iterable[str] = (),
        names: Mapping[str, str] | None = None,
        progress: Callable[[int, int], None] | None = None,
        embedder: Embedder | None = None,
    ) -> ChunkSetInfo:
        """Embed (cached) and store ``chunks``; their documents (and ``documents``, ids of
        documents that gave no chunk; ``names``: file names by id) then count as stored in the set.

        ``progress(done, total)`` is called after each write. Chunks with an id already in the
        set replace it, so adding a document again after an interruption is safe. ``embedder``
        must be the set's own (default: :meth:`embedder`); nothing is written when it fails.
        """
        embedder = self._checked(name, embedder)  # an unknown set fails before the embedding
        unique = list({chunk.id: chunk for chunk in chunks}.values())
        read = [chunk_views(chunk) for chunk in unique]
        views = [chunk_read.texts for chunk_read in read]
        texts = [text for chunk_views in views for text in chunk_views]
        vectors = embedder.embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
        # MiniLM's word-piece limit (an endpoint's limit and tokenizer are its own)
        pieces = ([max(word_pieces(text) for text in chunk_views) for chunk_views in views]
                  if embedder.ref.builtin else [])
        planned = records(unique, views)
        viewed = with_extra_views(unique, views)
        added = [*(chunk.doc_id for chunk in unique), *documents]
        with self._talking():
            step = max(1, min(1000, self.client.get_max_batch_size()))
        done = 0
        with self._locked():  # the embedding above runs in parallel, the writes one at a time
            collection = self._collection(name)
            if viewed:
                with self._talking():
                    collection.delete(where={VIEW_OF: {"$in": viewed}})
            for start in range(0, len(planned), step):
                part = planned[start : start + step]
                with self._talking():
                    collection.upsert(
                        ids=[record.id for record in part],
                        documents=[record.document for record in part],
                        embeddings=vectors[[record.row for record in part]],
                        metadatas=[record.metadata for record in part],
                    )
                done += sum(VIEW_OF not in record.metadata for record in part)
                if progress:
                    progress(done, len(unique))
            return self._write_info(name, lambda info: {
                "doc_ids": list(dict.fromkeys([*info.doc_ids, *added])),
                "doc_names": {**info.doc_names, **(names or {})},
                "failed": [f for f in info.failed if f.doc_id not in added],
                "max_word_pieces": max([info.max_word_pieces, *pieces]),
                **({"over_limit": info.over_limit + sum(r.truncated for r in read),
                    "windowed": info.windowed + sum(r.windowed for r in read),
                    "read_chars": info.read_chars + sum(r.read_chars for r in read),
                    "chars": info.chars + sum(r.chars for r in read)} if pieces else {}),
                **({"dimension": int(vectors.shape[1])} if len(vectors) else {}),
            })

    def embedder(self, name: str, settings: EmbeddingSettings | None = None) -> Embedder:
        """The embedder of set ``name`` (``settings``: the session's endpoint settings)."""
        return resolve(self.info(name).embedder_ref, settings)

    def _checked(self, name: str, embedder: Embedder | None) -> Embedder:
        if embedder is None:
            return self.embedder(name)
        info = self.info(name)
        if embedder.ref != info.embedder_ref:
            raise StoreError(f"The chunk set “{name}” is embedded with "
                             f"{info.embedder_ref.label}, not {embedder.ref.label}.")
        return embedder

    def record_failed(self, name: str, failed: Iterable[FailedDocument]) -> ChunkSetInfo:
        """Note documents an ingest could not chunk (a document noted before is noted anew)."""
        new = list(failed)
        ids = {f.doc_id for f in new}
        with self._locked():
            return self._write_info(name, lambda info: {
                "failed": [f for f in info.failed if f.doc_id not in ids] + new})

    def remove_document(self, name: str, doc_id: str) -> None:
        """Drop a document's chunks from a set (used before re-adding an interrupted one)."""
        with self._locked():
            collection = self._collection(name)
            with self._talking():
                collection.delete(where={"doc_id": doc_id})
            self._write_info(name, lambda info: {
                "doc_ids": [d for d in info.doc_ids if d != doc_id]})

    def undo(self, undo: Undo) -> None:
        """Take out what a failed ingest stored; when the store cannot be reached, the undo is
        done the next time the sets are listed (:mod:`core.store.undo`)."""
        try:
            self._undo(undo)
        except StoreUnreachable:
            self._undos.add(undo)

    def _undo(self, undo: Undo) -> None:
        if not self._named(undo.chunk_set):
            return
        if undo.whole_set:
            self.delete_set(undo.chunk_set)
            return
        for doc_id in undo.doc_ids:
            self.remove_document(undo.chunk_set, doc_id)

    def _finish_undos(self) -> None:
        for undo in self._undos.pending():
            self._undo(undo)
            self._undos.done(undo)

    def _write_info(
        self, name: str, change: Callable[[ChunkSetInfo], dict[str, Any]]
    ) -> ChunkSetInfo:
        """Apply ``change`` to the set's record as stored now and recount; the caller holds the
        lock. The record is read again here, so a write by another process is never lost, and
        the counts are those of what is stored."""
        collection = self._collection(name)
        info = self._info(collection)
        info = info.model_copy(update=change(info))
        info = info.model_copy(update={"docs": len(info.doc_ids),
                                       "chunks": self._count(collection)})
        with self._talking():
            collection.modify(metadata={INFO_KEY: info.model_dump_json()})
        return info

    def _count(self, collection) -> int:
        """Chunks in the collection: its records less the extra views."""
        with self._talking():
            views = collection.get(where={VIEW_NUMBER: {"$gte": 1}}, include=[])
            return collection.count() - len(views["ids"])

    def get_chunks(self, name: str, doc_id: str | None = None) -> list[Chunk]:
        """The set's chunks (one document's with ``doc_id``), in document order."""
        return self._chunks(name, {"doc_id": doc_id} if doc_id else None)

    def front_matter_chunks(self, name: str) -> list[Chunk]:
        """The set's chunks of front matter (a cover, contents…), in document order: read
        without the rest, for a retrieval to count what it left out."""
        roles = {"$in": list(get_args(MatterRole))}
        return self._chunks(name, {"$or": [{FRONT_MATTER_KEY: roles},
                                           {OLD_FRONT_MATTER_KEY: roles}]})

    @_serialised
    def _chunks(self, name: str, where: dict | None) -> list[Chunk]:
        collection = self._collection(name)
        with self._talking():
            found = collection.get(where=where, include=["documents", "metadatas"])
        chunks = [
            chunk_from_record(chunk_id, text, meta)
            for chunk_id, text, meta in zip(
                found["ids"], found["documents"], found["metadatas"], strict=True
            )
            if VIEW_OF not in meta
        ]
        return sorted(chunks, key=lambda c: (c.doc_id, c.start, c.end))

    @_serialised
    def get_vectors(self, name: str) -> dict[str, np.ndarray]:
        """Each chunk's stored vector by chunk id: the vector of its first view, the text
        :func:`~core.store.views.embedding_text` makes (extra views are left out)."""
        collection = self._collection(name)
        with self._talking():
            found = collection.get(include=["embeddings", "metadatas"])
        return {chunk_id: np.asarray(vector, dtype=np.float32)
                for chunk_id, vector, meta in zip(found["ids"], found["embeddings"],
                                                  found["metadatas"], strict=True)
                if VIEW_OF not in meta}

    def query(
        self, name: str, text: str, k: int, where: dict | None = None,
        embedder: Embedder | None = None,
    ) -> list[tuple[Chunk, float]]:
        """The ``k`` chunks closest to ``text`` with their score (1 − cosine distance, higher is
        better: a chunk scores its best view). ``where`` is a Chroma filter on the metadata, e.g.
        ``{"chunk_type": "table"}``. ``text`` is embedded by the set's embedder (``embedder``,
        default :meth:`embedder`), before the store is held.
        """
        if k < 1:
            return []
        vector = self._checked(name, embedder).embed_queries([text], persist=False)
        return self._nearest(name, vector, k, where)

    @_serialised
    def _nearest(
        self, name: str, query: np.ndarray, k: int, where: dict | None
    ) -> list[tuple[Chunk, float]]:
        collection = self._collection(name)
        with self._talking():
            size = collection.count()
            if size == 0:
                return []
            asked = min(size, k * QUERY_FACTOR)
            while True:
                found = collection.query(
                    query_embeddings=query,
                    n_results=asked,
                    where=where or None,
                    include=["documents", "metadatas", "distances"],
                )
                best: dict[str, float] = {}  # chunk id → best score, best first
                chunks: dict[str, Chunk] = {}
                for record_id, doc, meta, distance in zip(
                    found["ids"][0], found["documents"][0], found["metadatas"][0],
                    found["distances"][0], strict=True,
                ):
                    chunk_id = meta.get(VIEW_OF, record_id)
                    best.setdefault(chunk_id, 1.0 - float(distance))
                    if VIEW_OF not in meta:
                        chunks[chunk_id] = chunk_from_record(chunk_id, doc, meta)
                if len(best) >= k or asked >= size or len(found["ids"][0]) < asked:
                    break
                asked = min(size, asked * QUERY_FACTOR)
            top = list(best.items())[:k]
            missing = [chunk_id for chunk_id, _ in top if chunk_id not in chunks]
            if missing:
                found = collection.get(ids=missing, include=["documents", "metadatas"])
                for chunk_id, doc, meta in zip(
                    found["ids"], found["documents"], found["metadatas"], strict=True
                ):
                    chunks[chunk_id] = chunk_from_record(chunk_id, doc, meta)
        return [(chunks[chunk_id], score) for chunk_id, score in top]



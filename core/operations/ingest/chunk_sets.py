"""Chunk sets side by side: list them, cut over, roll back, delete (the Chunk sets page and
``python -m core sets``). Each action returns the sentence to show the user."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from core.store import ChunkSetInfo, ChunkStore
from core.store.connection import CHROMA_HOST_ENV, StoreAddress


class StoreStatus(BaseModel):
    """Which chunk store is in use and whether it answers."""

    location: str  # the embedded store's folder, or ``Chroma server host:port``
    server: bool
    answers: bool

    def sentence(self) -> str:
        if not self.server:
            return f"Chunk store: embedded, in {self.location}."
        if self.answers:
            return f"Chunk store: {self.location}, answering."
        return (f"Chunk store: {self.location}, not answering: start it (chroma run) or unset "
                f"{CHROMA_HOST_ENV} to use the embedded store.")


def store_status() -> StoreStatus:
    """The store ``CHROMA_HOST`` names (else the data folder's), asked for its heartbeat."""
    address = StoreAddress.from_env()
    return StoreStatus(location=address.location, server=address.server,
                       answers=address.answers())


@dataclass(frozen=True)
class ChunkSets:
    """The sets side by side, the one retrieval uses and the one it used before the last
    cutover (the rollback target)."""

    infos: list[ChunkSetInfo]
    active: str | None
    previous: str | None


def listing(store: ChunkStore) -> ChunkSets:
    """Every chunk set, oldest first, with the active and the previous one."""
    return ChunkSets(store.list_sets(), store.active_set(), store.previous_set())


class ChunkSetRow(BaseModel):
    """One line of the list of chunk sets."""

    name: str
    documents: int
    chunks: int
    active: bool
    created: str
    strategy: str
    embedder: str = ""  # its model, where it ran ("local" or the endpoint's host) and dimension
    embedder_where: str = ""
    dimension: int = 0


def chunk_set_rows(store: ChunkStore) -> list[ChunkSetRow]:
    """Every chunk set, oldest first, with what is stored in it and whether retrieval uses it."""
    active = store.active_set()
    return [
        ChunkSetRow(name=info.name, documents=info.docs, chunks=info.chunks,
                    active=info.name == active, created=info.created, strategy=info.strategy,
                    embedder=info.embedder, embedder_where=info.embedder_ref.where,
                    dimension=info.dimension)
        for info in store.list_sets()
    ]


def cutover(store: ChunkStore, name: str) -> str:
    """Make ``name`` the set retrieval uses; the one active before becomes the rollback target."""
    store.activate(name)
    return f"Cut over to “{name}”."


def rollback(store: ChunkStore) -> str:
    """Make the set active before the last cutover the active one again."""
    return f"Rolled back to “{store.rollback()}”."


def delete(store: ChunkStore, name: str) -> str:
    """Delete a set and its chunks (if it was active, no set is active afterwards)."""
    store.delete_set(name)
    return f"Deleted “{name}”."

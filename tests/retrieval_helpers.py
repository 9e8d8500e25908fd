"""Helpers for retrieval tests: chunks cut from a text, an in-memory store with the
:class:`core.store.ChunkStore` methods retrieval calls, and a real chunk set of a sample."""

from __future__ import annotations

from pathlib import Path

from core.chunking.chunk import Chunk, LLMAnnotations
from core.documents import convert
from core.retrieval.bm25 import tokenize
from core.store import ChunkSetInfo
from tests.docfactory import chunk_document


def make_chunk(doc_id: str, text: str, start: int, end: int, **fields) -> Chunk:
    return Chunk(id=f"{doc_id}-{start}-{end}", doc_id=doc_id, strategy="test", config={},
                 start=start, end=end, text=text[start:end], tokens=end - start, **fields)


def annotated(chunk: Chunk, **llm: str) -> Chunk:
    """``chunk`` as the LLM strategy would leave it, with ``summary`` / ``context_prefix``."""
    return chunk.model_copy(update={"llm": LLMAnnotations(
        boundary_type="SEMANTIC_SHIFT", justification="a test chunk", **llm)})


def chunks_of(doc_id: str, text: str, spans: list[tuple[int, int]], **fields) -> list[Chunk]:
    return [make_chunk(doc_id, text, s, e, **fields) for s, e in spans]


class FakeStore:
    def __init__(self, sets: dict[str, list[Chunk]], active: str | None = None) -> None:
        self.sets = sets
        self.active = active
        self.queries: list[dict] = []

    def active_set(self) -> str | None:
        return self.active

    def get_chunks(self, name: str, doc_id: str | None = None) -> list[Chunk]:
        return [c for c in self.sets[name] if doc_id is None or c.doc_id == doc_id]

    def embedder(self, name: str, settings=None) -> None:
        """The fake ranks by shared words: no embedder."""
        return None

    def query(self, name, text, k, where=None, embedder=None) -> list[tuple[Chunk, float]]:
        self.queries.append({"name": name, "text": text, "k": k, "where": where})
        words = set(tokenize(text))
        pool = [c for c in self.sets[name] if _matches(c, where)]
        scored = [(c, len(words & set(tokenize(c.text))) / (1 + len(words))) for c in pool]
        return sorted(scored, key=lambda pair: -pair[1])[:k]


def _matches(chunk: Chunk, where: dict | None) -> bool:
    if not where:
        return True
    if "$and" in where:
        return all(_matches(chunk, part) for part in where["$and"])
    ((key, value),) = where.items()
    if isinstance(value, dict):
        return getattr(chunk, key) in value["$in"]
    return getattr(chunk, key) == value


SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
HANDBOOK = "technical_handbook.md"


def handbook_set(store, name: str, size: int = 200):
    """A chunk set of the sample handbook (recursive, ``size`` tokens, table-aware) in ``store``;
    returns the converted document."""
    document = convert((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    settings = {"size": size, "overlap": 0, "unit": "tokens", "tables": True}
    if not store.has_set(name):
        store.create_set(ChunkSetInfo(name=name, strategy="recursive", settings=settings))
        store.add_chunks(name, chunk_document(document, "recursive", **settings))
    return document

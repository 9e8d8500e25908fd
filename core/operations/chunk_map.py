"""A map of what retrieval sees: the chunks of a chunk set or of an evaluated configuration in
two dimensions (:mod:`core.retrieval.projection`), with a question, the chunks it retrieved
and the reference excerpts that answer it placed on the same axes.

The vectors are the ones retrieval ranks with: a chunk set's stored vectors, or for an
evaluated configuration the vectors of the texts the evaluation embedded (each chunk's first
view, its contextual prefix left out when the configuration was evaluated without), by the
same embedder. An evaluated result keeps its chunks' spans and those texts, so its map is drawn
from the result; only a result kept before results held them has its chunks made again. A
question and its references are embedded like a query by that embedder (the map keeps its
name; the session's endpoint settings bring the key). Every point keeps its document and span,
so a click on the map can open the chunk in its document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.embeddings import BUILTIN, EmbedderRef, EmbeddingSettings, resolve
from core.errors import ChunkLabError
from core.operations.evaluation import CandidateResult, ChunkSpan, QuestionResult
from core.operations.evaluation.chunk_memo import as_embedded, chunks_for
from core.retrieval.modes import RankMode
from core.retrieval.pack import Pack
from core.retrieval.projection import Projection, pca
from core.retrieval.retrieve import retrieve
from core.store import ChunkStore

NO_HEADING = "(no heading)"


class MapError(ChunkLabError):
    """A map that cannot be drawn: a chunk set with no chunk, vectors missing from the store."""


@dataclass(frozen=True)
class MapPoint:
    chunk_id: str
    doc_id: str
    document: str  # the document's file name
    section: str  # the chunk's heading path, or NO_HEADING
    chunk_type: str
    start: int
    end: int
    x: float
    y: float


@dataclass(frozen=True)
class ReferenceMark:
    """A reference excerpt (the text that answers the question) placed on the map."""

    doc_id: str
    start: int
    end: int
    x: float
    y: float


@dataclass(frozen=True)
class MapQuestion:
    text: str
    x: float
    y: float
    retrieved: dict[int, int]  # point index → rank of the retrieved range that holds it (1 = best)
    references: tuple[ReferenceMark, ...] = ()
    touching: frozenset[int] = frozenset()  # points that share text with a reference


@dataclass(frozen=True)
class ChunkMap:
    points: tuple[MapPoint, ...]
    projection: Projection
    embedder: EmbedderRef = field(default=BUILTIN)  # what made the vectors (no key)

    @property
    def explained(self) -> tuple[float, float]:
        return self.projection.explained

    def place(self, texts: Sequence[str],
              embedding: EmbeddingSettings | None = None) -> np.ndarray:
        """Map coordinates of ``texts`` embedded like a query by the map's embedder
        (``embedding``: the session's endpoint settings, for its key)."""
        vectors = resolve(self.embedder, embedding).embed_queries(list(texts), persist=False)
        return self.projection.place(vectors)


def _section(chunk: Chunk | ChunkSpan) -> str:
    return " › ".join(chunk.heading_path) or NO_HEADING


def build_map(chunks: Sequence[Chunk | ChunkSpan], vectors: np.ndarray,
              doc_names: Mapping[str, str],
              embedder: EmbedderRef = BUILTIN) -> ChunkMap:
    """The map of ``chunks`` (row ``i`` of ``vectors`` is chunk ``i``'s, made by
    ``embedder``)."""
    if not chunks:
        raise MapError("There is no chunk to draw a map of.")
    projection = pca(vectors)
    xy = projection.place(vectors)
    points = tuple(
        MapPoint(c.id, c.doc_id, doc_names.get(c.doc_id, c.doc_id), _section(c), c.chunk_type,
                 c.start, c.end, float(x), float(y))
        for c, (x, y) in zip(chunks, xy, strict=True))
    return ChunkMap(points, projection, embedder)


def chunk_set_map(store: ChunkStore, name: str, doc_names: Mapping[str, str]) -> ChunkMap:
    """The map of a chunk set, from the vectors it stores."""
    chunks = store.get_chunks(name)
    vectors = store.get_vectors(name)
    missing = [c.id for c in chunks if c.id not in vectors]
    if missing:
        raise MapError(f"The chunk set “{name}” has {len(missing):,} chunks without a stored "
                       "vector; create it again to draw its map.")
    if not chunks:
        raise MapError(f"The chunk set “{name}” holds no chunk yet.")
    return build_map(chunks, np.stack([vectors[c.id] for c in chunks]), doc_names,
                     store.info(name).embedder_ref)


def evaluation_map(result: CandidateResult, documents: Mapping[str, Document],
                   store: ChunkStore | None = None,
                   embedding: EmbeddingSettings | None = None) -> ChunkMap:
    """The map of an evaluated configuration's chunks over the question set's documents, with
    the vectors its evaluation ranked by (its embedder's, found in its vector cache or embedded
    again; ``embedding``: the session's endpoint settings)."""
    ref = result.candidate.embedder
    embedder = resolve(ref, embedding)
    spans = result.chunk_spans
    if spans is None:
        spans = {cid: [ChunkSpan.of(c) for c in as_embedded(
                    chunks_for(documents[cid], result.candidate, store, embedder),
                    result.candidate)]
                 for cid in result.chunk_counts}
    chunks = [span for cid in sorted(spans) for span in spans[cid]]
    texts = [span.embedded_text(documents[cid].text) for cid in sorted(spans)
             for span in spans[cid]]
    vectors = embedder.embed(texts)
    return build_map(chunks, vectors, {d.doc_id: d.source_name for d in documents.values()},
                     ref)


def _spans_of(points: Sequence[MapPoint], spans: Sequence[tuple[str, int, int]]
              ) -> dict[int, int]:
    """Point index → the first (best) span (doc_id, start, end) that holds the chunk: the whole
    chunk inside it, or starting with it (a chunk cut to a token budget)."""
    ranks: dict[int, int] = {}
    for rank, (doc_id, start, end) in enumerate(spans, 1):
        for i, p in enumerate(points):
            if p.doc_id == doc_id and i not in ranks and (
                    start <= p.start and p.end <= end or p.start == start):
                ranks[i] = rank
    return ranks


def evaluation_question(chunk_map: ChunkMap, question: QuestionResult,
                        documents: Mapping[str, Document],
                        embedding: EmbeddingSettings | None = None) -> MapQuestion:
    """One evaluated question on the map: where it sits, what it retrieved (by rank), where its
    references sit, and the chunks that share text with a reference; ``documents`` by corpus
    id (a question's alternative may lie in another document than its own)."""
    places = [(documents[cid], s, e) for (s, e), cid
              in zip(question.references, question.reference_documents, strict=True)]
    texts = [question.question] + [document.text[s:e] for document, s, e in places]
    xy = chunk_map.place(texts, embedding)
    retrieved = _spans_of(chunk_map.points, [(documents[question.corpus_of(r)].doc_id, r.start,
                                              r.end) for r in question.retrieved])
    references = tuple(ReferenceMark(document.doc_id, s, e, float(x), float(y))
                       for (document, s, e), (x, y) in zip(places, xy[1:], strict=True))
    touching = frozenset(
        i for i, p in enumerate(chunk_map.points)
        if any(p.doc_id == document.doc_id and p.start < e and s < p.end
               for document, s, e in places))
    return MapQuestion(question.question, float(xy[0][0]), float(xy[0][1]), retrieved,
                       references, touching)


def chunk_set_question(chunk_map: ChunkMap, store: ChunkStore, name: str, question: str,
                       limit: int = 5, ranking: RankMode = "vector",
                       embedding: EmbeddingSettings | None = None) -> MapQuestion:
    """``question`` asked of the chunk set ``name`` (as Assemble retrieves), on its map."""
    packs = retrieve(question, limit=limit, ranking=ranking, chunk_set=name, store=store,
                     embedding=embedding)
    return retrieval_question(chunk_map, question, packs, embedding)


def retrieval_question(chunk_map: ChunkMap, question: str, packs: Sequence[Pack],
                       embedding: EmbeddingSettings | None = None) -> MapQuestion:
    """A question asked of a chunk set on its map: every chunk of pack ``n`` has rank ``n``."""
    [(x, y)] = chunk_map.place([question], embedding)
    index = {p.chunk_id: i for i, p in enumerate(chunk_map.points)}
    retrieved: dict[int, int] = {}
    for rank, pack in enumerate(packs, 1):
        for chunk_id in pack.chunk_ids:
            if chunk_id in index:
                retrieved.setdefault(index[chunk_id], rank)
    return MapQuestion(question, float(x), float(y), retrieved)

"""The chunks of a configuration, made once and shared: by the evaluation (every candidate), by
Tune (a trial that shares its chunking with an earlier one chunks nothing new) and by the map of
an evaluated result kept before results held their chunks.

A configuration is a strategy with settings, or a stored chunk set; its chunks are memoised by
document text and :meth:`Chunking.chunking_key`. :func:`as_embedded` is the one place a
configuration evaluated without contextual prefixes loses them.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Protocol

from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.embeddings.port import Embedder
from core.operations.strategies import RunOptions, chunk
from core.store import ChunkStore

_CHUNK_MEMO_SIZE = 256  # documents × configurations: a tune's trials share chunkings


class Chunking(Protocol):
    """What decides a configuration's chunks (an evaluation's candidate is one)."""

    @property
    def strategy(self) -> str: ...
    @property
    def settings(self) -> dict[str, Any]: ...
    @property
    def chunk_set(self) -> str | None: ...
    @property
    def contextual(self) -> bool: ...
    def chunking_key(self) -> str: ...


_chunk_memo: OrderedDict[tuple[str, str], list[Chunk]] = OrderedDict()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def chunks_for(document: Document, chunking: Chunking, store: ChunkStore | None = None,
               embedder: Embedder | None = None) -> list[Chunk]:
    """The chunks of ``document`` under ``chunking``, memoised by document text and key;
    ``embedder``: the configuration's, for a strategy that embeds (its key names it)."""
    memo_key = (text_hash(document.text), chunking.chunking_key())
    if memo_key in _chunk_memo:
        _chunk_memo.move_to_end(memo_key)
        return _chunk_memo[memo_key]
    if chunking.chunk_set:
        chunks = (store or ChunkStore()).get_chunks(chunking.chunk_set, doc_id=document.doc_id)
    else:
        chunks = chunk(document, chunking.strategy, chunking.settings,
                       RunOptions(embedder=embedder))
    _chunk_memo[memo_key] = chunks
    if len(_chunk_memo) > _CHUNK_MEMO_SIZE:
        _chunk_memo.popitem(last=False)
    return chunks


def chunks_memoised(document: Document, chunking: Chunking) -> bool:
    """Whether :func:`chunks_for` holds this chunking of ``document`` already."""
    return (text_hash(document.text), chunking.chunking_key()) in _chunk_memo


def as_embedded(chunks: list[Chunk], chunking: Chunking) -> list[Chunk]:
    """``chunks`` as ``chunking`` embeds them: without their LLM contextual prefixes when it is
    evaluated without (``contextual=False``)."""
    return chunks if chunking.contextual else [_without_prefix(c) for c in chunks]


def _without_prefix(chunk: Chunk) -> Chunk:
    """``chunk`` as embedded without its LLM contextual prefix."""
    if chunk.llm is None or not chunk.llm.context_prefix:
        return chunk
    return chunk.model_copy(update={"llm": chunk.llm.model_copy(update={"context_prefix": None})})

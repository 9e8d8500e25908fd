"""Chunks as Chroma records and back: one record per chunk, plus one per extra embedding view.

A chunk's record holds its exact text and its first view's vector; an extra view's record holds
the view text, the chunk's metadata plus ``view_of``/``view`` and its own vector
(:func:`core.store.views.embedding_views`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.chunking.chunk import Chunk, LLMAnnotations

VIEW_OF = "view_of"  # metadata key of an extra view record: the id of its chunk
VIEW_NUMBER = "view"  # … and its number (1, 2, …): Chroma filters match it only where it is set
LLM_KEY = "llm"  # the chunk's LLM annotations as JSON
TABLE_HEADER_KEY = "table_header"  # header lines of a table part that does not hold them
PAGES_KEY, BOXES_KEY = "pages", "boxes"  # where the chunk was read from, as JSON
FRONT_MATTER_KEY = "front_matter"  # set only on front-matter chunks (cover, contents, index…)
OLD_FRONT_MATTER_KEY = "page_role"  # the same, in sets stored before every route marked it
Metadata = dict[str, str | int | float | bool]


@dataclass(frozen=True)
class Record:
    id: str
    document: str
    metadata: Metadata
    row: int  # the row of its vector in the embedded views


def chunk_metadata(chunk: Chunk) -> Metadata:
    meta: Metadata = {
        "doc_id": chunk.doc_id,
        "start": chunk.start,
        "end": chunk.end,
        "chunk_type": chunk.chunk_type,
        "heading_path": json.dumps(chunk.heading_path, ensure_ascii=False),
        "tokens": chunk.tokens,
        "strategy": chunk.strategy,
        "config": json.dumps(chunk.config, sort_keys=True),
    }
    if chunk.llm is not None:
        meta[LLM_KEY] = chunk.llm.model_dump_json()
    if chunk.table_header is not None:
        meta[TABLE_HEADER_KEY] = chunk.table_header
    if chunk.pages:
        meta[PAGES_KEY] = json.dumps(chunk.pages)
        meta[BOXES_KEY] = json.dumps([b.model_dump() for b in chunk.boxes])
    if chunk.front_matter is not None:
        meta[FRONT_MATTER_KEY] = chunk.front_matter
    return meta


def _annotations(meta: dict[str, Any]) -> LLMAnnotations | None:
    if meta.get(LLM_KEY):
        return LLMAnnotations.model_validate_json(meta[LLM_KEY])
    return None


def chunk_from_record(chunk_id: str, text: str, meta: dict[str, Any]) -> Chunk:
    return Chunk(
        id=chunk_id,
        doc_id=meta["doc_id"],
        strategy=meta["strategy"],
        config=json.loads(meta.get("config") or "{}"),
        start=meta["start"],
        end=meta["end"],
        text=text,
        chunk_type=meta["chunk_type"],
        tokens=meta["tokens"],
        heading_path=json.loads(meta.get("heading_path") or "[]"),
        table_header=meta.get(TABLE_HEADER_KEY),
        llm=_annotations(meta),
        pages=json.loads(meta.get(PAGES_KEY) or "[]"),
        boxes=json.loads(meta.get(BOXES_KEY) or "[]"),
        front_matter=meta.get(FRONT_MATTER_KEY, meta.get(OLD_FRONT_MATTER_KEY)),
    )


def records(chunks: list[Chunk], views: list[list[str]]) -> list[Record]:
    """The records of every chunk and of every extra view, with the row of each one's vector."""
    out: list[Record] = []
    row = 0
    for chunk, chunk_views in zip(chunks, views, strict=True):
        meta = chunk_metadata(chunk)
        out.append(Record(chunk.id, chunk.text, meta, row))
        for number, view in enumerate(chunk_views[1:], 1):
            out.append(Record(f"{chunk.id}#view{number}", view,
                              {**meta, VIEW_OF: chunk.id, VIEW_NUMBER: number}, row + number))
        row += len(chunk_views)
    return out


def with_extra_views(chunks: list[Chunk], views: list[list[str]]) -> list[str]:
    """Ids of the chunks whose old extra views a write deletes first: a table, or a chunk whose
    windows a new context prefix changes, may have fewer views now."""
    return [chunk.id for chunk, texts in zip(chunks, views, strict=True)
            if chunk.chunk_type == "table" or chunk.context_prefix or len(texts) > 1]

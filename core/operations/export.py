"""Chunks in the shapes other tools read, and a configuration as Python that reproduces it.

- ``jsonl``: one object per chunk: text, offsets, type, heading path, tokens, pages and line
  boxes (paginated originals), metadata;
- ``langchain``: a JSON list of LangChain ``Document``-shaped objects (``page_content``,
  ``metadata`` with ``start_index``, and ``page`` 0-based as LangChain's PDF loaders give it);
- ``llamaindex``: a JSON list of LlamaIndex ``TextNode``-shaped objects (``id_``, ``text``,
  ``start_char_idx``, ``end_char_idx``, ``metadata``, previous/next/source relationships).
"""

from __future__ import annotations

import json
import pprint
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.chunking.chunk import Chunk
from core.documents.model import Document

ExportFormat = Literal["jsonl", "langchain", "llamaindex"]


@dataclass(frozen=True)
class ExportShape:
    label: str
    extension: str
    mime: str


SHAPES: dict[ExportFormat, ExportShape] = {
    "jsonl": ExportShape("JSONL", "jsonl", "application/jsonl"),
    "langchain": ExportShape("LangChain Documents", "langchain.json", "application/json"),
    "llamaindex": ExportShape("LlamaIndex TextNodes", "llamaindex.json", "application/json"),
}


def chunk_metadata(document: Document, chunk: Chunk) -> dict[str, Any]:
    """What a chunk carries besides its text, flat enough for any vector store."""
    meta: dict[str, Any] = {
        "source": document.source_name, "doc_id": chunk.doc_id, "chunk_id": chunk.id,
        "strategy": chunk.strategy, "chunk_type": chunk.chunk_type,
        "heading_path": list(chunk.heading_path), "tokens": chunk.tokens,
        "start": chunk.start, "end": chunk.end,
    }
    if chunk.pages:  # the page label readers cite: the first page, 1-based, as text
        meta.update(pages=list(chunk.pages), page_label=str(chunk.pages[0]))
    if chunk.llm:
        meta.update({k: v for k, v in chunk.llm.model_dump().items() if v is not None})
    return meta


def _jsonl(document: Document, chunks: Sequence[Chunk]) -> str:
    rows = [{"text": c.text, "start": c.start, "end": c.end, "chunk_type": c.chunk_type,
             "heading_path": list(c.heading_path), "tokens": c.tokens,
             **({"pages": c.pages, "boxes": [b.model_dump() for b in c.boxes]} if c.pages
                else {}),
             "metadata": chunk_metadata(document, c)} for c in chunks]
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _langchain(document: Document, chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    return [{"id": c.id, "page_content": c.text, "type": "Document",
             "metadata": {**chunk_metadata(document, c), "start_index": c.start,
                          **({"page": c.pages[0] - 1} if c.pages else {})}}
            for c in chunks]


def _related(node_id: str, node_type: str) -> dict[str, Any]:
    return {"node_id": node_id, "node_type": node_type, "metadata": {}, "hash": None,
            "class_name": "RelatedNodeInfo"}


def _llamaindex(document: Document, chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    nodes = []
    for k, c in enumerate(chunks):
        relationships = {"1": _related(c.doc_id, "4")}  # SOURCE: the document
        if k:
            relationships["2"] = _related(chunks[k - 1].id, "1")  # PREVIOUS
        if k + 1 < len(chunks):
            relationships["3"] = _related(chunks[k + 1].id, "1")  # NEXT
        nodes.append({
            "id_": c.id, "text": c.text, "start_char_idx": c.start, "end_char_idx": c.end,
            "metadata": chunk_metadata(document, c), "relationships": relationships,
            "excluded_embed_metadata_keys": [], "excluded_llm_metadata_keys": [],
            "metadata_template": "{key}: {value}",
            "metadata_seperator": "\n",  # LlamaIndex's own spelling of the field
            "text_template": "{metadata_str}\n\n{content}", "mimetype": "text/plain",
            "class_name": "TextNode",
        })
    return nodes


def export_chunks(document: Document, chunks: Sequence[Chunk], shape: ExportFormat) -> str:
    """``chunks`` of ``document`` as text in ``shape``."""
    if shape == "jsonl":
        return _jsonl(document, chunks)
    made = _langchain(document, chunks) if shape == "langchain" else _llamaindex(document, chunks)
    return json.dumps(made, ensure_ascii=False, indent=1) + "\n"


def python_snippet(path: str, strategy: str, settings: Mapping[str, Any]) -> str:
    """Python that chunks the file at ``path`` with this configuration using ``core``."""
    literal = pprint.pformat(dict(settings), width=88, sort_dicts=True)
    return (
        "from pathlib import Path\n\n"
        "from core.documents import convert\n"
        "from core.operations.strategies import chunk\n\n"
        f"path = Path({path!r})\n"
        "document = convert(path.read_bytes(), path.name)\n"
        f"settings = {literal}\n"
        f"chunks = chunk(document, {strategy!r}, settings)\n"
        "for c in chunks:\n"
        "    print(c.start, c.end, c.chunk_type, c.tokens)\n"
    )

"""The Pack: one retrieved passage (a hit and the neighbours sent with it) as exact spans of its
document, with its score and place in the result. :mod:`core.retrieval.packs` builds them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Pack(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str  # id of the best hit in the pack
    score: float
    order: int  # place in the retrieval result, 0 = best
    doc_id: str
    heading_path: list[str] = []
    spans: list[tuple[int, int]]  # (start, end) offsets into the document text, ascending
    text: str
    chunk_ids: list[str]  # every chunk in the pack, in document order
    hit_ids: list[str]  # the retrieved chunks among them, best first
    pages: list[int] = []  # pages of the original its chunks were read from (1-based)

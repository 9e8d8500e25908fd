"""Packs: a retrieval hit plus its neighbours in the same document, as merged character spans.

Neighbours are the chunks next to the hit in document order (by ``start``). Hits whose windows
share a chunk become one pack (the better hit's score and id), so no text is sent twice.
Within a pack, chunks that touch or overlap merge into one span; the text of a span is cut from
its chunks (``chunk.text == document.text[start:end]``, so overlaps are not repeated), and the
texts of separate spans are joined by a blank line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from core.chunking.chunk import Chunk


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


def merge_spans(chunks: Sequence[Chunk]) -> list[tuple[tuple[int, int], str]]:
    """Touching or overlapping chunks → ``((start, end), text)`` per contiguous run."""
    runs: list[tuple[tuple[int, int], str]] = []
    for chunk in sorted(chunks, key=lambda c: (c.start, c.end)):
        if runs and chunk.start <= runs[-1][0][1]:
            (start, end), text = runs[-1]
            if chunk.end > end:
                text += chunk.text[end - chunk.start :]
                end = chunk.end
            runs[-1] = ((start, end), text)
        else:
            runs.append(((chunk.start, chunk.end), chunk.text))
    return runs


@dataclass
class _Group:
    hit: Chunk
    score: float
    chunks: Sequence[Chunk]  # the document's chunks in order, or just the hit
    lo: int
    hi: int
    hits: list[str]

    def overlaps(self, other: _Group) -> bool:
        return (len(self.chunks) > 1 and self.chunks is other.chunks
                and self.lo <= other.hi and other.lo <= self.hi)


def _group(hit: Chunk, score: float, ordered: Sequence[Chunk], neighbors: int) -> _Group:
    for i, chunk in enumerate(ordered if neighbors > 0 else ()):
        if chunk.id == hit.id:
            lo, hi = max(0, i - neighbors), min(len(ordered) - 1, i + neighbors)
            return _Group(hit, score, ordered, lo, hi, [hit.id])
    return _Group(hit, score, [hit], 0, 0, [hit.id])


def build_packs(
    hits: Sequence[tuple[Chunk, float]],
    neighbors: int = 0,
    doc_chunks: Mapping[str, Sequence[Chunk]] | None = None,
) -> list[Pack]:
    """Packs for ``hits`` (best first). ``doc_chunks[doc_id]`` lists a document's chunks in
    document order; without it (or for a hit not in it) a pack is the hit alone."""
    doc_chunks = doc_chunks or {}
    groups: list[_Group] = []
    for hit, score in hits:
        group = _group(hit, score, doc_chunks.get(hit.doc_id, ()), neighbors)
        joined = [g for g in groups if g.overlaps(group)]
        if not joined:
            groups.append(group)
            continue
        first = joined[0]  # the best of them: groups are kept best first
        for other in [*joined[1:], group]:
            first.lo, first.hi = min(first.lo, other.lo), max(first.hi, other.hi)
            first.hits.extend(other.hits)
            if other is not group:
                groups.remove(other)
    packs = []
    for order, group in enumerate(groups):
        members = group.chunks[group.lo : group.hi + 1]
        runs = merge_spans(members)
        packs.append(Pack(
            id=group.hit.id, score=group.score, order=order, doc_id=group.hit.doc_id,
            heading_path=group.hit.heading_path, spans=[span for span, _ in runs],
            text="\n\n".join(text for _, text in runs),
            chunk_ids=[c.id for c in members], hit_ids=group.hits,
        ))
    return packs

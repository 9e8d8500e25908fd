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

from core.chunking.chunk import Chunk
from core.retrieval.pack import Pack

# With merging, hits walked per run asked for: deep enough that a passage's second and third
# small chunks are reached, shallow enough that weak hits do not swell the runs.
MERGE_DEPTH_FACTOR = 2.0


def merge_depth(limit: int) -> int:
    """Hits walked to fill ``limit`` merged runs."""
    return max(limit, round(MERGE_DEPTH_FACTOR * limit))


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
    return [_pack(order, group.hit, group.score, group.chunks[group.lo : group.hi + 1],
                  group.hits) for order, group in enumerate(groups)]


def _pack(order: int, hit: Chunk, score: float, members: Sequence[Chunk],
          hit_ids: list[str]) -> Pack:
    runs = merge_spans(members)
    return Pack(
        id=hit.id, score=score, order=order, doc_id=hit.doc_id, heading_path=hit.heading_path,
        spans=[span for span, _ in runs], text="\n\n".join(text for _, text in runs),
        chunk_ids=[c.id for c in members], hit_ids=hit_ids,
        pages=sorted({page for c in members for page in c.pages}),
    )


def merged_packs(
    hits: Sequence[tuple[Chunk, float]], limit: int, doc_chunks: Mapping[str, Sequence[Chunk]]
) -> list[Pack]:
    """Up to ``limit`` packs from ``hits`` (best first, :func:`merge_depth` of them),
    neighbouring hits merged (:func:`merge_adjacent`); ``doc_chunks[doc_id]`` lists a
    document's chunks in document order."""
    position = {c.id: n for chunks in doc_chunks.values() for n, c in enumerate(chunks)}
    runs = merge_adjacent([(c.doc_id, position[c.id]) for c, _ in hits], limit)
    packs = []
    for order, run in enumerate(runs):
        best, score = hits[run[0]]
        members = sorted((hits[n][0] for n in run), key=lambda c: position[c.id])
        packs.append(_pack(order, best, score, members, [hits[n][0].id for n in run]))
    return packs


def merge_adjacent(ranked: Sequence[tuple[str, int]], limit: int) -> list[list[int]]:
    """Small-to-big grouping of a ranking of small chunks into at most ``limit`` runs.

    ``ranked`` lists hits best first as ``(doc_id, position of the chunk in its document's
    chunk order)``. Walking down the ranking, a hit next to (or inside) a run of the same
    document extends that run, and runs that come to touch become one; any other hit opens a
    new run while fewer than ``limit`` are open, and is skipped after. So a passage told across
    two or three small chunks comes back as one piece, without paying for isolated neighbours.
    Returns the runs best first, each as the indices into ``ranked`` of its hits (best first).
    """
    runs: list[tuple[str, int, int, list[int]]] = []  # (doc_id, first, last, hit indices)
    for n, (doc_id, position) in enumerate(ranked):
        near = [i for i, (d, lo, hi, _) in enumerate(runs)
                if d == doc_id and lo - 1 <= position <= hi + 1]
        if not near:
            if len(runs) < limit:
                runs.append((doc_id, position, position, [n]))
            continue
        keep = near[0]
        _, lo, hi, hits = runs[keep]
        for other in near[1:]:
            lo, hi = min(lo, runs[other][1]), max(hi, runs[other][2])
            hits = hits + runs[other][3]
        runs[keep] = (doc_id, min(lo, position), max(hi, position), [*hits, n])
        for other in reversed(near[1:]):
            del runs[other]
    return [sorted(hits) for *_, hits in runs]

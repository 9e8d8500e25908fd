"""Semantic chunking's floor: no chunk of a few words cut out of a paragraph."""

from __future__ import annotations

import random
import statistics
import textwrap

import pytest

from core.chunking import semantic
from core.chunking.boundaries import strip_span
from core.chunking.chunk import Chunk
from core.documents import convert
from core.documents.model import Document
from tests.docfactory import chunk_document
from tests.fakes import fake_embed

TOPICS = {
    "Brokers": "broker partition replica leader follower disk segment write acknowledge quorum",
    "Consumers": "consumer group offset lag commit poll rebalance partition assignment fetch",
    "Security": "certificate token role permission audit encryption rotate secret access policy",
    "Backups": "snapshot restore retention archive bucket schedule verify copy recovery point",
}
FILLER = "the a of to and in for on with when each every after before is are be".split()


@pytest.fixture(autouse=True)
def _offline_embedder(monkeypatch):
    monkeypatch.setattr(semantic, "embed", fake_embed)


def handbook(seed: int = 3) -> Document:
    """A handbook as printed: sections of paragraphs hard-wrapped at 90 characters, so every
    line break inside a paragraph ends a sentence unit mid-sentence."""
    rng = random.Random(seed)
    parts = ["# Operations Handbook\n"]
    for title, topic in TOPICS.items():
        words = topic.split()
        parts.append(f"## {title}\n")
        for _ in range(3):
            sentences = [" ".join(rng.choice(words if rng.random() < 0.5 else FILLER)
                                  for _ in range(rng.randint(8, 20))).capitalize() + "."
                         for _ in range(rng.randint(5, 9))]
            parts.append(textwrap.fill(" ".join(sentences), 90) + "\n")
    return convert("\n".join(parts).encode(), "handbook.md")


def whole_section(document: Document, chunk: Chunk) -> bool:
    return any(strip_span(document.text, s.start, s.end) == (chunk.start, chunk.end)
               for s in document.sections)


@pytest.mark.parametrize("seed", range(4))
def test_semantic_chunks_are_never_fragments(seed: int) -> None:
    document = handbook(seed)
    chunks = chunk_document(document, "semantic")  # size 400: none under 100 tokens
    small = [c.text for c in chunks if c.tokens < 100 and not whole_section(document, c)]
    assert small == []
    recursive = chunk_document(document, "recursive")
    assert (statistics.median(c.tokens for c in chunks) * 2
            >= statistics.median(c.tokens for c in recursive))

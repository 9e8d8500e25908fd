"""Chunking by meaning: semantic chunking's floor (no chunk of a few words cut out of a
paragraph), and cluster chunking's pieces, grouped by the chunk set's own embedder and cached
so that a re-chunk at another size embeds nothing new."""

from __future__ import annotations

import pickle
import random
import statistics
import textwrap

import pytest

from core.chunking import semantic
from core.chunking.chunk import Chunk
from core.documents import convert
from core.documents.model import Document
from core.embeddings import BUILTIN, resolve
from core.embeddings.cache import embedded_texts
from core.embeddings.port import MiniLM
from core.operations.evaluation import Candidate
from core.operations.ingest.run import Source, ingest
from core.operations.strategies import RunOptions, chunk
from core.store import ChunkStore
from core.text.spans import strip_span
from tests.docfactory import chunk_document
from tests.fakeembed import FakeEmbed
from tests.fakeembed import fake_embed as fake_server  # noqa: F401  (a fixture)
from tests.fakes import FakeEmbedder, fake_embed

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


def test_cluster_groups_pieces_by_topic() -> None:
    cats = " ".join(["Cats purr and cats nap in the sun all day long."] * 4)
    cars = " ".join(["Cars honk and cars race down the busy road at night."] * 4)
    document = convert(f"{cats} {cars} {cats}".encode(), "t.txt")
    embedder = FakeEmbedder()
    chunks = chunk_document(document, "cluster", embedder, size=120, piece_size=30)
    assert [c.text for c in chunks] == [cats, cars, cats]
    # the pieces went to the embedder given: runs of whole sentences up to the piece size
    assert len(embedder.texts) > len(chunks)
    assert all(p.endswith(".") and len(p.split()) <= 30 for p in embedder.texts)


@pytest.mark.parametrize("seed", range(3))
def test_a_cluster_heading_stays_with_its_text(seed: int) -> None:
    document = handbook(seed)
    embedder = FakeEmbedder()
    chunks = chunk_document(document, "cluster", embedder, size=150, piece_size=30)
    assert all(piece.strip("# \n") for piece in embedder.texts)  # no piece of marks alone
    for title in TOPICS:
        [holder] = [c for c in chunks if f"## {title}" in c.text]
        assert holder.text.split(f"## {title}\n\n")[1]  # its text follows it
    assert not any(c.text.endswith(title) for c in chunks for title in TOPICS)


def test_a_re_chunk_at_another_size_embeds_nothing_new() -> None:
    document = handbook(5)
    before = embedded_texts()
    first = chunk(document, "cluster", {"size": 200}, RunOptions(embedder=MiniLM()))
    assert embedded_texts() > before
    embedded = embedded_texts()
    for size in (100, 300, 400):
        again = chunk(document, "cluster", {"size": size}, RunOptions(embedder=MiniLM()))
        assert again != first and max(c.tokens for c in again) <= size
    assert embedded_texts() == embedded


def test_the_embedder_is_part_of_a_cluster_chunking_only() -> None:
    fake = FakeEmbedder.ref
    for name, embeds in (("cluster", True), ("recursive", False), ("semantic", False)):
        minilm, own = (Candidate("c", name, {"size": 200}, embedder=ref) for ref in (BUILTIN,
                                                                                    fake))
        assert (minilm.chunking_key() != own.chunking_key()) is embeds


def test_a_cluster_set_is_chunked_by_its_own_endpoint(tmp_path, monkeypatch,
                                                     fake_server: FakeEmbed) -> None:  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    embedder = resolve(fake_server.settings().ref(), fake_server.settings())
    again = pickle.loads(pickle.dumps(embedder))  # a chunk task carries it to a Ray worker
    assert again.ref == embedder.ref and again.settings == embedder.settings
    document = handbook(1)
    before = embedded_texts()
    store = ChunkStore()
    ingest([Source.from_document(document)], "clustered", "cluster", {"size": 150},
           store=store, embedder=embedder)
    chunks = store.get_chunks("clustered")
    pieces = set(fake_server.texts()) - {c.display_text for c in chunks}
    assert len(pieces) > len(chunks)  # the pieces went to the endpoint, not to MiniLM
    assert embedded_texts() - before == len(fake_server.texts())
    assert all(c.strategy == "cluster" and c.tokens <= 150 for c in chunks)

"""Invariants of every strategy on random documents with random tables and sections."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.chunking import semantic
from core.chunking.registry import build_chunker
from core.documents.model import Document, Table
from core.tokens import count_tokens
from tests.docfactory import documents
from tests.fakes import FakeEmbedder, fake_embed

CONFIGS = st.one_of(
    st.builds(lambda s, o, u, t, r: ("recursive", dict(size=s, overlap=min(o, s - 1), unit=u,
                                                       tables=t, respect_sections=r)),
              st.integers(1, 60), st.integers(0, 20), st.sampled_from(["tokens", "chars"]),
              st.booleans(), st.booleans()),
    st.builds(lambda s, o, u, t: ("fixed", dict(size=s, overlap=min(o, s - 1), unit=u, tables=t)),
              st.integers(1, 60), st.integers(0, 20), st.sampled_from(["tokens", "chars"]),
              st.booleans()),
    st.builds(lambda s, t: ("semantic", dict(size=s, tables=t)),
              st.integers(1, 60), st.booleans()),
    st.builds(lambda s, p, u, t, r, m: ("cluster", dict(size=s, piece_size=min(p, s), unit=u,
                                                        tables=t, respect_sections=r,
                                                        min_share=m)),
              st.integers(1, 60), st.integers(1, 20), st.sampled_from(["tokens", "chars"]),
              st.booleans(), st.booleans(), st.sampled_from([0.0, 0.25, 1.0])),
)


@pytest.fixture(autouse=True)
def _offline_embedder(monkeypatch):
    monkeypatch.setattr(semantic, "embed", fake_embed)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents(), CONFIGS)
def test_invariants(doc: Document, config) -> None:
    strategy, options = config
    chunks = build_chunker(strategy, FakeEmbedder(), **options).chunk(doc)
    text = doc.text
    covered = [False] * len(text)
    for c in chunks:
        assert c.text == text[c.start:c.end] and c.end > c.start
        assert c.tokens == count_tokens(c.text)
        for i in range(c.start, c.end):
            covered[i] = True
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)
    assert all(covered[i] or ch.isspace() for i, ch in enumerate(text))
    table_chunks = [c for c in chunks if c.chunk_type == "table"]
    text_chunks = [c for c in chunks if c.chunk_type == "text"]
    for c in text_chunks:
        assert (c.tokens if options.get("unit", "tokens") == "tokens" else len(c.text)) \
            <= options["size"] or len(c.text) == 1
    if not options["tables"]:
        assert not table_chunks
        return
    for t in doc.tables:
        if text[t.start:t.end].strip():
            holders = [c for c in table_chunks if c.start <= t.start + _lead(text, t) and
                       t.end - _trail(text, t) <= c.end]
            assert len(holders) == 1
        for c in text_chunks:
            assert c.end <= t.start or c.start >= t.end
    if options.get("respect_sections"):
        for s in doc.sections:
            for c in text_chunks:
                assert not (c.start < s.start < c.end)


def _lead(text: str, t: Table) -> int:
    body = text[t.start:t.end]
    return len(body) - len(body.lstrip())


def _trail(text: str, t: Table) -> int:
    body = text[t.start:t.end]
    return len(body) - len(body.rstrip())

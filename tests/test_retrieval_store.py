"""retrieve() and assemble_prompt() against a real embedded Chroma chunk set of a sample."""

from __future__ import annotations

import pytest

from core.assembly.prompt import assemble_prompt
from core.retrieval.retrieve import retrieve
from core.store import ChunkStore
from tests.retrieval_helpers import handbook_set

QUESTION = "How many coordinator failures does a cluster with five coordinators tolerate?"
ANSWER = "a cluster with five tolerates two"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return ChunkStore(tmp_path_factory.mktemp("chroma"))


@pytest.fixture(scope="module")
def document(store):
    return handbook_set(store, "handbook")


@pytest.mark.parametrize("mode", ["vector", "bm25", "hybrid"])
def test_the_answer_is_in_the_top_pack(store, document, mode):
    packs = retrieve(QUESTION, limit=3, ranking=mode, chunk_set="handbook", store=store)
    assert ANSWER in packs[0].text
    for pack in packs:
        assert pack.doc_id == document.doc_id
        assert pack.text == "\n\n".join(document.text[s:e] for s, e in pack.spans)


def test_neighbours_extend_the_pack_in_document_order(store, document):
    (alone,) = retrieve(QUESTION, limit=1, ranking="bm25", chunk_set="handbook", store=store)
    (wide,) = retrieve(QUESTION, limit=1, per_hit_neighbors=1, ranking="bm25",
                       chunk_set="handbook", store=store)
    assert len(wide.chunk_ids) == 3 and alone.id == wide.id
    assert wide.spans[0][0] < alone.spans[0][0] and wide.spans[-1][1] > alone.spans[-1][1]
    assert ANSWER in wide.text
    chunks = {c.id: c for c in store.get_chunks("handbook")}
    starts = [chunks[i].start for i in wide.chunk_ids]
    assert starts == sorted(starts)


def test_table_filter_returns_only_tables(store, document):
    for mode in ("vector", "bm25"):
        packs = retrieve("alert thresholds", limit=3, ranking=mode, chunk_set="handbook",
                         filters={"chunk_type": "table"}, store=store)
        tables = {c.id for c in store.get_chunks("handbook") if c.chunk_type == "table"}
        assert packs and {p.id for p in packs} <= tables


def test_assembled_prompt_cites_the_retrieved_text(store, document):
    packs = retrieve(QUESTION, limit=4, ranking="hybrid", chunk_set="handbook", store=store)
    result = assemble_prompt(QUESTION, packs, headroom_tokens=100, context_tokens=4096)
    assert result.citations and result.citations[0].marker == "[¹]"
    assert ANSWER in result.prompt.user
    assert f"Doc: {document.doc_id}" in result.prompt.user
    assert "Path: Tidewater Operations Handbook > 1. Architecture Overview" in result.prompt.user

"""ChunkStore against the embedded store and a real Chroma server (`chroma run`), same tests."""

from __future__ import annotations

import pytest

from core.chunking.base import Chunker, ChunkerConfig, ChunkFactory
from core.chunking.chunk import Chunk, LLMAnnotations
from core.documents.model import Document, Section, Table
from core.embeddings import MAX_WORD_PIECES, MODEL_ID, embed
from core.errors import StoreError
from core.retrieval.ranking import vector_scores
from core.store import ChunkSetInfo, ChunkStore
from core.store.views import embedding_text, embedding_views
from tests.chroma_server import free_port, start_chroma, stop
from tests.retrieval_helpers import annotated

TABLE = ("Table 2: Deductibles\n| Cover | Deductible |\n|---|---|\n| Fire | 500 EUR |\n"
         "| Flood | 1,000 EUR |")
POLICY = (
    "Coverage\n\nThe insurer pays for water damage caused by a burst pipe in the dwelling.\n\n"
    f"{TABLE}\n\n"
    "Exclusions\n\nDamage caused by war, riots or nuclear radiation is never covered.\n\n"
    "Claims\n\nReport every theft to the police within two days and send us the report."
)
HANDBOOK = (
    "Pumps\n\nBleed the hydraulic pump before the first start and check the oil level weekly.\n\n"
    "Valves\n\nReplace the inlet valve gasket when the pressure drops below three bar."
)


def _document(doc_id: str, text: str, tables: bool = False) -> Document:
    """Single-word paragraphs are level-1 headings; each section runs to the next one."""
    starts = [text.index(f"{p}\n\n") for p in text.split("\n\n") if " " not in p and "\n" not in p]
    sections = [
        Section(start=a, end=b, title=text[a:text.index("\n", a)], level=1, heading_start=a,
                heading_end=text.index("\n", a))
        for a, b in zip(starts, [*starts[1:], len(text)], strict=True)
    ]
    table = []
    if tables:
        start = text.index(TABLE) + TABLE.index("|")
        end = text.index(TABLE) + len(TABLE)
        table = [Table(start=start, end=end, markdown=text[start:end], rows=[["Cover", "Fire"]],
                       caption="Table 2: Deductibles")]
    return Document(doc_id=doc_id, source_name=f"{doc_id}.md", format="md", route="markdown",
                    text=text, sections=sections, tables=table)


class ParagraphChunker(Chunker):
    """One chunk per paragraph (the table paragraph is a table chunk with a summary)."""

    strategy = "paragraphs"

    def chunk(self, document: Document) -> list[Chunk]:
        out, start = [], 0
        factory = self.factory(document)
        summary = LLMAnnotations(
            boundary_type="SECTION_BREAK", justification="a table",
            summary="Deductible amounts per cover: fire 500 euro, flood 1000 euro.")
        for paragraph in document.text.split("\n\n"):
            at = document.text.index(paragraph, start)
            start = at + len(paragraph)
            if paragraph.startswith("Table"):
                out.append(factory.make(at, start, chunk_type="table", llm=summary))
            elif len(paragraph.split()) > 1:
                out.append(factory.make(at, start))
        return out


POLICY_DOC = _document("policy0000000001", POLICY, tables=True)
HANDBOOK_DOC = _document("handbook00000001", HANDBOOK)
CHUNKER = ParagraphChunker(ChunkerConfig())
POLICY_CHUNKS = CHUNKER.chunk(POLICY_DOC)
HANDBOOK_CHUNKS = CHUNKER.chunk(HANDBOOK_DOC)


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    process, port = start_chroma(tmp_path_factory.mktemp("chroma-server"))
    yield port
    stop(process)


@pytest.fixture(params=["embedded", "http"])
def store(request, tmp_path, monkeypatch) -> ChunkStore:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    if request.param == "http":
        port = request.getfixturevalue("chroma_server")
        monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
        monkeypatch.setenv("CHROMA_PORT", str(port))
    else:
        monkeypatch.delenv("CHROMA_HOST", raising=False)
    chunk_store = ChunkStore()
    yield chunk_store
    for info in chunk_store.list_sets():  # the server outlives the test
        chunk_store.delete_set(info.name)


def _filled(store: ChunkStore, name: str = "recursive 500/50") -> ChunkStore:
    store.create_set(ChunkSetInfo(name=name, strategy="paragraphs", settings={"size": 500},
                                  prompt_versions={"table_summary": "abc123"},
                                  description="paragraph chunks"))
    store.add_chunks(name, POLICY_CHUNKS + HANDBOOK_CHUNKS)
    return store


def test_a_set_keeps_its_description_and_counts(store):
    _filled(store)
    (info,) = store.list_sets()
    assert info.name == "recursive 500/50"
    assert (info.strategy, info.settings, info.prompt_versions) == (
        "paragraphs", {"size": 500}, {"table_summary": "abc123"})
    assert info.embedder == MODEL_ID
    assert info.description == "paragraph chunks"
    assert (info.docs, info.chunks) == (2, len(POLICY_CHUNKS) + len(HANDBOOK_CHUNKS))
    assert set(info.doc_ids) == {POLICY_DOC.doc_id, HANDBOOK_DOC.doc_id}
    assert info.over_limit == 0 and 0 < info.max_word_pieces <= MAX_WORD_PIECES
    # Every text is read whole; the table is embedded by its summary, not by its cells.
    summarised = sum(len(c.text) for c in POLICY_CHUNKS + HANDBOOK_CHUNKS if c.summary)
    assert summarised and info.read_chars == info.chars - summarised


def test_chunks_come_back_whole_and_in_document_order(store):
    _filled(store)
    assert store.get_chunks("recursive 500/50", doc_id=POLICY_DOC.doc_id) == POLICY_CHUNKS
    everything = store.get_chunks("recursive 500/50")
    assert sorted(everything, key=lambda c: c.id) == sorted(
        POLICY_CHUNKS + HANDBOOK_CHUNKS, key=lambda c: c.id)
    for chunk in everything:
        source = POLICY_DOC if chunk.doc_id == POLICY_DOC.doc_id else HANDBOOK_DOC
        assert chunk.text == source.text[chunk.start:chunk.end]
    table = next(c for c in everything if c.chunk_type == "table")
    assert table.text == TABLE and table.summary.startswith("Deductible amounts")
    assert table.heading_path == ["Coverage"]


def test_query_ranks_by_meaning_with_higher_scores_first(store):
    _filled(store)
    hits = store.query("recursive 500/50", "what if a pipe bursts and water leaks", 3)
    assert len(hits) == 3
    assert "burst pipe" in hits[0][0].text
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True) and 0 < scores[0] <= 1.0
    assert store.query("recursive 500/50", "anything", 100)[-1][1] <= scores[-1]
    assert len(store.query("recursive 500/50", "anything", 100)) == 6


def test_chunk_type_and_doc_id_filters(store):
    _filled(store)
    tables = store.query("recursive 500/50", "hydraulic pump oil", 5, where={"chunk_type": "table"})
    assert [c.chunk_type for c, _ in tables] == ["table"]
    handbook = store.query("recursive 500/50", "water damage", 5,
                           where={"doc_id": HANDBOOK_DOC.doc_id})
    assert {c.doc_id for c, _ in handbook} == {HANDBOOK_DOC.doc_id}
    both = store.query("recursive 500/50", "water", 10, where={"$and": [
        {"chunk_type": "text"}, {"doc_id": {"$in": [POLICY_DOC.doc_id]}}]})
    assert len(both) == 3 and all(c.chunk_type == "text" for c, _ in both)


def test_a_table_is_embedded_by_its_summary_and_stored_raw(store):
    _filled(store)
    (top, _), *_ = store.query("recursive 500/50", "how much is the deductible for fire", 1)
    assert top.chunk_type == "table" and top.text == TABLE


def test_what_is_embedded():
    table = next(c for c in POLICY_CHUNKS if c.chunk_type == "table")
    assert embedding_text(table) == table.summary
    bare = table.model_copy(update={"llm": None})
    assert embedding_text(bare) == (
        "Coverage\nTable 2: Deductibles\nColumns: Cover; Deductible\nRows: Fire; Flood"
    )
    text = annotated(POLICY_CHUNKS[0], context_prefix="From the policy's cover.")
    assert embedding_text(text) == f"From the policy's cover.\n\n{POLICY_CHUNKS[0].text}"


def test_context_prefix_changes_the_vector_not_the_stored_text(store):
    store.create_set(ChunkSetInfo(name="with prefix", strategy="llm"))
    prefixed = [annotated(c, context_prefix="Section about hydraulic pump oil.")
                for c in POLICY_CHUNKS if c.chunk_type == "text"]
    store.add_chunks("with prefix", prefixed)
    (top, _), = store.query("with prefix", "hydraulic pump oil", 1)
    assert top.context_prefix == "Section about hydraulic pump oil."
    assert top.text == POLICY_DOC.text[top.start:top.end]


def test_sets_coexist_cutover_and_rollback(store):
    _filled(store, "fixed 1000 chars")
    assert store.active_set() is None
    store.activate("fixed 1000 chars")
    _filled(store, "recursive 500/50")
    store.add_chunks("recursive 500/50", [POLICY_CHUNKS[0].model_copy(update={"id": "extra"})])
    assert store.active_set() == "fixed 1000 chars"  # re-processing leaves the flag alone
    store.activate("recursive 500/50")  # cutover
    assert (store.active_set(), store.previous_set()) == ("recursive 500/50", "fixed 1000 chars")
    assert store.rollback() == "fixed 1000 chars"
    assert (store.active_set(), store.previous_set()) == ("fixed 1000 chars", "recursive 500/50")
    assert len(store.get_chunks("fixed 1000 chars")) == 6  # both sets intact
    assert len(store.get_chunks("recursive 500/50")) == 7
    assert ChunkStore().active_set() == "fixed 1000 chars"  # the flag persists


def test_adding_again_replaces_and_remove_document(store):
    _filled(store)
    info = store.add_chunks("recursive 500/50", POLICY_CHUNKS)
    assert info.chunks == 6 and info.docs == 2
    store.remove_document("recursive 500/50", POLICY_DOC.doc_id)
    info = store.info("recursive 500/50")
    assert (info.docs, info.chunks, info.doc_ids) == (1, 2, [HANDBOOK_DOC.doc_id])


def test_views_of_a_long_table_find_it_but_never_come_back_as_chunks(store):
    rows = [f"| Household item group {n} | {n * 100} USD |" for n in range(1, 80)]
    rows[70] = "| Hot air balloons and paragliders | 750 USD |"
    text = "Limits\n\nTable 3: Special limits\n| Item | Limit |\n|---|---|\n" + "\n".join(rows)
    document = _document("limits0000000001", text)
    table = ChunkFactory(document, "paragraphs", ChunkerConfig()).make(
        text.index("Table"), len(text), chunk_type="table")
    extra = len(embedding_views(table)) - 1
    assert extra > 2
    store.create_set(ChunkSetInfo(name="views", strategy="paragraphs"))
    info = store.add_chunks("views", [table, *HANDBOOK_CHUNKS])
    assert info.chunks == 1 + len(HANDBOOK_CHUNKS)
    assert store.get_chunks("views") == sorted([*HANDBOOK_CHUNKS, table],
                                               key=lambda c: (c.doc_id, c.start))
    question = "What is the limit for hot air balloons and paragliders?"
    (top, score), *rest = store.query("views", question, 10)
    assert top == table and top.text == text[table.start:]
    question_vector, digest = embed([question, embedding_text(table)])
    assert score > vector_scores(question_vector, digest[None])[0] + 0.1  # a row's view won
    assert [c.id for c, _ in rest] == [c.id for c, _ in store.query("views", question, 10)[1:]]
    assert sorted(c.id for c, _ in rest) == sorted(c.id for c in HANDBOOK_CHUNKS)  # no twice
    tables = store.query("views", "hydraulic pump", 5, where={"chunk_type": "table"})
    assert [c for c, _ in tables] == [table]
    records = store._collection("views")
    assert store.add_chunks("views", [table]).chunks == 1 + len(HANDBOOK_CHUNKS)
    assert records.count() == 1 + extra + len(HANDBOOK_CHUNKS)  # views replaced, not doubled
    store.remove_document("views", table.doc_id)
    assert store.info("views").chunks == len(HANDBOOK_CHUNKS) == records.count()


def test_long_chunks_are_read_whole_in_windows(store):
    store.create_set(ChunkSetInfo(name="long", strategy="fixed"))
    long = POLICY_CHUNKS[0].model_copy(update={"id": "long", "text": "coverage " * 400})
    info = store.add_chunks("long", [long, HANDBOOK_CHUNKS[0]])
    assert info.max_word_pieces <= MAX_WORD_PIECES < 400  # each window fits
    assert (info.over_limit, info.windowed) == (0, 1)
    assert info.chars == len(long.text) + len(HANDBOOK_CHUNKS[0].text) == info.read_chars
    records = store._collection("long")
    assert records.count() == 2 + 1  # the long chunk's second window is an extra view
    assert store.get_chunks("long") == sorted([long, HANDBOOK_CHUNKS[0]],
                                              key=lambda c: (c.doc_id, c.start))
    assert store.add_chunks("long", [long]).chunks == 2
    assert records.count() == 3  # its windows replaced, not doubled


def test_delete_set_and_clear_errors(store):
    _filled(store)
    store.activate("recursive 500/50")
    with pytest.raises(StoreError, match="already exists"):
        store.create_set(ChunkSetInfo(name="recursive 500/50", strategy="fixed"))
    with pytest.raises(StoreError, match="name of 1 to 80"):
        store.create_set(ChunkSetInfo(name="  ", strategy="fixed"))
    store.delete_set("recursive 500/50")
    assert store.list_sets() == [] and store.active_set() is None
    for call in (lambda: store.query("recursive 500/50", "x", 1),
                 lambda: store.get_chunks("recursive 500/50"),
                 lambda: store.activate("recursive 500/50"),
                 lambda: store.delete_set("recursive 500/50")):
        with pytest.raises(StoreError, match="no chunk set named “recursive 500/50”"):
            call()
    with pytest.raises(StoreError, match="no previous chunk set"):
        store.rollback()


def test_an_unreachable_server_is_one_sentence(monkeypatch):
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(free_port()))
    with pytest.raises(StoreError, match=r"Chroma server at 127\.0\.0\.1:\d+ cannot be reached"):
        ChunkStore()


def test_a_server_that_goes_away_is_one_sentence(tmp_path, monkeypatch):
    process, port = start_chroma(tmp_path / "db")
    try:
        monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
        monkeypatch.setenv("CHROMA_PORT", str(port))
        store = ChunkStore()
    finally:
        stop(process)
    with pytest.raises(StoreError, match="cannot be reached"):
        store.list_sets()

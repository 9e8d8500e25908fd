"""The Chunk sets page under AppTest: create with progress, cutover, rollback, delete, notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.embeddings import MAX_WORD_PIECES
from core.operations.chunk_review import share
from core.operations.ingest.run import Source, ingest
from core.store import ChunkSetInfo, ChunkStore, FailedDocument
from tests.docfactory import inspection_markdown
from tests.pages import click, page_path, texts, use_samples
from ui.resources import library

PAGE = page_path("store")


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    yield from use_samples(tmp_path, monkeypatch, {
        f"{topic}.md": inspection_markdown(topic) for topic in ("boilers", "chimneys")})


def run() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["store:settings_open"] = True  # the preset's settings shown
    at.run()
    assert not at.exception, at.exception
    return at


def test_create_a_set_from_the_library_then_cut_over_and_roll_back(data):
    at = run()
    assert "No chunk sets yet" in texts(at)
    at.selectbox(key="store:preset").set_value("recursive 500/50")
    at.text_input(key="store_name").set_value("rec A")
    at.text_input(key="store_description").set_value("the baseline")
    at = click(at, "store_create")
    assert "Chunk set “rec A”: stored 2 documents" in texts(at)
    table = at.dataframe[0].value
    assert list(table["Name"]) == ["rec A"] and list(table["Documents"]) == ["2"]
    assert list(table["Description"]) == ["the baseline"]
    assert list(table["Settings"]) == ["500 tokens, overlap 50, tables whole"]
    assert "No set is active yet" in texts(at)

    at.selectbox(key="store:preset").set_value("recursive 500/50 by section")
    at.text_input(key="store_name").set_value("fixed B")
    at = click(at, "store_create")
    assert [i.name for i in ChunkStore().list_sets()] == ["rec A", "fixed B"]

    at.selectbox(key="store_target").set_value("rec A")
    at = click(at, "store_activate")
    assert "Retrieval uses **rec A**" in texts(at)
    at.selectbox(key="store_target").set_value("fixed B")
    at = click(at, "store_activate")
    assert "Cut over to “fixed B”" in texts(at)
    assert list(at.dataframe[0].value["Active"]) == ["", "●"]
    at = click(at, "store_rollback")
    assert "Rolled back to “rec A”" in texts(at)
    assert ChunkStore().active_set() == "rec A"


def test_delete_asks_for_confirmation(data):
    store = ChunkStore()
    for name in ("keep", "drop"):
        store.create_set(ChunkSetInfo(name=name, strategy="recursive"))
    at = run()
    at.selectbox(key="store_delete_pick").set_value("drop")
    at = click(at, "store_delete")
    assert "Delete “drop” and its 0 chunks? This cannot be undone." in texts(at)
    at = click(at, "store_delete_no")
    assert {i.name for i in ChunkStore().list_sets()} == {"keep", "drop"}
    at.selectbox(key="store_delete_pick").set_value("drop")
    at = click(at, "store_delete")
    at = click(at, "store_delete_yes")
    assert "Deleted “drop”" in texts(at)
    assert [i.name for i in ChunkStore().list_sets()] == ["keep"]


def test_long_chunks_get_a_note_and_bad_settings_a_sentence(data):
    long = (inspection_markdown("attics") * 3).replace("# Inspecting", "Inspecting")
    (data.parent / "samples" / "attics.md").write_text(long, encoding="utf-8")
    at = run()
    at.selectbox(key="store:preset").set_value("recursive 500/50")
    at.text_input(key="store_name").set_value("long")
    at = click(at, "store_create")
    info = ChunkStore().info("long")
    assert info.docs == 3 and info.windowed >= 1 and info.over_limit == 0
    assert f"“long”: {info.windowed} of {info.chunks} chunks are longer than MiniLM's " \
        f"{MAX_WORD_PIECES} word pieces" in texts(at)
    assert "every word is read" in texts(at) and "truncated" not in texts(at)
    assert list(at.dataframe[0].value["Text read"]) == ["100 %"]

    ChunkStore().create_set(ChunkSetInfo(name="taken", strategy="fixed"))
    at = run()
    at.text_input(key="store_name").set_value("taken").run()
    assert "already holds fixed chunks with other settings" in texts(at)
    assert at.button(key="store_create").disabled
    assert list(at.dataframe[0].value["Name"]) == ["long", "taken"]  # the sets are still listed


def test_a_table_read_to_its_last_row_is_not_called_truncated(data):
    """A long table's digest (its row labels) is longer than MiniLM reads, but every row is read
    in a window of rows: no chunk's tail is lost, so no warning says it is."""
    rows = "".join(f"| Household contents group {n} kept in outbuildings | {n * 100} USD |\n"
                   for n in range(1, 60))
    (data.parent / "samples" / "limits.md").write_text(
        "# Limits\n\nTable 1: Special limits\n\n| Item | Limit |\n|---|---|\n" + rows,
        encoding="utf-8")
    at = run()
    at.selectbox(key="store:preset").set_value("recursive 500/50")
    at.text_input(key="store_name").set_value("tables")
    at = click(at, "store_create")
    info = ChunkStore().info("tables")
    assert info.read_share == 1.0
    assert info.over_limit == 0 and "embedded truncated" not in texts(at)
    assert list(at.dataframe[0].value["Text read"]) == ["100 %"]


def test_a_share_of_text_read_never_rounds_up_to_all_of_it():
    assert [share(x) for x in (1.0, 0.997, 0.9912, 0.7509, 0.004, 0.0)] == [
        "100 %", "99.7 %", "99.1 %", "75 %", "0.4 %", "0 %"]


def test_an_unreachable_server_is_a_sentence(data, monkeypatch):
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", "9")
    at = run()
    assert [w.value for w in at.warning] == [
        "Chunk store: Chroma server 127.0.0.1:9, not answering: start it (chroma run) or unset "
        "CHROMA_HOST to use the embedded store."]
    assert not at.error and not at.button  # said once, and nothing offered that cannot work


def test_a_set_embedded_by_an_older_chunklab_is_flagged(data):
    store = ChunkStore()
    fresh = store.create_set(ChunkSetInfo(name="fresh", strategy="fixed"))
    assert not fresh.stale
    # A set written before embedding_input existed carries no such field: it reads as 0.
    old = store.client.create_collection(
        "chunkset-old", metadata={"chunklab_set": '{"name": "old", "strategy": "fixed"}'}
    )
    assert ChunkStore._info(old).stale
    # One embedded before tables got a view per row (what is embedded changed since).
    rows = store.client.create_collection("chunkset-rows", metadata={
        "chunklab_set": '{"name": "rows", "strategy": "fixed", "embedding_input": 3}'})
    assert ChunkStore._info(rows).stale
    warnings = "\n".join(w.value for w in run().warning)
    assert "“old” was embedded the way an older ChunkLab did" in warnings
    assert "“rows” was embedded the way an older ChunkLab did" in warnings
    assert "“fresh” was embedded" not in warnings


def test_the_name_follows_the_preset_until_the_user_types_one(data):
    at = run()
    name = at.text_input(key="store_name")
    assert (name.value, name.placeholder) == ("", "recursive 500/50")
    at.selectbox(key="store:preset").set_value("fixed 1000 chars").run()
    assert at.text_input(key="store_name").placeholder == "fixed 1000 chars"
    at.text_input(key="store_name").set_value("mine").run()
    at.selectbox(key="store:preset").set_value("semantic").run()
    assert at.text_input(key="store_name").value == "mine"
    at.text_input(key="store_name").set_value("").run()  # cleared: the preset's name again
    assert at.text_input(key="store_name").placeholder == "semantic"
    at = click(at, "store_create")
    assert [i.name for i in ChunkStore().list_sets()] == ["semantic"]


def test_an_existing_name_is_offered_a_new_one_or_must_be_confirmed(data):
    at = run()
    at = click(at, "store_create")
    assert [i.name for i in ChunkStore().list_sets()] == ["recursive 500/50"]
    assert at.text_input(key="store_name").placeholder == "recursive 500/50 (2)"
    at.text_input(key="store_name").set_value("recursive 500/50").run()
    assert "already exists with these settings" in texts(at)
    assert at.button(key="store_create").disabled
    at.checkbox(key="store_confirm_existing").check().run()
    assert not at.button(key="store_create").disabled


def test_presets_saved_elsewhere_and_the_llm_strategy_are_offered(data):
    from core.operations.presets import save_user_preset

    save_user_preset("tiny fixed", "fixed", {"size": 120, "unit": "tokens"})
    at = run()
    assert "tiny fixed" in at.selectbox(key="store:preset").options
    at.selectbox(key="store:preset").set_value("tiny fixed").run()
    assert at.text_input(key="store_name").placeholder == "tiny fixed"
    strategies = at.selectbox(key="store:tiny fixed:strategy").options
    assert {"fixed", "recursive", "semantic", "cluster", "llm"} <= set(strategies)
    at.selectbox(key="store:tiny fixed:strategy").set_value("llm").run()
    assert "No LLM endpoint configured" in texts(at)  # and nothing can be started without one
    assert at.button(key="store_create").disabled


def test_a_new_set_starts_from_the_users_documents_not_the_samples(data):
    mine = library().add(inspection_markdown("gutters").encode(), "gutters.md")
    at = run()
    picker = at.multiselect(key="store_docs")
    assert picker.value == [mine.doc_id]
    assert sorted(picker.options) == ["boilers.md (sample)", "chimneys.md (sample)", "gutters.md"]


def test_a_set_with_failed_documents_says_so_and_retries_exactly_them(data):
    boilers, chimneys = sorted(library().documents(), key=lambda d: d.source_name)
    ingest([Source.from_document(boilers)], "llm set", "recursive", {})
    ChunkStore().record_failed("llm set", [FailedDocument(
        doc_id=chimneys.doc_id, name=chimneys.source_name, error="phase 2 failed: no rows")])
    at = run()
    assert list(at.dataframe[0].value["Documents"]) == ["1 of 2 documents"]
    errors = [e.value for e in at.error]
    assert errors == ["“llm set” holds 1 of 2 documents: 1 document could not be chunked."]
    at = click(at, "store_retry_llm set")
    assert "Chunk set “llm set”: stored 1 document" in texts(at)
    info = ChunkStore().info("llm set")
    assert (info.docs, info.failed) == (2, [])
    assert list(at.dataframe[0].value["Documents"]) == ["2"]


def test_a_cluster_set_is_made_from_the_settings_form(data):
    at = run()
    at.selectbox(key="store:recursive 500/50:strategy").set_value("cluster").run()
    at.number_input(key="store:recursive 500/50:cluster:size").set_value(150)
    at.text_input(key="store_name").set_value("clustered")
    at = click(at, "store_create")
    assert "Chunk set “clustered”: stored 2 documents" in texts(at)
    info = ChunkStore().info("clustered")
    assert (info.strategy, info.settings["size"], info.settings["piece_size"]) == (
        "cluster", 150, 50)
    assert all(c.tokens <= 150 for c in ChunkStore().get_chunks("clustered"))

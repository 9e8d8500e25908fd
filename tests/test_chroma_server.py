"""ChunkLab against a real Chroma server (`chroma run`, one for the module): the CLI's ingest,
`sets` and assemble, an evaluation of a stored set and the Chunk sets page work there as they do
embedded; the pages say which store is in use; a server that goes away is one sentence and an
ingest it stopped leaves the store as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import core.store.chunk_store
from core.cli import main
from core.documents.model import content_id
from core.operations.evaluation import Candidate, evaluate
from core.operations.questions.sets import load_from_folder
from core.store import ChunkStore
from tests.chroma_server import free_port, start_chroma, stop
from tests.docfactory import inspection_markdown
from tests.pages import click, page_path, texts, use_samples

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = ROOT / "sample_docs" / "technical_handbook.md"
QUESTIONS = ROOT / "sample_docs" / "questions" / "technical_handbook.csv"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process, port = start_chroma(tmp_path_factory.mktemp("chroma-server"))
    yield port
    stop(process)


def _point_at(monkeypatch, port: int) -> None:
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(port))


@pytest.fixture
def on_server(server, tmp_path, monkeypatch):
    """A data folder of its own, pointed at the module's server; the server emptied after."""
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    _point_at(monkeypatch, server)
    yield server
    store = ChunkStore()
    for info in store.list_sets():
        store.delete_set(info.name)


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_ingest_sets_and_assemble_on_the_server(on_server, tmp_path, capsys):
    code, out, _ = _cli(capsys, "ingest", str(HANDBOOK), "--chunk-set", "team",
                        "--strategy", "recursive", "--size", "200")
    assert code == 0 and "Chunk set “team”: stored 1 document" in out
    assert ChunkStore(tmp_path / "data" / "chroma").list_sets() == []  # not the embedded one
    code, out, _ = _cli(capsys, "sets", "cutover", "team")
    assert code == 0
    code, out, _ = _cli(capsys, "sets", "list")
    [row] = json.loads(out)
    assert (row["name"], row["documents"], row["active"]) == ("team", 1, True)
    assert row["chunks"] > 1
    code, out, _ = _cli(capsys, "assemble", "--chunk-set", "team", "--question",
                        "How often is the oil level checked?", "--limit", "2",
                        "--headroom", "100000")
    assert code == 0
    citations = json.loads(out)["citations"]
    assert len(citations) == 2
    assert {c["doc_id"] for c in citations} == {content_id(HANDBOOK.read_bytes())}


def test_a_stored_set_is_evaluated_from_the_server(on_server, capsys):
    assert _cli(capsys, "ingest", str(HANDBOOK), "--chunk-set", "team eval",
                "--strategy", "recursive", "--size", "200")[0] == 0
    loaded = load_from_folder(QUESTIONS, HANDBOOK.parent)
    [result] = evaluate(loaded.questions, loaded.documents,
                        [Candidate("team eval", chunk_set="team eval")], use_cache=False)
    assert result.metrics.overall.value("recall") > 0


def test_the_active_set_is_the_same_for_everyone_on_the_server(on_server, tmp_path,
                                                                monkeypatch, capsys):
    assert _cli(capsys, "ingest", str(HANDBOOK), "--chunk-set", "shared",
                "--strategy", "fixed", "--size", "400")[0] == 0
    ChunkStore().activate("shared")
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "colleague"))  # another user
    assert ChunkStore().active_set() == "shared"


def test_the_chunk_sets_page_on_the_server(on_server, tmp_path, monkeypatch):
    for _ in use_samples(tmp_path, monkeypatch, {"boilers.md": inspection_markdown("boilers")}):
        _point_at(monkeypatch, on_server)  # use_samples unsets it
        at = AppTest.from_file(page_path("store"), default_timeout=120).run()
        assert not at.exception, at.exception
        assert f"Chunk store: Chroma server 127.0.0.1:{on_server}, answering." in texts(at)
        at.text_input(key="store_name").set_value("from the page")
        at = click(at, "store_create")
        assert "Chunk set “from the page”: stored 1 document" in texts(at)
        assert [i.name for i in ChunkStore().list_sets()] == ["from the page"]
        at = click(at, "store_delete")
        at = click(at, "store_delete_yes")
        assert ChunkStore().list_sets() == []


@pytest.mark.parametrize("page", ["store", "settings"])
def test_the_pages_say_when_the_server_does_not_answer(page, tmp_path, monkeypatch):
    for _ in use_samples(tmp_path, monkeypatch, {"boilers.md": inspection_markdown("boilers")}):
        port = free_port()
        _point_at(monkeypatch, port)
        at = AppTest.from_file(page_path(page), default_timeout=60).run()
        assert not at.exception, at.exception
        warning = f"Chunk store: Chroma server 127.0.0.1:{port}, not answering"
        assert any(w.value.startswith(warning) for w in at.warning)


def test_a_server_gone_mid_ingest_is_one_sentence_and_the_store_as_it_was(
        tmp_path, monkeypatch, capsys):
    """The server stops after the first of two documents is stored: exit 2 with one line, and
    once the server is back the set that run created is gone before anything else is done."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for topic in ("boilers", "chimneys"):
        (folder / f"{topic}.md").write_text(inspection_markdown(topic), encoding="utf-8")
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    process, port = start_chroma(tmp_path / "db")
    _point_at(monkeypatch, port)
    add_chunks = ChunkStore.add_chunks

    def then_stop(self, *args, **kwargs):
        info = add_chunks(self, *args, **kwargs)
        stop(process)
        return info

    monkeypatch.setattr(core.store.chunk_store.ChunkStore, "add_chunks", then_stop)
    try:
        code, out, err = _cli(capsys, "ingest", str(folder), "--chunk-set", "cut off",
                              "--strategy", "recursive", "--batch-size", "1")
    finally:
        stop(process)
    assert code == 2 and out == ""
    errors = [line for line in err.splitlines() if line.startswith("error")]
    assert errors == [f"error: The chunk store (Chroma server 127.0.0.1:{port}) cannot be "
                      "reached."]
    assert "Traceback" not in err
    monkeypatch.setattr(core.store.chunk_store.ChunkStore, "add_chunks", add_chunks)
    process, _ = start_chroma(tmp_path / "db", port)
    try:  # the same ingest again finds the store as it was: nothing to skip, nothing left over
        code, out, _ = _cli(capsys, "ingest", str(folder), "--chunk-set", "cut off",
                            "--strategy", "recursive", "--batch-size", "1")
        assert code == 0 and "stored 2 documents" in out and "skipped" not in out
        assert [info.docs for info in ChunkStore().list_sets()] == [2]
        assert not list((tmp_path / "data").glob("*.undo.json"))
    finally:
        stop(process)
        shutil.rmtree(tmp_path / "db", ignore_errors=True)

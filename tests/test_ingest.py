"""Batch re-processing into chunk sets: summary, skipping, resuming after a kill, the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from core.documents import convert
from core.embeddings import BUILTIN
from core.errors import StoreError
from core.operations.ingest.run import Source, check_set_name, ingest, sources_from_paths
from core.operations.strategies import RunOptions
from core.store import ChunkStore
from tests.docfactory import chunk_document, inspection_markdown

ROOT = Path(__file__).resolve().parent.parent
TOPICS = ["boilers", "roof tiles", "garden sheds", "water pipes", "chimneys", "solar panels",
          "window frames", "cellar pumps"]
SETTINGS = {"size": 80, "overlap": 10, "unit": "tokens"}


@pytest.fixture()
def folder(tmp_path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for topic in TOPICS:
        path = docs / f"{topic.replace(' ', '_')}.md"
        path.write_text(inspection_markdown(topic), encoding="utf-8")
    return docs


@pytest.fixture()
def store(tmp_path, monkeypatch) -> ChunkStore:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    return ChunkStore()


def _expected(folder: Path) -> dict[str, list]:
    out = {}
    for path in sorted(folder.iterdir()):
        document = convert(path.read_bytes(), path.name)
        out[document.doc_id] = chunk_document(document, "recursive", **SETTINGS)
    return out


def test_ingest_stores_every_chunk_in_batches_with_progress(folder, store):
    seen = []
    summary = ingest(sources_from_paths([folder]), "rec 80", "recursive", SETTINGS,
                     batch_size=3, store=store, options=RunOptions(progress=seen.append))
    expected = _expected(folder)
    assert (summary.documents, summary.skipped, summary.failed) == (8, 0, [])
    assert summary.chunks == sum(len(c) for c in expected.values())
    assert summary.tokens == sum(c.tokens for cs in expected.values() for c in cs)
    assert summary.seconds > 0 and "stored 8 documents" in summary.sentence()
    stored = [p.done for p in seen if "chunking" not in p.message
              and "embedding" not in p.message]
    assert stored == [0, 3, 6, 8] and {p.total for p in seen} == {8}
    assert [p.done for p in seen] == sorted(p.done for p in seen)  # it never goes back
    chunking = [p.message for p in seen if "chunking" in p.message]
    assert len(chunking) == 8  # one step per document
    embedding = [p for p in seen if "embedding" in p.message]
    assert len(embedding) >= 6 and any(p.done % 1 for p in embedding)  # within a batch
    assert f"{summary.chunks} chunks" in seen[-1].message
    for doc_id, chunks in expected.items():
        assert store.get_chunks("rec 80", doc_id=doc_id) == chunks
    info = store.info("rec 80")
    assert info.strategy == "recursive" and info.settings["size"] == 80 and info.docs == 8


def test_running_again_skips_what_is_stored_and_other_settings_need_a_new_name(folder, store):
    sources = sources_from_paths([folder])
    ingest(sources[:5], "rec 80", "recursive", SETTINGS, store=store)
    summary = ingest(sources, "rec 80", "recursive", SETTINGS, store=store)
    assert (summary.documents, summary.skipped) == (3, 5)
    assert store.info("rec 80").chunks == sum(len(c) for c in _expected(folder).values())
    other = {**SETTINGS, "size": 120}
    refused = check_set_name(store, "rec 80", "recursive", other, BUILTIN)
    with pytest.raises(StoreError) as raised:
        ingest(sources, "rec 80", "recursive", other, store=store)
    assert refused.blocking and refused.problem == str(raised.value)  # one rule, one sentence
    assert "other settings; choose a new name" in refused.problem
    assert not check_set_name(store, "rec 80", "recursive", SETTINGS, BUILTIN).blocking
    ingest(sources, "rec 120", "recursive", {**SETTINGS, "size": 120}, store=store)
    assert {i.name for i in store.list_sets()} == {"rec 80", "rec 120"}  # both coexist


def test_a_bad_document_is_reported_and_the_others_are_stored(folder, store):
    (folder / "empty.txt").write_bytes(b"")
    summary = ingest(sources_from_paths([folder]), "rec 80", "recursive", SETTINGS, store=store)
    assert summary.documents == 8
    [(name, sentence)] = summary.failed
    assert name == "empty.txt" and sentence.endswith(".")
    assert "empty.txt" in summary.warnings()[0]


def test_long_chunks_are_read_in_windows(store):
    long = convert((inspection_markdown("attics") * 3).encode(), "attics.md")
    short = convert(inspection_markdown("doors").encode(), "doors.md")
    summary = ingest([Source.from_document(long), Source.from_document(short)], "big",
                     "recursive", {"size": 1000, "overlap": 0}, store=store)
    assert (summary.chunks, summary.over_limit) == (2, 0)  # read in windows, not truncated
    assert not any("truncated" in line for line in summary.warnings())
    assert store.info("big").windowed == 1


def test_a_document_half_written_before_a_kill_is_rewritten_on_resume(folder, store):
    sources = sources_from_paths([folder])
    ingest(sources[:1], "rec 80", "recursive", SETTINGS, store=store)
    pending = sources[1]
    real = chunk_document(pending.load(), "recursive", **SETTINGS)
    stray = real[0].model_copy(update={"id": "stray-from-a-killed-run"})
    store._collection("rec 80").upsert(  # chunks written, document not yet marked as stored
        ids=[stray.id], documents=[stray.text], embeddings=[[0.1] * 384],
        metadatas=[{"doc_id": stray.doc_id, "start": 0, "end": 1, "chunk_type": "text",
                    "tokens": 1, "strategy": "recursive"}])
    ingest(sources[:2], "rec 80", "recursive", SETTINGS, store=store)
    assert store.get_chunks("rec 80", doc_id=pending.doc_id) == real


def test_documents_from_the_library_are_sources(store):
    document = convert(inspection_markdown("fences").encode(), "fences.md")
    summary = ingest([Source.from_document(document)], "lib", "recursive", SETTINGS, store=store)
    assert summary.documents == 1 and store.info("lib").doc_ids == [document.doc_id]


def _cli(*args: str, data: Path) -> subprocess.Popen:
    env = {**os.environ, "CHUNKLAB_DATA_DIR": str(data)}
    env.pop("CHROMA_HOST", None)
    return subprocess.Popen([sys.executable, "-m", "core", "ingest", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_cli_resumes_after_being_killed(folder, tmp_path):
    data = tmp_path / "cli-data"
    args = [str(folder), "--chunk-set", "rec 80", "--strategy", "recursive", "--size", "80",
            "--overlap", "10", "--batch-size", "1"]
    first = _cli(*args, data=data)
    for line in first.stderr:  # progress lines: kill right after the second document is stored
        if line.startswith("[") and " 2/8 documents" in line:
            first.send_signal(signal.SIGKILL)
            break
    first.wait(timeout=60)
    assert first.returncode == -signal.SIGKILL

    second = _cli(*args, data=data)
    out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    skipped = int(out.split("skipped ")[1].split()[0])
    assert 2 <= skipped < 8
    stored = 8 - skipped
    assert f"stored {stored} document{'s' * (stored != 1)} as " in out
    assert "8/8 documents" in err

    os.environ["CHUNKLAB_DATA_DIR"], previous = str(data), os.environ["CHUNKLAB_DATA_DIR"]
    try:
        stored = ChunkStore()
        expected = _expected(folder)
        assert stored.info("rec 80").chunks == sum(len(c) for c in expected.values())
        for doc_id, chunks in expected.items():
            assert stored.get_chunks("rec 80", doc_id=doc_id) == chunks
    finally:
        os.environ["CHUNKLAB_DATA_DIR"] = previous


def test_cli_bad_settings_are_one_line(folder, tmp_path):
    bad = _cli(str(folder), "--chunk-set", "x", "--strategy", "fixed", "--size", "0",
               data=tmp_path / "d")
    out, err = bad.communicate(timeout=120)
    assert bad.returncode == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    missing = _cli(str(folder), data=tmp_path / "d")
    _, err = missing.communicate(timeout=120)
    assert missing.returncode == 2 and "--chunk-set" in err


def test_a_folder_ingested_with_the_cli_names_its_sources_by_file_name(folder, tmp_path):
    data = tmp_path / "named"
    ingested = _cli(str(folder), "--chunk-set", "named", "--strategy", "recursive",
                    data=data)
    _, err = ingested.communicate(timeout=300)
    assert ingested.returncode == 0, err
    env = {**os.environ, "CHUNKLAB_DATA_DIR": str(data)}
    env.pop("CHROMA_HOST", None)
    done = subprocess.run([sys.executable, "-m", "core", "assemble", "--chunk-set", "named",
                           "--question", "How often are the chimneys inspected?"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    prompt = json.loads(done.stdout)
    names = {path.name for path in folder.iterdir()}
    sources = [c["source"] for c in prompt["citations"]]
    assert sources and set(sources) <= names and "chimneys.md" in sources
    text = prompt["prompt"]["system"] + prompt["prompt"]["user"]
    assert "Doc: chimneys.md" in text
    assert not any(f"Doc: {c['doc_id']}" in text for c in prompt["citations"])  # no hash

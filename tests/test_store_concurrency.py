"""Several processes on one data folder: the set's record keeps every document; the sets CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from core.store import ChunkStore
from tests.docfactory import inspection_markdown

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args: str, data: Path) -> subprocess.Popen:
    env = {**os.environ, "CHUNKLAB_DATA_DIR": str(data)}
    env.pop("CHROMA_HOST", None)
    return subprocess.Popen([sys.executable, "-m", "core", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _run(*args: str, data: Path) -> tuple[int, str, str]:
    process = _cli(*args, data=data)
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


def test_two_ingests_into_one_new_set_both_count(tmp_path, monkeypatch):
    data = tmp_path / "data"
    paths = []
    for topic in ("boilers", "chimneys", "cellar pumps", "roof tiles"):
        path = tmp_path / f"{topic.replace(' ', '_')}.md"
        path.write_text(inspection_markdown(topic), encoding="utf-8")
        paths.append(str(path))
    common = ["--chunk-set", "shared", "--strategy", "recursive", "--size", "80",
              "--batch-size", "1"]
    runs = [_cli("ingest", *paths[i::2], *common, data=data) for i in range(2)]
    results = [(run.wait(timeout=300), *run.communicate()) for run in runs]
    for code, _, err in results:
        assert code == 0, err
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(data))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    store = ChunkStore()
    info = store.info("shared")
    stored = store.get_chunks("shared")
    assert len({chunk.doc_id for chunk in stored}) == 4
    assert info.docs == 4 and len(info.doc_ids) == 4
    assert info.chunks == len(stored)


def test_sets_list_cutover_rollback_delete(tmp_path):
    data = tmp_path / "data"
    doc = tmp_path / "boilers.md"
    doc.write_text(inspection_markdown("boilers"), encoding="utf-8")
    for name in ("first", "second"):
        code, _, err = _run("ingest", str(doc), "--chunk-set", name, "--strategy", "fixed",
                            data=data)
        assert code == 0, err
    code, out, _ = _run("sets", "list", data=data)
    assert code == 0
    rows = json.loads(out)
    assert [row["name"] for row in rows] == ["first", "second"]
    assert set(rows[0]) == {"name", "documents", "chunks", "active", "created", "strategy",
                            "embedder", "embedder_where", "dimension"}
    assert rows[0]["documents"] == 1 and rows[0]["chunks"] > 0
    assert not any(row["active"] for row in rows)

    assert _run("sets", "cutover", "first", data=data)[0] == 0
    assert _run("sets", "cutover", "second", data=data)[0] == 0
    active = [row["name"] for row in json.loads(_run("sets", "list", data=data)[1])
              if row["active"]]
    assert active == ["second"]
    code, out, _ = _run("sets", "rollback", data=data)
    assert code == 0 and "first" in out
    code, out, err = _run("sets", "delete", "first", data=data)
    assert code == 0, err
    rows = json.loads(_run("sets", "list", data=data)[1])
    assert [row["name"] for row in rows] == ["second"] and not rows[0]["active"]

    code, out, err = _run("sets", "delete", "nope", data=data)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    code, out, _ = _run("sets", "rollback", data=data)  # the deleted one is no target
    assert code == 0 and "second" in out
    code, _, err = _run("sets", "rollback", data=data)
    assert code == 2 and err.startswith("error: ") and "no previous" in err


def test_an_open_store_finds_what_another_process_stored(tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(data))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    paths = {}
    for topic in ("boilers", "chimneys"):
        paths[topic] = tmp_path / f"{topic}.md"
        paths[topic].write_text(inspection_markdown(topic), encoding="utf-8")
    args = ["--chunk-set", "s", "--strategy", "fixed"]
    assert _run("ingest", str(paths["boilers"]), *args, data=data)[0] == 0
    store = ChunkStore()  # like the app: open, and used before and after the CLI writes
    before = store.query("s", "chimney flue inspection", 50)
    assert _run("ingest", str(paths["chimneys"]), *args, data=data)[0] == 0
    after = store.query("s", "chimney flue inspection", 50)
    assert len(after) == len(store.get_chunks("s")) > len(before)
    assert store.info("s").docs == 2

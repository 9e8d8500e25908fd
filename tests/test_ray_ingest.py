"""Opt-in (``pytest -m ray``, needs the ``cluster`` extra): an ingest with ``RAY_ADDRESS`` on a
local Ray head converts and chunks as Ray tasks, says so, and stores exactly what a local run
stores; a document that cannot be converted fails alone."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.cli import main
from core.store import ChunkStore
from tests.chroma_server import free_port
from tests.docfactory import inspection_markdown
from tests.pages import click, page_path, texts, use_samples

pytestmark = pytest.mark.ray
ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ["technical_handbook.md", "product_manual.html", "meeting_transcript.txt",
           "service_levels.csv"]


@pytest.fixture(scope="module")
def ray_head():
    """``ray start --head`` in a process group of its own, ended by its id after the module."""
    port = free_port()
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay short
    command = [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block",
               f"--port={port}", "--num-cpus=2", "--include-dashboard=false",
               f"--temp-dir={temp}", "--disable-usage-stats"]
    # The head and this driver agree to no token (Ray turns token authentication on when it
    # finds a token in ~/.ray, and a driver then needs RAY_AUTH_MODE=token).
    os.environ["RAY_AUTH_MODE"] = "disabled"
    head = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 90
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if head.poll() is not None or time.monotonic() > deadline:
                os.killpg(head.pid, signal.SIGKILL)
                pytest.fail("`ray start --head` did not start")
            time.sleep(0.5)
    yield f"127.0.0.1:{port}"
    ray.shutdown()
    os.killpg(head.pid, signal.SIGTERM)
    head.wait(timeout=60)
    shutil.rmtree(temp, ignore_errors=True)
    os.environ.pop("RAY_AUTH_MODE", None)


@pytest.fixture
def folder(tmp_path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in SAMPLES:
        (docs / name).write_bytes((ROOT / "sample_docs" / name).read_bytes())
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    return docs


def test_the_chunk_sets_page_ingests_on_ray(ray_head, tmp_path, monkeypatch):
    """First in the module: the page's script thread is the one that connects to Ray."""
    for _ in use_samples(tmp_path, monkeypatch, {
            f"{topic}.md": inspection_markdown(topic) for topic in ("boilers", "chimneys")}):
        monkeypatch.setenv("RAY_ADDRESS", ray_head)
        at = AppTest.from_file(page_path("store"), default_timeout=180).run()
        assert not at.exception, at.exception
        at.text_input(key="store_name").set_value("page on ray")
        at = click(at, "store_create")
        assert ("stored 2 documents as" in texts(at)
                and f"converted and chunked on the Ray cluster at {ray_head}" in texts(at))
        assert ChunkStore().info("page on ray").docs == 2


def _rows(name: str) -> list[tuple]:
    return [(c.id, c.doc_id, c.start, c.end, c.text, c.chunk_type, c.heading_path)
            for c in ChunkStore().get_chunks(name)]


def test_an_ingest_on_ray_stores_what_a_local_one_stores(ray_head, folder, tmp_path,
                                                          monkeypatch, capsys):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    args = [str(folder), "--strategy", "recursive", "--size", "200", "--batch-size", "2"]
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert main(["ingest", *args, "--chunk-set", "local"]) == 2  # broken.pdf failed
    local_out, local_err = capsys.readouterr()
    monkeypatch.setenv("RAY_ADDRESS", ray_head)
    assert main(["ingest", *args, "--chunk-set", "on ray"]) == 2
    out, err = capsys.readouterr()
    assert f"converted and chunked on the Ray cluster at {ray_head}" in out
    assert "converted and chunked on" not in local_out
    assert "stored 4 documents" in out and "; 1 failed." in out
    assert _rows("on ray") == _rows("local") and len(_rows("local")) > 10
    failures = [line for line in err.splitlines() if line.startswith("warning: broken.pdf")]
    assert failures == [line for line in local_err.splitlines()
                        if line.startswith("warning: broken.pdf")] and failures


def test_an_unreachable_cluster_is_one_sentence_and_nothing_is_written(tmp_path, monkeypatch,
                                                                       capsys):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    address = f"127.0.0.1:{free_port()}"
    monkeypatch.setenv("RAY_ADDRESS", address)
    if ray.is_initialized():
        ray.shutdown()  # a driver already connected would not ask for the address again
    sample = str(ROOT / "sample_docs" / SAMPLES[0])
    assert main(["ingest", sample, "--chunk-set", "nowhere", "--strategy", "recursive"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: The Ray cluster at {address} cannot be reached: start it (ray start --head), "
        "set RAY_AUTH_MODE=token if it asks for its token, or unset RAY_ADDRESS.")
    assert ChunkStore().list_sets() == []

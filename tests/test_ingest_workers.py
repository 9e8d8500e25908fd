"""An ingest whose documents are converted and chunked elsewhere (the workers port): results
that come back in any order, a document the workers lost, and what the summary says."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from core.operations.ingest.run import Source, ingest, sources_from_paths
from core.operations.ingest.workers import LocalWorkers, TaskLost
from core.store import ChunkStore
from tests.docfactory import inspection_markdown

TOPICS = ["boilers", "chimneys", "cellar pumps", "solar panels", "window frames"]
SETTINGS = {"size": 80, "overlap": 10, "unit": "tokens"}
ROOT = Path(__file__).resolve().parents[1]


class Shuffled:
    """Workers that finish the documents in reverse order and lose the one named ``lost``."""

    where = "a test cluster"

    def __init__(self, lost: str) -> None:
        self.lost = lost

    def run(self, task: Callable, items: Sequence, starting=None) -> Iterator[tuple]:
        for item in reversed(items):
            yield item, (TaskLost("lost on a test cluster: the node went away")
                         if item.name == self.lost else task(item))


@pytest.fixture()
def sources(tmp_path, monkeypatch) -> list[Source]:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    folder = tmp_path / "docs"
    folder.mkdir()
    for topic in TOPICS:
        (folder / f"{topic.replace(' ', '_')}.md").write_text(inspection_markdown(topic),
                                                               encoding="utf-8")
    return sources_from_paths([folder])


def _stored(store: ChunkStore, name: str) -> list[tuple[str, str, int, int, str]]:
    return [(c.id, c.doc_id, c.start, c.end, c.text) for c in store.get_chunks(name)]


def test_results_in_any_order_store_the_same_chunks_and_a_lost_one_fails_alone(sources):
    store = ChunkStore()
    local = ingest(sources, "here", "recursive", SETTINGS, batch_size=2, store=store,
                   workers=LocalWorkers())
    assert "converted and chunked on" not in local.sentence()
    elsewhere = ingest(sources, "there", "recursive", SETTINGS, batch_size=2, store=store,
                       workers=Shuffled(lost="chimneys.md"))
    assert elsewhere.failed == [("chimneys.md", "lost on a test cluster: the node went away")]
    assert elsewhere.sentence().startswith("Chunk set “there”: stored 4 documents")
    assert ", converted and chunked on a test cluster; 1 failed." in elsewhere.sentence()
    lost = next(s.doc_id for s in sources if s.name == "chimneys.md")
    assert _stored(store, "there") == [row for row in _stored(store, "here") if row[1] != lost]
    assert [f.name for f in store.info("there").failed] == ["chimneys.md"]


def test_without_ray_address_the_documents_are_chunked_here_and_ray_stays_unloaded(
        monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    code = ("import sys; from core.operations.ingest.run import ingest; "
            "from core.operations.ingest.workers import workers_from_env; "
            "print(workers_from_env().where, 'ray' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout.split() == ["this", "machine", "False"]

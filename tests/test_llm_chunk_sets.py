# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""An LLM chunk set with documents the model could not chunk: the set says how many of its
documents it holds, ingesting again retries exactly those, and the warnings of a run come as one
summary per document instead of one line per repair."""

from __future__ import annotations

import pytest

from core.documents import convert
from core.llm.phases import boundaries
from core.operations.ingest.run import Source, ingest
from core.operations.strategies import RunOptions
from core.store import ChunkStore
from fakes.llm import auto_answer, fake_llm  # noqa: F401  (fixture)
from tests.docfactory import inspection_markdown

TOPICS = ["boilers", "roof tiles", "garden sheds"]


@pytest.fixture()
def store(tmp_path, monkeypatch) -> ChunkStore:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.0)  # the documents are small
    return ChunkStore()


@pytest.fixture(scope="module")
def documents():
    return [convert(inspection_markdown(t).encode(), f"{t.replace(' ', '_')}.md")
            for t in TOPICS]


def _refusing(topic: str):
    """A model that cannot describe the structure of one document."""
    def respond(request):
        if request.phase == "structure_analysis" and topic in request.prompt.lower():
            return "I am sorry, I cannot help with that."
        return auto_answer(request.phase, request.prompt)
    return respond


def test_failed_documents_are_kept_with_the_set_and_a_retry_redoes_exactly_them(
        fake_llm, store, documents):
    fake_llm.respond(_refusing("roof tiles"))
    options = RunOptions(llm=fake_llm.settings())
    sources = [Source.from_document(d) for d in documents]
    summary = ingest(sources, "llm", "llm", {"summaries": False}, store=store, options=options)
    assert (summary.documents, [name for name, _ in summary.failed]) == (2, ["roof_tiles.md"])
    info = store.info("llm")
    assert info.documents_text() == "2 of 3 documents"
    assert [(f.name, f.doc_id) for f in info.failed] == [("roof_tiles.md", documents[1].doc_id)]
    assert "phase 1 (structure analysis) failed" in info.failed[0].error

    fake_llm.reset()
    fake_llm.respond(lambda request: auto_answer(request.phase, request.prompt))
    again = ingest(sources, "llm", "llm", {"summaries": False}, store=store, options=options)
    assert (again.documents, again.skipped, again.failed) == (1, 2, [])
    asked = {c.prompt for c in fake_llm.calls if c.phase == "structure_analysis"}
    assert len(asked) == 1 and all("roof tiles" in prompt.lower() for prompt in asked)
    info = store.info("llm")
    assert (info.failed, info.documents_text()) == ([], "3 documents")


def test_a_failure_noted_again_replaces_the_earlier_one(fake_llm, store, documents):
    fake_llm.respond(_refusing("boilers"))
    options = RunOptions(llm=fake_llm.settings())
    source = [Source.from_document(documents[0])]
    for _ in range(2):
        ingest(source, "llm", "llm", {"summaries": False}, store=store, options=options)
    info = store.info("llm")
    assert len(info.failed) == 1 and info.documents_text() == "0 of 1 document"


def test_warnings_are_summed_up_per_document(fake_llm, store, documents):
    def slipping(request):
        answer = auto_answer(request.phase, request.prompt)
        if request.phase in ("structure_analysis", "boundary_detection"):
            return "```\n" + answer + "\n```"
        return answer

    fake_llm.respond(slipping)
    summary = ingest([Source.from_document(d) for d in documents], "llm", "llm",
                     {"summaries": False, "parsing": "tolerant"}, store=store,
                     options=RunOptions(llm=fake_llm.settings()))
    assert summary.documents == 3 and len(summary.notes) > 3
    lines = summary.warnings()
    assert len(lines) == 3  # one line per document, not one per repair
    assert all("markdown code fence removed ×" in line for line in lines)

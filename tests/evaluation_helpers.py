"""Shared by the evaluation runner tests: two small documents, a question set on them, and an
autouse-able stand-in chunker (one chunk per paragraph, or the whole text when size > 1000) with
the result cache in the test's own folder. Import the fixtures by name into a test module."""

import pytest

from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.evaluation.questions import Question, QuestionSet, Reference
from core.operations.evaluation import Candidate
from core.operations.evaluation import run as runner

POLICY = ("Dwelling coverage limit is 300000 dollars.\n\nThe deductible is 1000 dollars.\n\n"
          "Floods and earthquakes are excluded.\n\nPersonal property is covered at 50 percent.")
MANUAL = "Press the power button for three seconds.\n\nThe battery lasts ten hours."


def make_doc(doc_id: str, text: str) -> Document:
    return Document(doc_id=doc_id, source_name=f"{doc_id}.txt", format="txt", route="text",
                    text=text)


def paragraph_chunks(document: Document, config: Candidate) -> list[Chunk]:
    """Stand-in chunker: one chunk per paragraph, or the whole text when size is large."""
    text = document.text
    if config.settings.get("size", 0) > 1000:
        spans = [(0, len(text))]
    else:
        spans, start = [], 0
        for part in text.split("\n\n"):
            spans.append((start, start + len(part)))
            start += len(part) + 2
    return [Chunk(id=f"{document.doc_id}-{s}", doc_id=document.doc_id, strategy=config.strategy,
                  config=config.settings, start=s, end=e, text=text[s:e], tokens=1)
            for s, e in spans]


def make_question(row, text, corpus, passage, doc_text, kind="text") -> Question:
    start = doc_text.index(passage)
    return Question(row, text, corpus, (Reference(passage, start, start + len(passage)),), kind)


@pytest.fixture
def question_set() -> QuestionSet:
    return QuestionSet("t", (
        make_question(2, "What is the deductible?", "policy", "The deductible is 1000 dollars.",
                  POLICY, "table"),
        make_question(3, "Are floods excluded?", "policy", "Floods and earthquakes are excluded.",
                  POLICY),
        make_question(4, "How long does the battery last?", "manual",
                  "The battery lasts ten hours.", MANUAL),
    ))


@pytest.fixture
def documents():
    return {"policy": make_doc("policy", POLICY), "manual": make_doc("manual", MANUAL)}


@pytest.fixture(autouse=True)
def stand_in_chunker(monkeypatch, tmp_path):
    calls = []

    def fake(document, config, store=None, embedder=None):
        calls.append(config.label)
        return paragraph_chunks(document, config)

    monkeypatch.setattr(runner, "chunks_for", fake)
    monkeypatch.setattr(runner, "cache_dir", lambda: tmp_path / "evaluation")
    return calls

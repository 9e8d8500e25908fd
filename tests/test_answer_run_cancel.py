"""An answer run cancelled part-way keeps the answers given so far: the run after it (Resume)
asks only the others."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core.operations.answers.run import AnswerOptions, arms_for, configurations, run_answers
from core.operations.questions.sets import load_from_folder
from core.progress import Cancelled
from fakes.llm import FakeRequest, Reply, fake_llm  # noqa: F401  (fixture)
from tests.answer_variants import quote_first_passage

DOCS = Path(__file__).resolve().parents[1] / "sample_docs"


def test_cancel_then_resume_asks_only_what_is_left(tmp_path, monkeypatch, fake_llm):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    cancel = threading.Event()

    def answer_then_cancel(request: FakeRequest) -> Reply | str:
        if len(fake_llm.calls) >= 3:
            cancel.set()
        return quote_first_passage(request)

    fake_llm.respond(answer_then_cancel)
    loaded = load_from_folder(DOCS / "questions" / "technical_handbook.csv", DOCS)
    arms = arms_for(["default"], configurations(["fixed 1000 chars"]))
    options = AnswerOptions(limit=8, ranking="bm25")
    settings = fake_llm.settings(concurrency=1)
    with pytest.raises(Cancelled):
        run_answers(loaded.questions, loaded.documents, arms, settings, options, cancel=cancel)
    sent = len(fake_llm.calls)
    assert 3 <= sent < 8

    fake_llm.respond(quote_first_passage)
    resumed = run_answers(loaded.questions, loaded.documents, arms, settings, options)
    kept = sum(r.cached for r in resumed.arms[0].rows)
    # the answers given before the cancel are kept and not asked again (the one being written
    # when Cancel came was ended at its connection: it is asked again)
    assert sent - 1 <= kept <= sent
    assert resumed.asked == 8 - kept and len(fake_llm.calls) == sent + resumed.asked
    assert all(r.status == "ok" for r in resumed.arms[0].rows)

"""A streamed answer that falls into a loop is ended at the connection long before its token
limit, kept up to where the repetition began, and says why; lists and tables are not loops."""

from __future__ import annotations

import time

import pytest

from core.assembly.prompt import assemble_prompt
from core.llm.repeats import STOPPED_REPEATING, loop_start
from core.llm.settings import AnswerSettings
from core.operations.assemble.run import ask
from core.progress import Listener
from core.retrieval.pack import Pack
from fakes.llm import Reply, fake_llm  # noqa: F401  (fixture)

# ruff: noqa: F811  (the fixture is redefined as an argument)
INTRO = "The deductible is 500 EUR per claim [¹]."
SENTENCE = " Glass damage is not covered by the household policy [²]."

LIST = "\n".join(f"- Claim {n}: the deductible is {n * 100} EUR, paid within 30 days [¹]."
                 for n in range(1, 12))
TABLE = "| Item | Covered | Deductible |\n|---|---|---|\n" + "\n".join(
    f"| Item {n} | yes | {n * 50} EUR |" for n in range(1, 15))
WIDE_TABLE = "|" + "---|" * 30 + "\n|" + " x |" * 30
STEPS = "\n".join(f"{n}. Check the policy and the claim form before you pay." for n in range(1, 9))


def test_a_sentence_said_again_and_again_is_a_loop_cut_after_its_first_time():
    text = INTRO + SENTENCE * 5 + " Glass dam"
    assert text[:loop_start(text)] == INTRO + SENTENCE


def test_a_short_loop_is_one_too():
    text = "The answer is" + " the the" * 40
    cut = loop_start(text)
    assert cut is not None and text[:cut].startswith("The answer is")


@pytest.mark.parametrize("text", [LIST, TABLE, WIDE_TABLE, STEPS, INTRO + SENTENCE * 2])
def test_lists_tables_and_a_sentence_said_twice_are_not(text):
    assert loop_start(text) is None
    # nor any beginning of them, as they are checked while written
    assert all(loop_start(text[:n]) is None for n in range(1, len(text), 7))


def _assembled():
    packs = [Pack(id=f"p{n}", score=1.0, order=n, doc_id="policy", text=text,
                  spans=[(n * 100, n * 100 + len(text))], chunk_ids=[f"c{n}"],
                  hit_ids=[f"c{n}"])
             for n, text in enumerate([INTRO, SENTENCE.strip()], start=1)]
    return assemble_prompt("What is covered?", packs, headroom_tokens=100_000,
                           doc_names={"policy": "policy.pdf"})


def test_a_looping_answer_is_closed_at_the_server_and_says_why(fake_llm):
    fake_llm.serve_slowly(0.02)  # the whole loop would take about 13 s
    fake_llm.script([Reply.looping(INTRO, SENTENCE, tokens=1024)])
    heard: list[str] = []
    started = time.monotonic()
    run = ask(_assembled(), fake_llm.settings(), AnswerSettings(held_format=False),
              listener=Listener(text=heard.append))
    assert time.monotonic() - started < 4
    assert run.text == INTRO + SENTENCE and heard[-1] == run.text
    assert run.stopped == STOPPED_REPEATING and STOPPED_REPEATING in run.took()
    assert run.as_json()["stopped"] == STOPPED_REPEATING
    assert run.check.used == ["[¹]", "[²]"]
    deadline = time.monotonic() + 5
    while not fake_llm.ended and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [(phase, how) for phase, how, _ in fake_llm.ended] == [("rag_answer", "client left")]
    assert fake_llm.ended[0][2] - started < 4
    assert len(fake_llm.calls) == 1  # not asked again


def test_an_answer_that_does_not_loop_is_read_to_its_end(fake_llm):
    fake_llm.serve_slowly(0.001)
    fake_llm.script([LIST])
    run = ask(_assembled(), fake_llm.settings(), AnswerSettings(held_format=False),
              listener=Listener(text=lambda _: None))
    assert run.text == LIST and not run.stopped


def test_an_answer_run_nobody_watches_stops_a_loop_too(fake_llm, tmp_path, monkeypatch):
    """The command line's `answers` and a run in the background have no listener: their
    answers are streamed all the same, so a loop ends at its first repetition, not the limit."""
    from pathlib import Path

    from core.operations.answers.run import AnswerOptions, arms_for, configurations, run_answers
    from core.operations.questions.sets import load_from_folder

    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    fake_llm.serve_slowly(0.02)  # the whole loop would take about 13 s
    fake_llm.script([Reply.looping(INTRO, SENTENCE, tokens=1024)])
    docs = Path(__file__).resolve().parents[1] / "sample_docs"
    loaded = load_from_folder(docs / "questions" / "technical_handbook.csv", docs)
    started = time.monotonic()
    result = run_answers(loaded.questions, loaded.documents,
                         arms_for(["default"], configurations(["fixed 1000 chars"])),
                         fake_llm.settings(concurrency=1), AnswerOptions(limit=1, ranking="bm25"))
    [row] = result.arms[0].rows
    assert time.monotonic() - started < 10
    assert row.answer == INTRO + SENTENCE
    assert fake_llm.calls[0].body.get("stream") is True

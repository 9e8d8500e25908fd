"""How a server holds answers to a schema is learnt without making anyone wait: never probed
ahead of a user's request, learnt in the background when the server is idle (giving way to a
request that comes), kept on disk for later processes, and asked again by Test connection."""

from __future__ import annotations

import time

import pytest

from core.assembly.prompt import assemble_prompt
from core.llm import forms
from core.llm.client import LLMRequest
from core.llm.forms import FORMS, forms_path
from core.llm.settings import AnswerSettings
from core.llm.structured import PROBE_PHASE, OutputForm
from core.operations.assemble.run import ask
from core.operations.llm_connection import check_connection
from core.progress import Listener
from core.retrieval.pack import Pack
from fakes.llm import fake_llm  # noqa: F401  (fixture)

# ruff: noqa: F811  (the fixture is redefined as an argument)
ANSWER = "- The deductible is 500 EUR per claim [¹]."


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(forms, "IDLE_S", 0.3)
    FORMS.forget_memory()
    yield
    FORMS.forget_memory()


def _assembled():
    text = "The deductible is 500 EUR for each claim under this policy."
    pack = Pack(id="p1", score=1.0, order=1, doc_id="policy", text=text,
                spans=[(0, len(text))], chunk_ids=["c1"], hit_ids=["c1"])
    return assemble_prompt("What does a claim cost?", [pack], headroom_tokens=100_000,
                           doc_names={"policy": "policy.pdf"})


def _learnt(fake, within: float = 10.0) -> OutputForm | None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        form = FORMS.known(fake.base_url + "/v1", "fake") or FORMS.known(fake.base_url, "fake")
        if form is not None:
            return form
        time.sleep(0.05)
    return None


def test_the_first_streamed_ask_reaches_the_server_before_any_probe(fake_llm):
    fake_llm.structured = fake_llm.grammar = True  # as llama.cpp
    fake_llm.serve_llama(slots=1, queue=True)
    fake_llm.serve_slowly(0.05)
    fake_llm.script([ANSWER])
    settings = fake_llm.settings(api_key="sk-never-on-disk")
    words: list[str] = []
    run = ask(_assembled(), settings, AnswerSettings(held_format=True),
              listener=Listener(text=words.append))
    assert run.text == ANSWER and words[-1] == ANSWER
    assert fake_llm.arrivals[0] == "rag_answer"  # nothing was queued ahead of it
    assert "grammar" not in fake_llm.requests[0]  # the form was not known: the plain one

    # learnt in the background once the server was idle, and kept on disk without the key
    assert _learnt(fake_llm) == OutputForm(schema=True, grammar=True)
    assert fake_llm.arrivals[1:] == [PROBE_PHASE, PROBE_PHASE]
    on_disk = forms_path().read_text(encoding="utf-8")
    assert fake_llm.base_url in on_disk and "sk-never-on-disk" not in on_disk

    FORMS.forget_memory()  # as a second process starts
    fake_llm.reset()
    fake_llm.script([ANSWER])
    ask(_assembled(), settings, AnswerSettings(held_format=True))
    time.sleep(1.0)  # time enough for a probe, had one been sent
    assert fake_llm.arrivals == ["rag_answer"]  # read from disk, not probed
    assert "grammar" in fake_llm.requests[0]


def test_a_background_probe_gives_way_to_a_request(fake_llm):
    fake_llm.structured = True
    fake_llm.probe_delay = 30.0  # a probe the server takes long over
    with fake_llm.client() as client:
        assert client.output_form() == OutputForm()  # not known: plain, learning begins
        deadline = time.monotonic() + 10
        while PROBE_PHASE not in fake_llm.arrivals and time.monotonic() < deadline:
            time.sleep(0.02)
        assert PROBE_PHASE in fake_llm.arrivals
        started = time.monotonic()
        response = client.complete(LLMRequest("Say something.", "rag_answer", "answer"))
        assert time.monotonic() - started < 3  # not behind the 30 s probe
    assert response.text
    deadline = time.monotonic() + 5
    while len(fake_llm.ended) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert (PROBE_PHASE, "client left") in [(phase, how) for phase, how, _ in fake_llm.ended]
    fake_llm.probe_delay = 0.0
    assert _learnt(fake_llm) == OutputForm(schema=True)  # asked again once idle


def test_test_connection_asks_again_and_overrides_what_was_kept(fake_llm):
    check_connection(fake_llm.settings())
    assert FORMS.known(fake_llm.settings().base_url, "fake") == OutputForm()
    fake_llm.structured = True  # the server restarted with schemas
    FORMS.forget_memory()
    assert check_connection(fake_llm.settings()).facts.structured_output
    FORMS.forget_memory()
    assert FORMS.known(fake_llm.settings().base_url, "fake") == OutputForm(schema=True)

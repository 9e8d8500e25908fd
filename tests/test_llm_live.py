"""The model half, live: one gate per server (its line, its places, a timeout that starts when
a request is sent), requests ended at the connection when their run is cancelled, answers
streamed as they are written."""

from __future__ import annotations

import threading
import time

import pytest

from core.http.transport import Call, abortable_transport, tracked
from core.llm.client import LLMClient, LLMRequest
from core.llm.errors import LLMCancelled, LLMError
from core.llm.gate import Gate
from core.progress import Listener
from fakes.llm import Reply, fake_llm  # noqa: F401  (fixture)

# ruff: noqa: F811  (the fixture is redefined as an argument)


def _request(prompt: str = "Say something.") -> LLMRequest:
    return LLMRequest(prompt, "rag_answer", "answer")


def _ended(fake, within: float = 5.0) -> list[str]:
    deadline = time.monotonic() + within
    while not fake.ended and time.monotonic() < deadline:
        time.sleep(0.02)
    return [how for _, how, _ in fake.ended]


def test_the_gate_lets_through_one_request_per_slot_in_the_order_they_came():
    gate = Gate(1)
    first = gate.enter()
    order: list[str] = []
    places: dict[str, list[int]] = {"b": [], "c": []}

    def wait(name: str) -> None:
        ticket = gate.enter(waiting=places[name].append)
        order.append(name)
        gate.leave(ticket)

    b = threading.Thread(target=wait, args=("b",))
    b.start()
    time.sleep(0.1)
    c = threading.Thread(target=wait, args=("c",))
    c.start()
    time.sleep(0.1)
    assert gate.load() == (1, 2) and order == []
    gate.leave(first)
    b.join(2)
    c.join(2)
    assert order == ["b", "c"]
    assert places["b"] == [1] and places["c"][0] == 2  # in flight + queued before it


def test_a_cancelled_request_leaves_the_line_at_once():
    gate = Gate(1)
    held = gate.enter()
    cancel = threading.Event()
    outcome: list[BaseException] = []

    def wait() -> None:
        try:
            gate.enter(cancels=(cancel,))
        except LLMCancelled as err:
            outcome.append(err)

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.1)
    cancel.set()
    waiter.join(2)
    assert outcome and gate.load() == (1, 0)
    gate.leave(held)


def test_a_cancel_ends_a_request_at_the_server_while_it_is_computed(fake_llm):
    fake_llm.script([Reply("late", delay=20)])
    cancel = threading.Event()
    client = LLMClient(fake_llm.settings(timeout=60), cancel=cancel)
    failed: list[BaseException] = []

    def ask() -> None:
        try:
            client.complete(_request())
        except LLMError as err:
            failed.append(err)

    asking = threading.Thread(target=ask)
    asking.start()
    time.sleep(0.5)
    cancelled = time.monotonic()
    cancel.set()
    asking.join(5)
    assert not asking.is_alive() and time.monotonic() - cancelled < 2
    assert isinstance(failed[0], LLMCancelled)
    assert _ended(fake_llm) == ["client left"]  # the server stopped working on it


def test_the_transport_ends_a_call_at_its_deadline(fake_llm):
    import httpx

    fake_llm.script([Reply("late", delay=20)])
    http = httpx.Client(transport=abortable_transport(2), timeout=60)
    started = time.monotonic()
    with tracked(Call(deadline=started + 0.5)) as call, pytest.raises(httpx.TransportError):
        http.post(f"{fake_llm.base_url}/chat/completions", json={"messages": []})
    assert call.ended == "timeout" and time.monotonic() - started < 3
    assert _ended(fake_llm) == ["client left"]


def test_waiting_in_line_does_not_count_against_the_timeout(fake_llm):
    """Two requests to a one-slot server, each taking 3 s, with a 5 s timeout: the second
    waits about 3 s in line and then takes 3 s, and does not time out."""
    llama = fake_llm.serve_llama(slots=1, queue=True)
    llama.count("warm up the fake's tokenizer")
    fake_llm.respond(lambda request: Reply("fine", delay=3.0))
    settings = fake_llm.settings(timeout=5.0, timeout_from_speed=False, max_retries=0)
    places: list[int] = []
    answers: list[str] = []
    errors: list[BaseException] = []

    def ask(listener: Listener | None) -> None:
        try:
            with LLMClient(settings) as client:
                answers.append(client.complete(_request(), listener).text)
        except LLMError as err:
            errors.append(err)

    first = threading.Thread(target=ask, args=(None,))
    first.start()
    time.sleep(0.3)
    second = threading.Thread(target=ask, args=(Listener(queued=places.append),))
    second.start()
    first.join(10)
    second.join(10)
    assert errors == [] and answers == ["fine", "fine"]
    assert places and places[0] == 1  # it knew one request was ahead of it


def test_an_answer_streams_as_it_is_written(fake_llm):
    fake_llm.serve_slowly(0.05)
    fake_llm.script(["one two three four five"])
    heard: list[tuple[float, str]] = []
    started = time.monotonic()
    with fake_llm.client() as client:
        response = client.complete(_request(), Listener(
            text=lambda so_far: heard.append((time.monotonic() - started, so_far))))
    assert response.text == "one two three four five"
    assert fake_llm.requests[-1]["stream"] is True
    pieces = [text for _, text in heard if text]
    assert pieces[0] == "one " and pieces[-1] == "one two three four five"
    assert heard[-1][0] - heard[1][0] >= 0.15  # the words came over time, not at once
    assert response.answer_speed is not None  # measured from the stream's pace


def test_a_server_that_answers_a_stream_request_whole_still_works(fake_llm):
    fake_llm.script([Reply("all at once", stream=False)])
    heard: list[str] = []
    with fake_llm.client() as client:
        response = client.complete(_request(), Listener(text=heard.append))
    assert response.text == "all at once" and heard == []


def test_a_stream_cut_off_midway_is_an_error_not_a_short_answer(fake_llm):
    fake_llm.serve_slowly(0.3)
    fake_llm.respond(lambda request: "word " * 40)
    settings = fake_llm.settings(timeout=60, max_retries=0)
    with LLMClient(settings) as client:
        closing = threading.Timer(1.0, client.close)
        closing.start()
        with pytest.raises(LLMCancelled):
            client.complete(_request(), Listener(text=lambda _: None))
    assert _ended(fake_llm) == ["client left"]


def test_a_stream_times_out_between_words_not_while_they_keep_coming(fake_llm):
    fake_llm.serve_slowly(0.2)
    fake_llm.script(["word " * 15])  # 3 s of writing with a 1 s timeout
    settings = fake_llm.settings(timeout=1.0, timeout_from_speed=False, max_retries=0)
    with LLMClient(settings) as client:
        response = client.complete(_request(), Listener(text=lambda _: None))
    assert response.text.split() == ["word"] * 15


def test_estimates_come_from_the_measured_pace_and_say_so_before_any(fake_llm):
    from core.llm.speed import estimate

    fake_llm.serve_llama(predicted_per_second=10.0, prompt_per_second=100.0)
    settings = fake_llm.settings()
    before = estimate(settings.base_url, "fake", 8, 1000, 200)
    assert before.seconds is None and "not measured yet" in before.sentence("8 answers")
    with LLMClient(settings) as client:
        client.complete(_request())  # its timings measure the server
    after = estimate(settings.base_url, "fake", 8, 1000, 250, ahead=1)
    assert after.seconds == pytest.approx(9 * (1000 / 100 + 250 / 10))
    assert after.sentence("8 answers") == (
        "8 answers: about 5 min at this server's measured pace (reads 100 tokens/s, writes "
        "10.0 tokens/s), after the 1 request already waiting at the server.")


def test_the_time_left_follows_the_pace_after_a_rebase():
    from core.progress import Tracker

    seen = []
    tracker = Tracker(seen.append, 10)
    tracker.step(5, "five answers from the cache")
    tracker.rebase()
    tracker.started -= 2.0  # one asked answer took two seconds
    tracker.step(6, "one asked")
    assert seen[-1].eta_s == pytest.approx(8.0, rel=0.05)  # four more at two seconds each

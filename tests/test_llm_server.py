# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""How the client meets a real server: cut answers, context refusals, timeouts that do not pile
up, cancelled runs, rejected answers in the log, the server's tokenizer, per-phase answer lengths,
and settings fitted to what the server says about itself (fake llama.cpp server)."""

from __future__ import annotations

import json
import threading
import time

import pytest

from core.endpoint import MAX_TIMEOUT_S
from core.llm.client import TIKTOKEN_MARGIN, AnswerCutError, LLMClient, LLMRequest
from core.llm.errors import ContextExceededError, LLMCancelled, LLMError, TSVError
from core.llm.log import ResponseLog
from core.llm.phase import PhaseContext, window_budget
from core.llm.phases import METADATA, STRUCTURE
from core.llm.phases.metadata import ROW_TOKENS, SummaryRequest
from core.llm.server import ServerFacts, fit_settings, suggested_timeout
from core.operations.llm_connection import check_connection
from core.prompts.library import PromptLibrary
from fakes.llm import Reply, fake_llm  # noqa: F401  (fixture)

ONE_CHUNK = SummaryRequest("doc", "[[1]] Some text.", (1,), ("Some text.",))
REQUEST = LLMRequest("q", "chunk_metadata", "phase 3 (chunk metadata)", "v")


def client_of(fake, tmp_path, **overrides):
    return LLMClient(fake.settings(**overrides), log=ResponseLog(tmp_path / "log.jsonl"),
                     sleep=lambda s: None)


def log_lines(tmp_path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]


def test_an_answer_cut_at_the_limit_is_its_own_error(fake_llm, tmp_path):
    fake_llm.script([Reply.cut("Intro\t1\t1\t3\tRO", 1024)])
    with client_of(fake_llm, tmp_path) as client, pytest.raises(AnswerCutError) as info:
        client.complete(LLMRequest("q", "structure_analysis", "phase 1", "v"))
    assert "answer cut at 1,024 tokens" in str(info.value)
    assert "Max tokens per answer" in str(info.value)
    assert info.value.response.text == "Intro\t1\t1\t3\tRO"
    assert len(fake_llm.requests) == 1  # not retried
    entry = log_lines(tmp_path)[0]
    assert entry["error"].startswith("answer cut") and entry["response"] == "Intro\t1\t1\t3\tRO"


def test_a_short_phase_answer_cut_says_the_model_wrote_too_much(fake_llm, tmp_path):
    fake_llm.script([Reply.cut("Chapter\tSection\tNONE\tA very long", 256)])
    with client_of(fake_llm, tmp_path) as client, pytest.raises(AnswerCutError,
                                                                match="wrote more than asked"):
        client.complete(LLMRequest("q", "chunk_metadata", "phase 3", "v", max_tokens=256))


@pytest.mark.parametrize("server", ["llama.cpp", "openai"])
def test_context_refusal_is_not_retried_and_says_what_to_change(fake_llm, tmp_path, server):
    fake_llm.respond(lambda request: Reply.context_refusal(server, 9000, 4096))
    with client_of(fake_llm, tmp_path, context_tokens=8192) as client:
        with pytest.raises(ContextExceededError) as info:
            client.complete(REQUEST)
    text = str(info.value)
    assert len(fake_llm.requests) == 1
    assert "9,000 tokens do not fit the server's context of 4,096 tokens" in text
    assert "set “Model context” in Settings to 4,096" in text and "8,192 now" in text


def test_a_500_context_exceeded_is_deterministic_too(fake_llm, tmp_path):
    fake_llm.respond(lambda request: Reply(status=500, text="Context size has been exceeded."))
    with client_of(fake_llm, tmp_path) as client, pytest.raises(ContextExceededError,
                                                                match="lower “Model context”"):
        client.complete(REQUEST)
    assert len(fake_llm.requests) == 1


def test_the_fake_llama_server_refuses_a_prompt_larger_than_its_context(fake_llm, tmp_path):
    fake_llm.serve_llama(n_ctx=64)
    with client_of(fake_llm, tmp_path) as client, pytest.raises(ContextExceededError):
        client.complete(LLMRequest("word " * 200, "p", "a request"))


def test_a_timeout_is_asked_again_once_only_with_twice_the_time(fake_llm, tmp_path):
    fake_llm.respond(lambda request: Reply(text="late", delay=1.6))
    with client_of(fake_llm, tmp_path, timeout=0.5, max_retries=5) as client:
        started = time.monotonic()
        with pytest.raises(LLMError) as info:
            client.complete(REQUEST)
    assert len(fake_llm.requests) == 2  # bounded: not max_retries + 1
    assert time.monotonic() - started >= 1.5  # 0.5 s, then 1 s
    text = str(info.value)
    assert "timed out after 0.5 s and again after 1 s" in text and "once only" in text
    assert "raise the timeout in Settings" in text


def test_no_retries_means_no_timeout_retry_either(fake_llm, tmp_path):
    fake_llm.respond(lambda request: Reply(text="late", delay=1.0))
    with client_of(fake_llm, tmp_path, timeout=0.3, max_retries=0) as client:
        with pytest.raises(LLMError, match="timed out after 0.3 s: the server"):
            client.complete(REQUEST)
    assert len(fake_llm.requests) == 1


def test_closing_the_client_cancels_in_flight_requests_quietly(fake_llm, tmp_path):
    fake_llm.respond(lambda request: Reply(text="slow", delay=1.5))
    client = client_of(fake_llm, tmp_path, concurrency=1)
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            client.complete(REQUEST)
        except LLMError as err:
            errors.append(err)

    threads = [threading.Thread(target=ask) for _ in range(2)]  # one in flight, one waiting
    for thread in threads:
        thread.start()
    time.sleep(0.4)
    client.close()
    for thread in threads:
        thread.join(5)
    assert len(errors) == 2 and all(isinstance(e, LLMCancelled) for e in errors)
    log_text = (tmp_path / "log.jsonl").read_text()
    assert "cannot reach" not in log_text and "Bad file descriptor" not in log_text
    assert all(e["error"].startswith("cancelled") for e in log_lines(tmp_path))


def test_a_rejected_answer_is_logged_with_its_reason(fake_llm, tmp_path):
    fake_llm.script(["Here is the metadata:", "still not TSV"])
    library = PromptLibrary(tmp_path / "prompts")
    with client_of(fake_llm, tmp_path) as client:
        context = PhaseContext(client, {METADATA.name: library.template("chunk_metadata")})
        with pytest.raises(TSVError):
            context.ask(METADATA, ONE_CHUNK)
    entries = ResponseLog(tmp_path / "log.jsonl").tail()
    assert len(entries) == 2  # the two answers, each marked; the marks are not entries
    assert all(e["status"] == 200 and e["error"].startswith("rejected: ") for e in entries)
    assert fake_llm.requests[0]["max_tokens"] == ROW_TOKENS  # one line needs few tokens


def test_a_phase_reports_a_cut_answer_as_cut_not_as_a_format_error(fake_llm, tmp_path):
    fake_llm.script([Reply.cut("1\tThe chunk explains a summary that goes on and", ROW_TOKENS)])
    library = PromptLibrary(tmp_path / "prompts")
    with client_of(fake_llm, tmp_path) as client:
        context = PhaseContext(client, {METADATA.name: library.template("chunk_metadata")})
        with pytest.raises(AnswerCutError, match=f"answer cut at {ROW_TOKENS} tokens"):
            context.ask(METADATA, ONE_CHUNK)
    assert len(fake_llm.requests) == 1  # not asked again as if the format were wrong


def test_each_phase_asks_for_the_answer_length_it_needs(fake_llm, tmp_path):
    settings = fake_llm.settings(max_tokens=1024)
    assert METADATA.answer_limit(settings) == 3 * ROW_TOKENS  # three chunks' lines
    assert STRUCTURE.answer_limit(settings) == 1024
    assert METADATA.answer_limit(fake_llm.settings(max_tokens=100)) == 100


def test_the_servers_tokenizer_sizes_the_windows(fake_llm, tmp_path):
    template = PromptLibrary(tmp_path / "p").template("structure_analysis")
    settings = fake_llm.settings(context_tokens=8192, max_tokens=1024)
    with client_of(fake_llm, tmp_path) as client:
        assert client.token_ratio(template.text) == TIKTOKEN_MARGIN  # no /tokenize: a margin
        assert client.count_tokens("abc") is None
    fake_llm.serve_llama(tokens_per_tiktoken=1.3)
    with client_of(fake_llm, tmp_path) as client:
        ratio = client.token_ratio(template.text)
        assert 1.3 <= ratio <= 1.3 * 1.05
    plain = window_budget(settings, template)
    measured = window_budget(settings, template, ratio=ratio)
    assert measured < plain and (8192 - 1024 - 64) / ratio - measured < 2000


def test_a_client_never_exceeds_the_servers_context_or_slots(fake_llm, tmp_path):
    fake_llm.serve_llama(n_ctx=2048, slots=1)
    client = client_of(fake_llm, tmp_path, context_tokens=8192, concurrency=4)
    fake_llm.respond(lambda request: Reply(text="ok", delay=0.4))
    with client:
        threads = [threading.Thread(target=client.complete, args=(REQUEST,)) for _ in range(3)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        elapsed = time.monotonic() - started
    assert (client.settings.context_tokens, client.settings.concurrency) == (2048, 1)
    assert elapsed >= 1.2  # one at a time: the server has one slot
    assert fake_llm.gets.count("/props") == 1  # asked once per client


def test_a_plain_server_leaves_the_limits_alone(fake_llm, tmp_path):
    with client_of(fake_llm, tmp_path, context_tokens=8192, concurrency=4) as client:
        client.complete(REQUEST)
        assert (client.settings.context_tokens, client.settings.concurrency) == (8192, 4)


def test_connection_check_reads_the_server_and_fits_the_settings(fake_llm):
    fake_llm.serve_llama(n_ctx=2048, slots=2, n_params=360_000_000, predicted_per_second=20.0,
                         prompt_per_second=200.0)
    report = check_connection(fake_llm.settings(concurrency=4, max_tokens=1024, timeout=60))
    facts = report.facts
    assert (facts.context_tokens, facts.slots, facts.tokenizer) == (2048, 2, True)
    assert facts.model_params == 360_000_000 and facts.answer_speed == 20.0
    fitted = report.suggested
    assert (fitted.context_tokens, fitted.concurrency, fitted.max_tokens) == (2048, 2, 512)
    # (512 / 20 + 2048 / 200) s per answer, two at once, with a margin of 1.5: 110 s
    assert fitted.timeout == 110.0
    assert report.followed and report.summary("fake").startswith("Connected: fake answered")


def test_a_plain_openai_server_keeps_the_settings(fake_llm):
    settings = fake_llm.settings(concurrency=4, context_tokens=8192)
    report = check_connection(settings)
    assert not report.facts.known
    assert report.suggested == settings


def test_a_model_that_does_not_follow_the_probe_is_reported(fake_llm):
    fake_llm.script([Reply.cut("Sure! Here is a poem about the word OK and", 16)])
    report = check_connection(fake_llm.settings())
    assert not report.followed
    assert report.summary("fake").startswith(
        "Connected, but the model did not follow a simple instruction")


def test_timeout_without_a_measured_speed():
    from core.llm.settings import LLMSettings

    settings = LLMSettings(timeout=60)
    assert suggested_timeout(settings, ServerFacts()) == 60
    assert suggested_timeout(settings, ServerFacts(slots=1)) == 300
    slow = fit_settings(settings.model_copy(update={"max_tokens": 4096, "concurrency": 4}),
                        ServerFacts(slots=4, answer_speed=2.0))
    assert slow.timeout == MAX_TIMEOUT_S  # never above the most Settings allow


def test_a_cancelled_run_does_not_log_unreachable_servers(fake_llm, tmp_path, monkeypatch):
    from core.documents import convert
    from core.operations.strategies import RunOptions, run_llm
    from core.progress import Cancelled

    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    fake_llm.respond(lambda request: Reply(text="Intro\t1\t1\t1\tROOT", delay=2.0))
    documents = [convert(f"# Doc {n}\n\nSome text {n}.".encode(), f"d{n}.md") for n in range(3)]
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    with pytest.raises(Cancelled):
        run_llm(documents, {"cache": False}, RunOptions(llm=fake_llm.settings(concurrency=2),
                                                        cancel=cancel))
    time.sleep(2.5)  # the abandoned requests end meanwhile
    log = ResponseLog()
    text = log.path.read_text() if log.path.exists() else ""
    assert "cannot reach" not in text and "Bad file descriptor" not in text


def test_each_request_waits_as_long_as_the_measured_speed_says(fake_llm, tmp_path):
    fake_llm.serve_llama(slots=1, n_ctx=8192, prompt_per_second=4.0, predicted_per_second=1.0)
    long_prompt = LLMRequest("word " * 3000, "p", "a long request", max_tokens=200)
    with client_of(fake_llm, tmp_path, timeout=60, concurrency=1) as client:
        client.token_ratio("sample")  # meets the server: it has slots, so it is local
        assumed = client.request_timeout(long_prompt)  # no speed measured yet: 5 and 2 tok/s
        assert assumed > 60
        client.complete(LLMRequest("hi", "p", "a short request", max_tokens=4))
        measured = client.request_timeout(long_prompt)  # now 4 and 1 tokens/s
        assert measured > assumed
        assert client.request_timeout(LLMRequest("hi", "p", "short", max_tokens=4)) == 60
    with client_of(fake_llm, tmp_path, timeout=60, timeout_from_speed=False) as fixed:
        fixed.complete(LLMRequest("hi", "p", "a short request", max_tokens=4))
        assert fixed.request_timeout(long_prompt) == 60


def test_a_server_without_slots_keeps_the_settings_timeout(fake_llm, tmp_path):
    with client_of(fake_llm, tmp_path, timeout=42) as client:
        client.complete(LLMRequest("hi", "p", "a short request", max_tokens=4))
        assert client.request_timeout(LLMRequest("word " * 3000, "p", "long")) == 42

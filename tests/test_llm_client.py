# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""The HTTP client against the fake server: answers, retries, errors, the log, the settings."""

from __future__ import annotations

import json

import pytest

from core.llm.client import LLMClient, LLMError, LLMRequest
from core.llm.log import ResponseLog
from core.llm.settings import (
    ENDPOINT_PRESETS,
    LLMSettings,
    load_settings,
    save_settings,
    settings_path,
)
from fakes.llm import Reply, fake_llm  # noqa: F401  (fixture)

SECRET = "sk-test-secret-123"
REQUEST = LLMRequest("q", "p", "a test request", "v")


def make_client(fake, tmp_path, sleeps=None, **overrides):
    settings = fake.settings(api_key=SECRET, **overrides)
    sleep = sleeps.append if sleeps is not None else (lambda s: None)
    return LLMClient(settings, log=ResponseLog(tmp_path / "log.jsonl"), sleep=sleep)


def test_complete_returns_text_tokens_and_logs_without_key(fake_llm, tmp_path):
    fake_llm.script(["Intro\t1\t1\t3\tROOT"])
    with make_client(fake_llm, tmp_path) as client:
        answer = client.complete(LLMRequest("hello", "structure_analysis", "structure", "abc"))
    assert answer.text == "Intro\t1\t1\t3\tROOT"
    assert answer.prompt_tokens > 0 and answer.completion_tokens > 0
    assert answer.model == "fake"
    body = fake_llm.requests[0]
    assert body["messages"] == [{"role": "user", "content": "hello"}]
    assert body["temperature"] == 0.3 and body["model"] == "fake"
    assert fake_llm.phases == ["structure_analysis"]
    log_text = (tmp_path / "log.jsonl").read_text()
    assert SECRET not in log_text
    entry = json.loads(log_text.splitlines()[0])
    assert entry["phase"] == "structure_analysis" and entry["template_version"] == "abc"
    assert entry["response"] == "Intro\t1\t1\t3\tROOT" and entry["latency_s"] >= 0


def test_429_then_success_waits_what_retry_after_asks(fake_llm, tmp_path):
    fake_llm.script([Reply(status=429, headers={"Retry-After": "2"}), "fine"])
    sleeps: list[float] = []
    with make_client(fake_llm, tmp_path, sleeps) as client:
        answer = client.complete(LLMRequest("q", "chunk_metadata", "metadata", "v"))
    assert answer.text == "fine"
    assert sleeps == [2.0]
    assert len(fake_llm.requests) == 2


def test_real_retry_after_delay_is_waited(fake_llm, tmp_path):
    import time

    fake_llm.script([Reply(status=429, headers={"Retry-After": "1"}), "ok"])
    settings = fake_llm.settings()
    with LLMClient(settings, log=ResponseLog(tmp_path / "l.jsonl")) as client:
        started = time.monotonic()
        assert client.complete(REQUEST).text == "ok"
    assert time.monotonic() - started >= 1.0


def test_500_forever_gives_up_after_bounded_attempts(fake_llm, tmp_path):
    fake_llm.respond(lambda request: Reply(status=500, text="boom"))
    sleeps: list[float] = []
    with make_client(fake_llm, tmp_path, sleeps, max_retries=2) as client:
        with pytest.raises(LLMError) as info:
            client.complete(LLMRequest("q", "boundary_detection",
                                       "phase 2 (boundary detection)", "v"))
    assert len(fake_llm.requests) == 3
    assert sleeps == [0.5, 1.0]  # exponential backoff between attempts
    err = info.value
    assert err.label == "phase 2 (boundary detection)" and err.log_path == tmp_path / "log.jsonl"
    assert "phase 2 (boundary detection) failed: HTTP 500" in str(err)
    assert "3 attempts" in str(err) and str(tmp_path / "log.jsonl") in str(err)
    assert len((tmp_path / "log.jsonl").read_text().splitlines()) == 3


def test_timeout_is_retried_then_reported(fake_llm, tmp_path):
    fake_llm.script([Reply(text="late", delay=1.5), "in time"])
    with make_client(fake_llm, tmp_path, timeout=0.5, max_retries=1) as client:
        assert client.complete(REQUEST).text == "in time"
    fake_llm.reset()
    fake_llm.respond(lambda request: Reply(text="late", delay=1.5))
    with make_client(fake_llm, tmp_path, timeout=0.5, max_retries=1) as client:
        with pytest.raises(LLMError, match="timed out after 0.5 s"):
            client.complete(REQUEST)
    assert len(fake_llm.requests) == 2


def test_client_error_is_not_retried(fake_llm, tmp_path):
    fake_llm.respond(lambda request: Reply(status=401, text="bad key"))
    with make_client(fake_llm, tmp_path) as client:
        with pytest.raises(LLMError, match="HTTP 401"):
            client.complete(REQUEST)
    assert len(fake_llm.requests) == 1


def test_non_json_answer_is_an_llm_error(fake_llm, tmp_path):
    fake_llm.script([Reply(raw="<html>proxy error</html>")])
    with make_client(fake_llm, tmp_path) as client:
        with pytest.raises(LLMError, match="did not return a chat completion"):
            client.complete(REQUEST)


def test_think_block_is_dropped(fake_llm, tmp_path):
    fake_llm.script(["<think>counting…</think>\nanswer"])
    with make_client(fake_llm, tmp_path) as client:
        assert client.complete(REQUEST).text == "answer"


def test_list_models_and_unreachable_endpoint(fake_llm, tmp_path):
    with make_client(fake_llm, tmp_path) as client:
        assert client.list_models() == ["fake"]
    dead = LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", timeout=1, max_retries=0)
    with LLMClient(dead, log=ResponseLog(tmp_path / "l.jsonl")) as client:
        with pytest.raises(LLMError, match="cannot reach 127.0.0.1:9"):
            client.complete(REQUEST)


def test_unconfigured_settings_say_what_to_set():
    with pytest.raises(LLMError, match="LLM_BASE_URL and LLM_MODEL"):
        LLMClient(LLMSettings())


def test_settings_sources_and_the_key_never_saved(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))  # saved settings stay here
    for env in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL"):
        monkeypatch.delenv(env, raising=False)
    save_settings(LLMSettings(base_url="http://saved/v1", model="saved", api_key=SECRET,
                              temperature=0.7, concurrency=2))
    assert SECRET not in settings_path().read_text()
    loaded = load_settings()
    assert (loaded.base_url, loaded.model, loaded.temperature, loaded.concurrency) == (
        "http://saved/v1", "saved", 0.7, 2)
    assert loaded.api_key.get_secret_value() == ""
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit/secrets.toml").write_text(
        'LLM_API_KEY = "from-secrets"\n[llm]\nmodel = "secret-model"\n')
    loaded = load_settings()
    assert loaded.api_key.get_secret_value() == "from-secrets" and loaded.model == "secret-model"
    monkeypatch.setenv("LLM_MODEL", "env-model")
    monkeypatch.setenv("LLM_BASE_URL", "http://env/v1")
    loaded = load_settings()
    assert (loaded.base_url, loaded.model) == ("http://env/v1", "env-model")
    assert "from-secrets" not in repr(loaded) and "from-secrets" not in str(loaded.public_dict())


def test_settings_validate_ranges_and_presets():
    with pytest.raises(ValueError):
        LLMSettings(temperature=2.5)
    assert LLMSettings().temperature == 0.3 and LLMSettings().concurrency == 4
    assert ENDPOINT_PRESETS["Ollama"].base_url == "http://127.0.0.1:11434/v1"
    assert ENDPOINT_PRESETS["llama.cpp server"].base_url == "http://127.0.0.1:8080/v1"

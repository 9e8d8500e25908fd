"""Opt-in: the client against a real OpenAI-compatible server (`pytest -m realllm`).

Point ``LLM_BASE_URL`` (and ``LLM_MODEL``, ``LLM_API_KEY`` when needed) at a server — for
instance ``make llm GGUF=model.gguf`` and ``LLM_BASE_URL=http://127.0.0.1:8080/v1
LLM_MODEL=local`` — and run ``pytest -m realllm``. Without ``LLM_BASE_URL`` every test is
skipped with that reason; ``make test`` deselects them. They check what fake servers cannot
prove: the model list, a context refusal, an answer cut at its token limit, a timeout, the
facts a llama.cpp server tells (``make llm`` serves one), a summary held to compact JSON by a
grammar, and tolerant LLM chunking of a small document completing with exact spans.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from core.documents import convert
from core.llm.client import AnswerCutError, LLMClient, LLMRequest
from core.llm.errors import ContextExceededError, LLMError
from core.llm.log import ResponseLog
from core.llm.phases.metadata import SUMMARY_CHARS, SUMMARY_PATTERN
from core.llm.server import read_facts
from core.llm.settings import load_settings
from core.llm.structured import rows_schema
from core.operations.llm_connection import check_connection
from core.operations.strategies import RunOptions, run_llm
from tests.docfactory import GUIDE_MARKDOWN

pytestmark = [
    pytest.mark.realllm,
    pytest.mark.skipif(not os.environ.get("LLM_BASE_URL"),
                       reason="LLM_BASE_URL is not set: point it (and LLM_MODEL) at an "
                              "OpenAI-compatible server to run the real-server tests"),
]
LONG = "Write a long story about a lighthouse keeper, with many details."


@pytest.fixture(scope="module")
def settings():
    loaded = load_settings()
    if not loaded.model:
        with LLMClient(loaded.model_copy(update={"model": "-"})) as client:
            loaded = loaded.model_copy(update={"model": client.list_models()[0]})
    return loaded.model_copy(update={"max_retries": 0, "timeout": 300.0})


def client_of(settings, tmp_path, **update):
    return LLMClient(settings.model_copy(update=update), log=ResponseLog(tmp_path / "l.jsonl"))


def test_model_list_and_connection(settings):
    report = check_connection(settings)
    assert report.models, "the server lists no model at /models"
    assert report.completion_tokens > 0


def test_context_refusal_is_recognised(settings, tmp_path):
    with client_of(settings, tmp_path) as client:
        facts = read_facts(client, client.models())
        context = facts.context_tokens or 200_000
        prompt = "lighthouse " * (context * 2)
        with pytest.raises(ContextExceededError) as info:
            client.complete(LLMRequest(prompt, "realllm", "a too long prompt", max_tokens=16))
    assert "asking again cannot help" in str(info.value)


def test_answer_cut_at_the_token_limit(settings, tmp_path):
    with client_of(settings, tmp_path) as client, pytest.raises(AnswerCutError) as info:
        client.complete(LLMRequest(LONG, "realllm", "a long answer", max_tokens=8))
    assert "answer cut at 8 tokens" in str(info.value)
    assert info.value.response.completion_tokens <= 8


def test_a_timeout_is_asked_again_once_only(settings, tmp_path):
    with client_of(settings, tmp_path, timeout=0.05, max_retries=3,
                   timeout_from_speed=False) as client:
        with pytest.raises(LLMError, match="timed out after 0.05 s and again after 0.1 s"):
            client.complete(LLMRequest(LONG, "realllm", "a slow answer", max_tokens=512))
    attempts = [json.loads(line) for line in (tmp_path / "l.jsonl").read_text().splitlines()]
    assert len(attempts) == 2


def test_a_llama_cpp_server_tells_its_facts(settings):
    report = check_connection(settings)
    if report.facts.slots is None:
        pytest.skip("not a llama.cpp server: it says nothing of its slots")
    facts = report.facts
    assert facts.context_tokens and facts.tokenizer and facts.answer_speed
    assert report.suggested.concurrency <= facts.slots
    assert report.suggested.context_tokens == max(facts.context_tokens, 1024)


def test_a_summary_held_to_a_grammar_comes_back_compact_and_opening_as_asked(settings, tmp_path):
    # (llama.cpp turns a response_format schema's pattern into nothing: only its grammar holds)
    if not check_connection(settings).facts.compact_json:
        pytest.skip("the server takes no GBNF grammar (llama.cpp does)")
    schema = rows_schema(("chunk", "summary"), numeric=(0,), max_chars=SUMMARY_CHARS,
                         pattern=SUMMARY_PATTERN, keys=(4, 5))
    prompt = ("Summarise each passage in one sentence.\n[[4]] Cranes stop lifting when the mean "
              "wind speed at the boom tip exceeds 20 m/s. Above 28 m/s they are parked at the "
              "storm pins.\n[[5]] Work orders and photos are kept for ten years.")
    with client_of(settings, tmp_path) as client:
        answer = client.complete(LLMRequest(prompt=prompt, phase="chunk_metadata", label="t",
                                            max_tokens=240, schema=schema, compact=True)).text
    rows = json.loads(answer)["rows"]
    assert answer == json.dumps({"rows": rows}, separators=(",", ":"), ensure_ascii=False)
    assert [row["chunk"] for row in rows] == [4, 5]  # exactly the chunks asked, in order
    for row in rows:
        assert 0 < len(row["summary"]) <= SUMMARY_CHARS
        assert re.match(SUMMARY_PATTERN, row["summary"]), row["summary"]


def test_tolerant_llm_chunking_summarises_every_chunk(settings, tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    document = convert(GUIDE_MARKDOWN.encode(), "guide.md")
    run = run_llm([document], {"parsing": "tolerant", "cache": False},
                  RunOptions(llm=settings))[0]
    assert run.error is None, run.error
    assert all(c.summary and c.context_prefix.startswith("This chunk is from")
               for c in run.chunks), run.warning_lines()


def test_tolerant_llm_chunking_completes_with_exact_spans(settings, tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    document = convert(GUIDE_MARKDOWN.encode(), "guide.md")
    run = run_llm([document], {"parsing": "tolerant", "summaries": False, "cache": False},
                  RunOptions(llm=settings))[0]
    assert run.error is None, run.error
    assert run.chunks and all(c.text == document.text[c.start : c.end] for c in run.chunks)
    assert " ".join(document.text[c.start : c.end] for c in run.chunks).split() == \
        document.text.split()  # every word in exactly one chunk (chunks end on a word)

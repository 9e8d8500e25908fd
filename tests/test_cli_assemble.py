# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""`python -m core assemble`: JSON on stdout, one stderr line and exit 2 on bad input; `--ask`
sends the prompt with the saved answer model and temperature."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.cli import main
from core.llm.settings import AnswerSettings, save_answer_settings
from core.store import ChunkStore
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.retrieval_helpers import handbook_set

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "What does a consumer group do?"


@pytest.fixture(scope="module")
def chunk_set():
    handbook_set(ChunkStore(), "cli-handbook")  # the session's data folder, as the CLI sees it
    return "cli-handbook"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["assemble", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_the_assembled_prompt_as_json(capsys, chunk_set):
    code, out, _ = run(capsys, "--chunk-set", chunk_set, "--question", QUESTION,
                       "--rank", "hybrid", "--limit", "3", "--headroom", "100000")
    assert code == 0
    data = json.loads(out)
    assert data["prompt"]["user"].startswith(QUESTION + "\n\nContext:\n\n[¹]\nDoc: ")
    assert [c["marker"] for c in data["citations"]] == ["[¹]", "[²]", "[³]"]
    assert data["budget"]["rule"] == "headroom" and data["budget"]["packs_dropped"] == 0
    assert "[¹]" in out  # non-ASCII written as is, not escaped


def test_options_reach_retrieval_and_assembly(capsys, chunk_set):
    code, out, _ = run(capsys, "--chunk-set", chunk_set, "--question", QUESTION,
                       "--rank", "bm25", "--limit", "2", "--neighbors", "1",
                       "--citation-style", "footnote", "--style", "summarize",
                       "--context-tokens", "1500", "--estimator", "chars", "--with-packs")
    assert code == 0
    data = json.loads(out)
    assembled, packs = data["assembled"], data["packs"]
    assert assembled["style"] == "summarize" and assembled["citation_style"] == "footnote"
    assert all(c["marker"].startswith("[^") for c in assembled["citations"])
    budget = assembled["budget"]
    assert budget["rule"] == "context" and budget["estimator"] == "chars"
    assert assembled["tokens_estimated"] == (len(assembled["prompt"]["system"])
                                             + len(assembled["prompt"]["user"]))
    assert assembled["tokens_estimated"] + 300 <= 1500
    assert 1 <= len(packs) <= 2 and all(len(p["chunk_ids"]) >= 2 for p in packs)


def test_merged_neighbours_come_back_as_packs_of_whole_runs(capsys, chunk_set):
    code, out, _ = run(capsys, "--chunk-set", chunk_set, "--question", QUESTION,
                       "--rank", "hybrid", "--limit", "3", "--merge-neighbours", "--with-packs")
    assert code == 0
    packs = json.loads(out)["packs"]
    chunks = {c.id: c for c in ChunkStore().get_chunks(chunk_set)}
    in_order = sorted(chunks.values(), key=lambda c: (c.start, c.end))
    position = {c.id: n for n, c in enumerate(in_order)}
    assert 1 <= len(packs) <= 3
    for pack in packs:
        places = [position[i] for i in pack["chunk_ids"]]
        assert places == list(range(places[0], places[0] + len(places)))  # a contiguous run
        assert sorted(pack["hit_ids"], key=position.__getitem__) == pack["chunk_ids"]


def test_same_input_same_bytes(capsys, chunk_set):
    args = ("--chunk-set", chunk_set, "--question", QUESTION, "--rank", "hybrid")
    assert run(capsys, *args)[1] == run(capsys, *args)[1]


def test_unknown_chunk_set_is_one_line_and_exit_2(capsys, chunk_set):
    code, out, err = run(capsys, "--chunk-set", "no-such-set", "--question", QUESTION)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "no-such-set" in err


@pytest.fixture(scope="module")
def long_chunks():
    """Chunks of up to 600 tokens, as a PDF's often are: more than a 300-token headroom."""
    handbook_set(ChunkStore(), "cli-handbook-600", size=600)
    return "cli-handbook-600"


def test_by_default_the_passages_get_what_the_answer_model_allows(capsys, long_chunks,
                                                                  monkeypatch):
    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    args = ("--chunk-set", long_chunks, "--question", QUESTION, "--rank", "hybrid")
    code, out, err = run(capsys, *args)
    budget = json.loads(out)["budget"]
    assert code == 0 and budget["rule"] == "headroom" and budget["headroom_tokens"] == 2000
    assert budget["pack_tokens"][0] > 300 and budget["packs_kept"] >= 1  # the top hits kept
    assert "Passage budget: no answer model is configured: 2,000 tokens" in err
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LLM_MODEL", "small-model")
    code, out, err = run(capsys, *args)
    assert "a quarter of the 8,192-token context of the answer model small-model" in err
    assert json.loads(out)["budget"]["headroom_tokens"] == 2000  # 8,192 / 4, to the hundred
    code, out, err = run(capsys, *args, "--headroom", "300")  # the headroom rule stays
    assert json.loads(out)["budget"]["headroom_tokens"] == 300 and "Passage budget" not in err


def test_a_prompt_that_keeps_no_passage_says_so_and_what_would_keep_one(capsys, long_chunks):
    args = ("--chunk-set", long_chunks, "--question", QUESTION, "--rank", "hybrid")
    code, out, err = run(capsys, *args, "--headroom", "300")
    assert code == 0 and json.loads(out)["citations"] == []
    found = re.search(r"No passage fits the budget: the best one needs ([\d,]+) tokens\. Raise "
                      r"the passage budget to ([\d,]+) tokens to keep it\.", err)
    assert found, err
    code, out, err = run(capsys, *args, "--headroom", found.group(2).replace(",", ""))
    assert len(json.loads(out)["citations"]) == 1 and "No passage fits" not in err


def test_bad_choice_exits_2_from_a_real_process():
    proc = subprocess.run(
        [sys.executable, "-m", "core", "assemble", "--question", "q", "--rank", "tfidf"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert "invalid choice: 'tfidf'" in proc.stderr and proc.stderr.count("\n") == 1


@pytest.fixture
def endpoint(fake_llm, monkeypatch):
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    path = save_answer_settings(AnswerSettings(model="answer-model", temperature=1.1))
    yield fake_llm
    path.unlink()


def test_ask_prints_the_answer_with_its_citations_checked(capsys, chunk_set, endpoint):
    endpoint.script(["Consumers share the partitions [¹] and [⁹]."])
    code, out, err = run(capsys, "--chunk-set", chunk_set, "--question", QUESTION,
                         "--limit", "2", "--headroom", "100000", "--ask")
    assert code == 0, err
    data = json.loads(out)
    assert data["answer"] == "Consumers share the partitions [¹] and [⁹]."
    assert data["citations"] == {"ok": False, "used": ["[¹]"], "unknown": ["[⁹]"],
                                 "unused": ["[²]"]}
    body = endpoint.requests[-1]
    assert (body["model"], body["temperature"]) == ("answer-model", 1.1)
    assert (data["model"], data["temperature"]) == ("answer-model", 1.1)
    assert endpoint.phases == ["rag_answer"]
    assert QUESTION in body["messages"][0]["content"]


def test_ask_reports_a_sentence_the_answer_repeats(capsys, chunk_set, endpoint):
    endpoint.script(["Consumers in a group share the partitions [¹]. " * 3])
    code, out, err = run(capsys, "--chunk-set", chunk_set, "--question", QUESTION,
                         "--limit", "1", "--headroom", "100000", "--ask")
    assert code == 0, err
    assert json.loads(out)["repeats"] == [
        {"sentence": "Consumers in a group share the partitions [¹].", "times": 3}]


def test_ask_without_an_endpoint_is_one_line_and_exit_2(capsys, chunk_set, monkeypatch):
    for name in ("LLM_BASE_URL", "LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(ROOT / "tests")  # no .streamlit/secrets.toml here
    code, out, err = run(capsys, "--chunk-set", chunk_set, "--question", QUESTION, "--ask")
    assert code == 2 and out == ""
    assert err.startswith("error: No LLM endpoint configured") and err.count("\n") == 1


def test_ask_writes_the_answer_to_stderr_as_it_comes(capsys, chunk_set, endpoint):
    endpoint.serve_slowly(0.01)
    endpoint.script(["Consumers share the\npartitions [¹]. \x1b[31mred"])
    code, out, err = run(capsys, "--chunk-set", chunk_set, "--question", QUESTION,
                         "--limit", "2", "--headroom", "100000", "--ask")
    assert code == 0, err
    assert json.loads(out)["answer"].startswith("Consumers share the\npartitions [¹].")
    assert "Consumers share the\npartitions [¹]. \\x1b[31mred\n" in err  # escaped, not obeyed
    assert "Answer from answer-model" in err and endpoint.requests[-1]["stream"] is True


def test_ctrl_c_closes_the_request_and_exits_130(chunk_set, fake_llm, tmp_path):
    fake_llm.serve_slowly(0.25)
    fake_llm.respond(lambda request: "word " * 200)
    env = {**os.environ, "LLM_BASE_URL": fake_llm.base_url, "LLM_MODEL": "fake"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "core", "assemble", "--chunk-set", chunk_set, "--question",
         QUESTION, "--limit", "1", "--headroom", "100000", "--ask"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        assert proc.stderr.read(5) == "word "  # the answer is being written
        proc.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        assert proc.wait(timeout=10) == 130
        assert time.monotonic() - interrupted < 5
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 5
    while not fake_llm.ended and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [how for _, how, _ in fake_llm.ended] == ["client left"]
    assert "interrupted" in proc.stderr.read()

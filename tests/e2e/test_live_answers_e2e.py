"""Browser: a model answer is live. Against a slow fake server (one slot, a word every 0.25 s)
Assemble's answer appears while it is written; a reload mid-answer ends the request at the
server; a second session waits in line with its place shown, and its timeout does not run while
it waits; SIGTERM with a request open stops the app within 10 s."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from core.library import DocumentLibrary
from core.store import ChunkStore
from fakes.http import running
from fakes.llm import FakeLLM, Reply, auto_answer
from tests.docfactory import CLAIMS_HANDBOOK
from tests.e2e.browser import ARTIFACTS, ROOT, RUNS_JS, pick, type_number, wait_for_app
from tests.retrieval_helpers import HANDBOOK, SAMPLES, handbook_set

pytestmark = pytest.mark.e2e
QUESTION = "How many coordinator failures does a cluster with five coordinators tolerate?"
WORD_DELAY = 0.25
ANSWER = " ".join(["A five-coordinator cluster tolerates two failures [¹]."]
                  + [f"Point {n} of the handbook's advice applies here [¹]." for n in range(1, 7)])
FIRST_WORDS = "A five-coordinator cluster"


@pytest.fixture
def slow_llm() -> Iterator[FakeLLM]:
    with running(FakeLLM()) as server:
        server.serve_llama(slots=1, queue=True, n_ctx=8192)
        server.serve_slowly(WORD_DELAY)
        server.respond(lambda request: ANSWER)
        yield server


def _data(tmp_path: Path, timeout: float | None = None) -> Path:
    data = tmp_path / "data"
    handbook_set(ChunkStore(data / "chroma"), "handbook recursive 200")
    DocumentLibrary(data / "documents").add((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    if timeout is not None:  # a fixed timeout, not one fitted to the server's speed
        (data / "llm_settings.json").write_text(json.dumps(
            {"timeout": timeout, "timeout_from_speed": False, "max_retries": 0}))
    return data


def _env(data: Path, llm: FakeLLM) -> dict[str, str]:
    return {"CHUNKLAB_DATA_DIR": str(data), "LLM_BASE_URL": llm.base_url, "LLM_MODEL": "fake"}


def _ask(page: Page, url: str) -> float:
    """Open Assemble, ask the question, click "Ask the LLM"; when the click happened."""
    page.goto(f"{url}/assemble")
    wait_for_app(page)
    question = page.get_by_label("Question")
    question.fill(QUESTION)
    question.press("Control+Enter")
    wait_for_app(page)
    button = page.get_by_role("button", name="Ask the LLM")
    expect(button).to_be_visible(timeout=120_000)
    clicked = time.monotonic()
    button.click()
    return clicked


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ended(llm: FakeLLM, how: str, within: float, phase: str = "rag_answer") -> float | None:
    """Seconds until the fake records a ``phase`` request ending ``how``; None if not within
    ``within``."""
    start = time.monotonic()
    while time.monotonic() - start < within:
        if any(h == how for asked, h, _ in llm.ended if asked == phase):
            return time.monotonic() - start
        time.sleep(0.1)
    return None


def test_the_answer_appears_while_it_is_written(page, start_app, tmp_path, slow_llm):
    url = start_app(env=_env(_data(tmp_path), slow_llm))
    clicked = _ask(page, url)
    expect(page.get_by_text(FIRST_WORDS).first).to_be_visible(timeout=10_000)
    first_words_after = time.monotonic() - clicked
    still_writing = not any(phase == "rag_answer" for phase, _, _ in slow_llm.ended)
    expect(page.get_by_text("tokens/s").first).to_be_visible()  # the pace under the answer
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "assemble_answer_streaming.png"), full_page=True)
    assert first_words_after < 8, f"first words {first_words_after:.1f} s after the click"
    assert still_writing, "the answer was complete before its first words were shown"
    wait_for_app(page, timeout_ms=60_000)
    expect(page.get_by_text("Point 6 of the handbook").first).to_be_visible()
    expect(page.get_by_text("Answer from fake").first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_a_reload_mid_answer_ends_the_request_at_the_server(page, start_app, tmp_path,
                                                            slow_llm):
    url = start_app(env=_env(_data(tmp_path), slow_llm))
    _ask(page, url)
    expect(page.get_by_text(FIRST_WORDS).first).to_be_visible(timeout=20_000)
    page.reload()
    left = _ended(slow_llm, "client left", within=15)
    assert left is not None, f"the request went on after the reload: {slow_llm.ended}"
    assert not any(h == "done" for _, h, _ in slow_llm.ended)


def test_a_second_session_waits_in_line_and_its_timeout_does_not_run(
        page, browser: Browser, start_app, tmp_path, slow_llm):
    # The first answer takes about 30 s; the second a few. The timeout fits an answer, not a
    # wait behind the first and then an answer.
    slow_llm.script([Reply(text=" ".join(  # long, and never a loop (that would be cut off)
        [ANSWER] + [f"Detail {n}: the cluster keeps {n + 2} copies of each record [¹]."
                    for n in range(1, 7)]))])
    slow_llm.respond(lambda request: "A five-coordinator cluster tolerates two failures [¹].")
    timeout = 15.0
    url = start_app(env=_env(_data(tmp_path, timeout=timeout), slow_llm))
    _ask(page, url)
    expect(page.get_by_text(FIRST_WORDS).first).to_be_visible(timeout=20_000)
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    context.add_init_script(RUNS_JS)  # what wait_for_app reads
    second = context.new_page()
    try:
        asked = _ask(second, url)
        expect(second.get_by_text("1 request ahead of yours")).to_be_visible(timeout=10_000)
        second.screenshot(path=str(ARTIFACTS / "assemble_waiting_in_line.png"), full_page=True)
        wait_for_app(second, timeout_ms=120_000)
        waited = time.monotonic() - asked
        expect(second.get_by_text("Answer from fake").first).to_be_visible()
        expect(second.get_by_text(FIRST_WORDS).first).to_be_visible()
        expect(second.get_by_text("timed out")).to_have_count(0)
    finally:
        second.screenshot(path=str(ARTIFACTS / "assemble_second_tab.png"), full_page=True)
        context.close()
    assert waited > timeout, (waited, slow_llm.ended, [len(c.prompt) for c in slow_llm.calls])
    assert [h for phase, h, _ in slow_llm.ended if phase == "rag_answer"] == ["done", "done"]


def test_sigterm_with_a_request_open_stops_the_app_within_ten_seconds(page, tmp_path,
                                                                      slow_llm):
    data = _data(tmp_path)
    port = _free_port()
    log = open(tmp_path / "streamlit.log", "wb")  # noqa: SIM115
    app = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env={**os.environ, **_env(data, slow_llm)}, stdout=log,
        stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        _ask(page, url)
        expect(page.get_by_text(FIRST_WORDS).first).to_be_visible(timeout=20_000)
        sent = time.monotonic()
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail("the app was still running 10 s after SIGTERM with a request open")
        assert time.monotonic() - sent < 10
        assert _ended(slow_llm, "client left", within=5) is not None
    finally:
        if app.poll() is None:
            app.kill()
        log.close()


def test_question_generation_shows_each_question_and_a_reload_keeps_the_kept_ones(
        page, start_app, tmp_path, slow_llm):
    """Each question shows as it is kept or dropped, with its reason; the draft holds every
    kept question at once, so a reload in the middle of the run loses none of them."""
    slow_llm.respond(lambda request: Reply(auto_answer(request.phase, request.prompt), delay=1.5))
    data = tmp_path / "data"
    DocumentLibrary(data / "documents").add(CLAIMS_HANDBOOK.encode(), "claims_handbook.md")
    url = start_app(env=_env(data, slow_llm))
    page.goto(f"{url}/questions")
    wait_for_app(page)
    type_number(page, "Questions per document", 8)
    pick(page, "stMultiSelect", "Documents", "claims_handbook.md")
    page.get_by_role("button", name="Generate questions").click()
    expect(page.get_by_text(re.compile(r"^kept: claims_handbook\.md: “")).first).to_be_visible(
        timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "questions_generating.png"), full_page=True)
    page.reload()
    wait_for_app(page)
    expect(page.get_by_text(re.compile(r"generated · \d+ questions?"))).to_be_visible()
    shown = int(re.search(r"generated · (\d+)", page.get_by_text(
        re.compile(r"generated · \d+ questions?")).inner_text()).group(1))
    # every question shown came from a request the model finished (none was asked again)
    answered = len([h for p, h, _ in slow_llm.ended if p == "question_generation" and h == "done"])
    assert 1 <= shown <= answered < 8
    expect(page.get_by_text("kept as a draft in the data folder")).to_be_visible()
    # the request open at the reload ended at the server
    assert _ended(slow_llm, "client left", within=15, phase="question_generation") is not None

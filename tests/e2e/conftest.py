"""Real-browser fixtures: the app under `streamlit run` and Debian's chromium via Playwright.

``start_app(env={...})`` starts a fresh app (own port, own data folder unless given) and returns
its URL; ``app_url`` is one shared app for the session. ``page`` is a Playwright page on a new
browser context. Screenshots go to ``test-artifacts/`` for a person to look at.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.e2e.browser import ARTIFACTS, ROOT, RUNS_JS

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def start_app(tmp_path_factory) -> Iterator[Callable[..., str]]:
    procs: list[subprocess.Popen] = []

    def start(env: dict[str, str] | None = None) -> str:
        port = _free_port()
        full_env = {
            **os.environ,
            "CHUNKLAB_DATA_DIR": str(tmp_path_factory.mktemp("appdata")),
            **(env or {}),
        }
        log = open(tmp_path_factory.mktemp("applog") / "streamlit.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py",
             "--server.address", "127.0.0.1", "--server.port", str(port),
             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT,
        )
        procs.append(proc)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited early; see {log.name}")
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=1).status_code == 200:
                    return url
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"streamlit did not become healthy in 90 s; see {log.name}")

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def app_url(start_app) -> str:
    return start_app()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"chromium not found at {CHROMIUM}: run `bash scripts/ensure_chromium.sh`")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser, request) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    context.add_init_script(RUNS_JS)  # what wait_for_app reads
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()

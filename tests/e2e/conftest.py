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
from dataclasses import dataclass, field
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


@dataclass
class _Apps:
    """The apps a session started. An app stops when the test that started it ends, or, when a
    file's fixture started it, at the end of that file; the shared one at the end of the
    session (each is a Streamlit server of half a gigabyte or more: kept to the end of the
    session, a full run's apps would fill the machine's memory)."""

    procs: list[subprocess.Popen] = field(default_factory=list)
    shared: set[int] = field(default_factory=set)  # pids of apps every file may use

    def stop(self, procs: list[subprocess.Popen]) -> None:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.procs[:] = [p for p in self.procs if p not in procs]  # in place: start() holds it


@pytest.fixture(scope="session")
def _apps() -> Iterator[_Apps]:
    apps = _Apps()
    yield apps
    apps.stop(list(apps.procs))


def _started_since(apps: _Apps, before: set[int]) -> list[subprocess.Popen]:
    return [p for p in apps.procs if id(p) not in before and p.pid not in apps.shared]


@pytest.fixture(scope="module", autouse=True)
def _apps_of_this_file(_apps: _Apps) -> Iterator[None]:
    before = set(map(id, _apps.procs))
    yield
    _apps.stop(_started_since(_apps, before))


@pytest.fixture(autouse=True)
def _apps_of_this_test(_apps: _Apps) -> Iterator[None]:
    """Set up after every fixture of a wider scope: the apps it sees start are the test's."""
    before = set(map(id, _apps.procs))
    yield
    _apps.stop(_started_since(_apps, before))


@pytest.fixture(scope="session")
def start_app(tmp_path_factory, _apps: _Apps) -> Iterator[Callable[..., str]]:
    procs = _apps.procs

    def start(env: dict[str, str] | None = None, shared: bool = False) -> str:
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
        if shared:
            _apps.shared.add(proc.pid)
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


@pytest.fixture(scope="session")
def app_url(start_app) -> str:
    return start_app(shared=True)


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

"""Cold start and memory of the app, next to a bare Streamlit page as the reference.

For each app: a fresh data folder, `streamlit run`, time until /_stcore/health answers; then, in
headless chromium, the first paint (time from opening the page until its first heading shows:
until then the visitor sees a blank page) and the time until the home page shows its content
(for ChunkLab: the sample documents converted and listed); and the resident memory of the
server process afterwards.
From the repository root:

    .venv/bin/python -m bench.bench_startup
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

from bench.quick import add_quick

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
BARE_APP = 'import streamlit as st\nst.title("Hello")\nst.dataframe({"a": [1, 2]})\n'


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(script: Path, heading: str, ready_text: str, browser
            ) -> tuple[float, float, float, float]:
    port = _port()
    env = {**os.environ, "CHUNKLAB_DATA_DIR": tempfile.mkdtemp(prefix="bench-start-")}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        while True:
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        healthy = time.perf_counter() - t0
        page = browser.new_page()
        opened = time.perf_counter()
        page.goto(url)
        page.get_by_role("heading", name=heading).wait_for(timeout=300_000)
        painted = time.perf_counter() - opened
        page.get_by_text(ready_text).first.wait_for(state="attached", timeout=300_000)
        shown = time.perf_counter() - t0
        page.close()
        return healthy, painted, shown, _rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_quick(parser)  # one cold start of each app is already its quickest run
    parser.parse_args()
    bare = Path(tempfile.mkdtemp()) / "bare.py"
    bare.write_text(BARE_APP)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        ref = measure(bare, "Hello", "Hello", browser)
        ours = measure(ROOT / "app.py", "ChunkLab", "insurance_policy.docx", browser)
        browser.close()
    row = "{:<28}{:>10}{:>15}{:>14}{:>10}"
    print(row.format("app", "healthy s", "first paint s", "page shown s", "RSS MiB"))
    for name, figures in (("bare Streamlit (reference)", ref), ("ChunkLab, fresh data dir", ours)):
        print(row.format(name, *(f"{v:.2f}" for v in figures[:3]), f"{figures[3]:.0f}"))
    print(row.format("ratio", *(f"{o / r:.2f}" for o, r in zip(ours, ref, strict=True))))


if __name__ == "__main__":
    main()

"""A real Chroma server for tests: `chroma run` (the chromadb package's command) on a free port
with a folder of its own, started once its heartbeat answers."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

START_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_chroma(path: Path, port: int | None = None) -> tuple[subprocess.Popen, int]:
    """`chroma run` on ``port`` (default: a free one) keeping its data in ``path``."""
    port = port or free_port()
    command = [str(Path(sys.executable).parent / "chroma"), "run", "--path", str(path),
               "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1).is_success:
                return process, port
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("`chroma run` did not start")
        time.sleep(0.2)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=20)

"""What the tests' fake servers share: a JSON request handler and a server thread on 127.0.0.1.

A fake (``fakes.llm.FakeLLM``, ``tests.fakeembed.FakeEmbed``) subclasses :class:`FakeServer`
with its handler; the handler reaches the fake as ``self.server.fake``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: Any


class JSONHandler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def send_json(self, status: int, payload: str, headers: dict[str, str] | None = None) -> None:
        data = payload.encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def send_error_json(self, status: int, message: str,
                        headers: dict[str, str] | None = None) -> None:
        self.send_json(status, json.dumps({"error": {"message": message}}), headers)

    def read_json(self) -> dict[str, Any] | None:
        """The request's JSON body; None (after answering HTTP 400) when it is not JSON."""
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self.send_error_json(400, "bad JSON")
            return None


class FakeServer:
    """Serves ``handler`` on 127.0.0.1 (``port`` 0: a free one) from a thread of its own."""

    def __init__(self, handler: type[JSONHandler], port: int = 0) -> None:
        self._server = _Server(("127.0.0.1", port), handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self: S) -> S:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve(self, what: str) -> None:
        """Serve in the foreground (``python -m fakes.llm``, ``python -m tests.fakeembed``)
        until interrupted."""
        print(f"{what} listening at {self.base_url}", flush=True)
        self._server.serve_forever()


S = TypeVar("S", bound=FakeServer)


@contextmanager
def running(server: S) -> Iterator[S]:
    """``server`` started, and stopped on leaving."""
    server.start()
    try:
        yield server
    finally:
        server.stop()

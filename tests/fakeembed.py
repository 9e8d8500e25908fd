"""A fake OpenAI-compatible embeddings and rerank server: real HTTP on 127.0.0.1, scripted per test.

Use the pytest fixture ``fake_embed`` (import it, or list this module in ``pytest_plugins``)::

    fake_embed.settings()                   # EmbeddingSettings pointing here (model "fake-embed")
    fake_embed.rerank_settings()            # RerankSettings pointing here (model "fake-rerank")
    fake_embed.script([Reply(status=500)])  # replies before the automatic ones, in order
    fake_embed.fail_after(3)                # every request after the 3rd answers HTTP 500
    fake_embed.requests                     # (path, JSON body, Authorization header) received

``POST /v1/embeddings`` answers ``{"data": [{"index", "embedding"}]}`` with vectors of its own:
words hashed into ``dimension`` signed buckets (a bag of words, not MiniLM, so retrieval works
and its metrics differ from MiniLM's). ``POST /v1/rerank`` answers the Jina/Cohere shape
``{"results": [{"index", "relevance_score"}]}`` scoring each document by the share of the
query's words it holds. A scripted error reply can quote the request's Authorization header
back (``Reply.echo_key``), as some servers do, to check that the key never surfaces.
Run it on its own for the app or a browser::

    python -m tests.fakeembed --port 8766 [--dimension 48] [--fail-after N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from fakes.http import FakeServer, JSONHandler, running

EMBED_MODEL = "fake-embed"
RERANK_MODEL = "fake-rerank"
DIMENSION = 48
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def vector(text: str, dimension: int = DIMENSION) -> list[float]:
    """Each word adds ±1 in two buckets chosen by its hash; the sum is L2-normalised."""
    out = np.zeros(dimension)
    for word in words(text):
        digest = hashlib.sha256(word.encode()).digest()
        for n in range(2):
            out[digest[n] % dimension] += 1.0 if digest[2 + n] % 2 else -1.0
    norm = np.linalg.norm(out)
    out = out / norm if norm else np.eye(dimension)[0]
    return [round(float(v), 6) for v in out]


def relevance(query: str, document: str) -> float:
    """Share of the query's distinct words the document holds."""
    asked = set(words(query))
    return len(asked & set(words(document))) / len(asked) if asked else 0.0


@dataclass
class Reply:
    """A scripted reply: an HTTP error (``status``), a raw body, or the automatic answer."""

    status: int = 200
    raw: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    echo_key: bool = False  # put the request's Authorization header in the error body


@dataclass
class FakeRequest:
    path: str
    body: dict[str, Any]
    authorization: str


class _Handler(JSONHandler):
    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/").endswith("/models"):
            models = [{"id": EMBED_MODEL, "object": "model"},
                      {"id": RERANK_MODEL, "object": "model"}]
            self.send_json(200, json.dumps({"object": "list", "data": models}))
        else:
            self.send_error_json(404, "not found")

    def do_POST(self) -> None:  # noqa: N802
        body = self.read_json()
        if body is None:
            return
        fake = self.server.fake
        path = self.path.rstrip("/")
        request = FakeRequest(path, body, self.headers.get("Authorization", ""))
        reply = fake.next_reply(request)
        time.sleep(reply.delay + fake.latency)
        if reply.raw is not None:
            self.send_json(reply.status, reply.raw, reply.headers)
        elif reply.status >= 400:
            message = f"status {reply.status}"
            if reply.echo_key:
                message += f"; you sent {request.authorization!r}"
            self.send_error_json(reply.status, message, reply.headers)
        elif path.endswith("/embeddings"):
            self.send_json(200, json.dumps(fake.embeddings(body)))
        elif path.endswith("/rerank"):
            self.send_json(200, json.dumps(fake.rerank(body)))
        else:
            self.send_error_json(404, "not found")


class FakeEmbed(FakeServer):
    """The server plus its script; ``requests`` records what arrived."""

    def __init__(self, port: int = 0, dimension: int = DIMENSION, latency: float = 0.0) -> None:
        self.dimension = dimension
        self.latency = latency
        self.requests: list[FakeRequest] = []
        self._queue: deque[Reply] = deque()
        self._fail_after: int | None = None
        self._lock = threading.Lock()
        super().__init__(_Handler, port)

    def embedding_requests(self) -> list[FakeRequest]:
        return [r for r in self.requests if r.path.endswith("/embeddings")]

    def rerank_requests(self) -> list[FakeRequest]:
        return [r for r in self.requests if r.path.endswith("/rerank")]

    def texts(self) -> list[str]:
        """Every text sent to be embedded, in order."""
        return [text for r in self.embedding_requests() for text in r.body.get("input", [])]

    def script(self, replies: list[Reply]) -> None:
        with self._lock:
            self._queue.extend(replies)

    def fail_after(self, count: int | None) -> None:
        """Answer HTTP 500 to every request after the first ``count`` (None: stop failing)."""
        with self._lock:
            self._fail_after = None if count is None else len(self.requests) + count

    def next_reply(self, request: FakeRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
            if self._fail_after is not None and len(self.requests) > self._fail_after:
                return Reply(status=500)
        return Reply()

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else texts
        data = [{"object": "embedding", "index": i, "embedding": vector(t, self.dimension)}
                for i, t in enumerate(texts)]
        data.reverse()  # servers may answer out of order: the index says where each goes
        return {"object": "list", "data": data, "model": body.get("model", EMBED_MODEL),
                "usage": {"prompt_tokens": sum(len(words(t)) for t in texts)}}

    def rerank(self, body: dict[str, Any]) -> dict[str, Any]:
        documents = body.get("documents", [])
        scored = sorted(((i, relevance(body.get("query", ""), d)) for i, d in
                         enumerate(documents)), key=lambda pair: -pair[1])
        top = scored[: body.get("top_n") or len(scored)]
        return {"model": body.get("model", RERANK_MODEL),
                "results": [{"index": i, "relevance_score": s} for i, s in top]}

    def settings(self, **overrides: Any):
        """EmbeddingSettings pointing here: short timeout, fast retries."""
        from core.embeddings.settings import EmbeddingSettings

        values: dict[str, Any] = {"base_url": self.base_url, "model": EMBED_MODEL,
                                  "timeout": 5.0, "max_retries": 1}
        return EmbeddingSettings(**{**values, **overrides})

    def rerank_settings(self, **overrides: Any):
        """RerankSettings pointing here."""
        from core.retrieval.rerank_settings import RerankSettings

        values: dict[str, Any] = {"base_url": self.base_url, "model": RERANK_MODEL,
                                  "timeout": 5.0, "max_retries": 1}
        return RerankSettings(**{**values, **overrides})


@pytest.fixture
def fake_embed() -> Iterator[FakeEmbed]:
    with running(FakeEmbed()) as server:
        yield server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake embeddings and rerank server.")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--dimension", type=int, default=DIMENSION)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added per request")
    parser.add_argument("--fail-after", type=int, help="answer HTTP 500 after N requests")
    args = parser.parse_args(argv)
    server = FakeEmbed(port=args.port, dimension=args.dimension, latency=args.latency)
    server.fail_after(args.fail_after)
    server.serve("fake embeddings")


if __name__ == "__main__":
    main()

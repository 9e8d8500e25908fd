"""A fake OpenAI-compatible server: real HTTP on 127.0.0.1, scripted per test.

Use the pytest fixture ``fake_llm`` (import it, or list this module in ``pytest_plugins``)::

    fake_llm.script(["answer 1", Reply(status=429, headers={"Retry-After": "1"}), "answer 2"])
    fake_llm.respond(lambda request: "an answer")   # when the script is empty
    fake_llm.requests                               # JSON bodies received, in order

With neither a script nor a responder it answers every ChunkLab phase sensibly (``auto_answer``),
reading the phase from the ``X-ChunkLab-Phase`` header and the numbered anchors in the prompt.
``/v1/models`` lists one model, ``fake``. With ``structured = True`` it offers structured output:
the probe gets its JSON (after ``probe_delay``), automatic answers come as the JSON rows a
``response_format`` schema asks for (:func:`structured_answer`); without, ``response_format``
is ignored. With ``grammar =
True`` as well it takes a GBNF ``grammar`` as llama.cpp does (of the shape
:mod:`core.llm.grammar` writes): the probe gets the grammar's one answer, the others compact JSON.
``serve_llama(...)`` makes it answer like a llama.cpp server too: ``/props`` (context per
slot, slots), ``/tokenize``, model ``meta``, ``timings`` in each completion (with the prompt
tokens read, the rest reused from what the named slot read before), and a context refusal when
a prompt is larger than the context. Replies can be cut (``Reply.cut``: ``finish_reason:
"length"``), refused for their size (``Reply.context_refusal``, llama.cpp's or OpenAI's
wording), slow (``delay``) or stuck in a loop (``Reply.looping``).

A request with ``stream: true`` is answered as server-sent events, a word every ``word_delay``
seconds (:meth:`FakeLLM.serve_slowly`). With ``slots`` set (``serve_llama``) it computes at most
that many requests at once and queues the rest, as llama.cpp does. It notices a client that
closes its connection — while the request waits, thinks or is being written — and stops
working on it: ``ended`` records each request's end ("done" or "client left") with its time,
and ``arrivals`` the phase of each chat completion in the order they came, probes included.
Run it on its own for the app or a browser::

    python -m fakes.llm --port 8765 [--latency 0.2] [--script replies.json] [--llama]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from core.llm.structured import PROBE_PHASE
from fakes.http import FakeServer, JSONHandler, running

MODEL_ID = "fake"
_ANCHOR_LINE = re.compile(r"^\[(\d+)\] ?(.*)$", re.MULTILINE)


@dataclass
class Reply:
    """One scripted answer: the assistant text, or an HTTP error, after an optional delay."""

    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    raw: str | None = None  # send this body verbatim instead of a chat completion
    finish_reason: str = "stop"
    completion_tokens: int | None = None  # reported in ``usage`` (default: a length estimate)
    stream: bool = True  # answer a streamed request as a stream (False: as one body)

    @classmethod
    def cut(cls, text: str, tokens: int) -> Reply:
        """An answer the server stopped at its token limit (``finish_reason: "length"``)."""
        return cls(text=text, finish_reason="length", completion_tokens=tokens)

    @classmethod
    def looping(cls, intro: str = "The deductible is 500 EUR per claim [¹].",
                sentence: str = " Glass damage is not covered by the household policy [²].",
                tokens: int = 1024) -> Reply:
        """A model stuck in a loop: ``intro``, then ``sentence`` again and again until the
        token limit (about four characters a token)."""
        times = max(tokens * 4 // max(len(sentence), 1), 1)
        return cls(text=intro + sentence * times, finish_reason="length",
                   completion_tokens=tokens)

    @classmethod
    def context_refusal(cls, server: str = "llama.cpp", prompt_tokens: int = 4476,
                        context: int = 4096) -> Reply:
        """The HTTP 400 a server sends for a prompt larger than its context."""
        if server == "openai":
            error = {"message": f"This model's maximum context length is {context} tokens. "
                                f"However, your messages resulted in {prompt_tokens} tokens. "
                                "Please reduce the length of the messages.",
                     "type": "invalid_request_error", "param": "messages",
                     "code": "context_length_exceeded"}
        else:
            error = {"code": 400, "type": "exceed_context_size_error",
                     "message": f"request ({prompt_tokens} tokens) exceeds the available context "
                                f"size ({context} tokens)",
                     "n_prompt_tokens": prompt_tokens, "n_ctx": context}
        return cls(status=400, raw=json.dumps({"error": error}))

    @classmethod
    def of(cls, item: Reply | str | dict[str, Any]) -> Reply:
        if isinstance(item, Reply):
            return item
        if isinstance(item, str):
            return cls(text=item)
        return cls(**item)


@dataclass
class FakeRequest:
    path: str
    phase: str
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        messages = self.body.get("messages") or [{}]
        return str(messages[-1].get("content", ""))


def _anchored_blocks(prompt: str) -> list[tuple[int, str]]:
    """The longest run of consecutively numbered ``[n] text`` lines after the template's example
    (which may show a worked example of its own): the text under analysis."""
    runs: list[list[tuple[int, str]]] = []
    for match in _ANCHOR_LINE.finditer(prompt.split("EXAMPLE OUTPUT")[-1]):
        number, text = int(match.group(1)), match.group(2).strip()
        if runs and runs[-1][-1][0] + 1 == number:
            runs[-1].append((number, text))
        else:
            runs.append([(number, text)])
    return max(runs, key=len) if runs else []


def _looks_like_heading(text: str) -> bool:
    return (
        0 < len(text) <= 80
        and text[-1] not in ".!?:;,|"
        and not text.startswith(("|", "-", "*", "•"))
        and any(ch.isalpha() for ch in text)
    )


def _auto_structure(blocks: list[tuple[int, str]]) -> str:
    """Headings ("## Title" gives level 2, plain short lines level 1) start sections."""
    if not blocks:
        return "Document\t1\t1\t1\tROOT"
    heads = []
    for i, (_, text) in enumerate(blocks):
        marks = len(text) - len(text.lstrip("#"))
        title = text.lstrip("#").strip()
        if (marks or not blocks[0][1].startswith("#")) and _looks_like_heading(title):
            heads.append((i, min(max(marks, 1), 3), title[:60]))
    if not heads or heads[0][0] != 0:
        heads.insert(0, (0, 1, "Introduction"))
    lines, parents = [], {0: "ROOT"}
    for k, (i, level, title) in enumerate(heads):
        level = min(level, max(parents) + 1)
        after = [j for j, lv, _ in heads[k + 1 :] if lv <= level]
        last = after[0] - 1 if after else len(blocks) - 1
        lines.append(f"{title}\t{level}\t{blocks[i][0]}\t{blocks[last][0]}\t{parents[level - 1]}")
        parents = {lv: t for lv, t in parents.items() if lv < level} | {level: title}
    return "\n".join(lines)


def auto_answer(phase: str, prompt: str) -> str:
    """A well-formed answer for each anchor-mode phase, derived from the prompt's anchors."""
    blocks = _anchored_blocks(prompt)
    if phase == "structure_analysis":
        return _auto_structure(blocks)
    if phase == "boundary_detection":
        if not blocks:  # offsets mode: one chunk from the section's start to its end
            start = re.search(r"position:\s*(\d+)", prompt)
            length = re.search(r"length:\s*(\d+)", prompt)
            begin = int(start.group(1)) if start else 0
            end = begin + (int(length.group(1)) if length else 1)
            return f"{begin}\tDOCUMENT_START\tBeginning of section\n{end}\tDOCUMENT_END\tEnd"
        lines = [f"{blocks[0][0]}\tDOCUMENT_START\tBeginning of the section"]
        for number, _ in blocks[3:-1:3]:
            lines.append(f"{number}\tSEMANTIC_SHIFT\tThe passage moves on to a new point here")
        lines.append(f"{blocks[-1][0]}\tDOCUMENT_END\tEnd of the section")
        return "\n".join(lines)
    if phase == "chunk_metadata":
        asked = re.findall(r'^\[\[(\d+)\]\] begins "(.*)"$', prompt, re.MULTILINE)
        return "\n".join(  # each summary its own: alike ones are asked again one by one
            f"{n}\tDescribes the passage's main facts, terms and figures so that a reader can "
            "find it by topic" + (f": {' '.join(words.split()[:4])}" if words else "")
            for n, words in asked or [("1", "")])
    if phase == "contextual_prefix":
        return "This chunk is from the document and covers one passage of its content in context."
    if phase == "table_summary":
        return "The table lists items with their values, one row per item, for quick lookup."
    if phase == "question_generation":
        return _auto_question(prompt)
    if phase == "unanswerable_question":
        return _auto_unanswerable(prompt)
    return "OK"


def structured_answer(body: dict[str, Any], answer: str) -> str:
    """``answer`` as the JSON rows the request's ``response_format`` schema asks for (TSV
    lines read into ``{"rows": [...]}``, the last cells where it asks for fewer columns);
    ``answer`` itself when the request asks for no rows."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    rows_spec = schema.get("properties", {}).get("rows") or {}
    row = rows_spec.get("items") or (rows_spec.get("prefixItems") or [None])[0]
    kinds = ({name: spec.get("type") for name, spec in row["properties"].items()} if row
             else _grammar_row(str(body.get("grammar") or "")))
    if not kinds:
        return answer
    rows = []
    for line in answer.splitlines():
        values = line.split("\t")  # a schema asking for fewer columns asks for the last ones
        cells = dict(zip(kinds, values[max(len(values) - len(kinds), 0):], strict=False))
        rows.append({name: int(value) if kinds[name] == "integer" else value
                     for name, value in cells.items()})
    return json.dumps({"rows": rows}, separators=(",", ":") if body.get("grammar") else None)


_GRAMMAR_KEY = re.compile(r'"[{,]\\"(\w+)\\":" (\S+)')  # "{\"title\":" string


def _grammar_row(grammar: str) -> dict[str, str]:
    """The columns (name -> "integer" or "string") of the rows a grammar asks for; {} when it
    asks for no ``{"rows": [...]}``."""
    objects = [dict(_GRAMMAR_KEY.findall(line)) for line in grammar.splitlines()
               if line.startswith("object-")]
    if not any("rows" in keys for keys in objects):
        return {}
    row = next((keys for keys in objects if "rows" not in keys), {})
    return {name: "integer" if rule == "integer" or rule.strip('"').isdigit() else "string"
            for name, rule in row.items()}


def _auto_question(prompt: str) -> str:
    """A question on the passage between ``<<<`` and ``>>>``: about its first sentence or table
    row, answered with the row's last cell or the sentence's last words, as a model answers."""
    passage = prompt.partition("<<<")[2].partition(">>>")[0]
    rows = [line.strip() for line in passage.splitlines() if line.strip().startswith("|")]
    rows = [r for r in rows[1:] if not set(r) <= set("|-: ") and len(r) >= 20]
    sentences = [sentence.strip() for line in passage.splitlines()
                 if not line.lstrip().startswith("#")
                 for sentence in re.split(r"(?<=[.!?])\s+", line) if len(sentence.strip()) >= 30]
    if rows:
        piece, answer = rows[0], [c.strip() for c in rows[0].split("|") if c.strip()][-1]
    elif sentences:
        piece, answer = sentences[0], " ".join(sentences[0].rstrip(".").split()[-5:])
    else:
        return json.dumps({"question": "What is this passage about?", "answer": passage})
    words = re.findall(r"\w+", piece)[:6]
    return json.dumps({"question": f"What does the document say about {' '.join(words)}?",
                       "answer": answer})


def _auto_unanswerable(prompt: str) -> str:
    """A question on the passage's subject (its first long words) asking for a figure no
    document of the tests gives: its carbon footprint."""
    passage = prompt.partition("<<<")[2].partition(">>>")[0]
    subject = " ".join(re.findall(r"[A-Za-z]{5,}", passage)[:3]).lower() or "the subject"
    return json.dumps({"question": f"What is the carbon footprint of the {subject}?"})


class _Handler(JSONHandler):
    def _not_found(self) -> None:
        self.send_error_json(404, "not found")

    def do_GET(self) -> None:  # noqa: N802
        fake, path = self.server.fake, self.path.rstrip("/")
        fake.gets.append(path)
        llama = fake.llama
        if path.endswith("/models"):
            entry: dict[str, Any] = {"id": MODEL_ID, "object": "model"}
            if llama is not None:
                entry["meta"] = llama.meta()
            self.send_json(200, json.dumps({"object": "list", "data": [entry]}))
        elif path.endswith("/props") and llama is not None:
            self.send_json(200, json.dumps(llama.props()))
        else:
            self._not_found()

    def do_POST(self) -> None:  # noqa: N802
        body = self.read_json()
        if body is None:
            return
        fake = self.server.fake
        if self.path.rstrip("/").endswith("/tokenize"):
            if fake.llama is None:
                self._not_found()
            else:
                tokens = fake.llama.count(str(body.get("content", "")))
                self.send_json(200, json.dumps({"tokens": list(range(tokens))}))
            return
        request = FakeRequest(self.path, self.headers.get("X-ChunkLab-Phase", ""), body)
        fake.arrive(request)
        if request.phase == PROBE_PHASE:  # answered by what the server is, never scripted
            if not self.wait_or_leave(fake.probe_delay):
                fake.end(request, "client left")
                return
            literal = str(body.get("grammar") or "").partition("root ::= ")[2]
            probe = Reply(json.loads(literal) if literal and fake.grammar
                          else json.dumps({"ok": True}) if fake.structured else "OK")
            self.send_json(200, json.dumps(_completion(body, probe, fake.llama)))
            return
        with fake.computing(self, request) as slot_free:
            if not slot_free:
                return
            self._answer(fake, request)

    def client_left(self) -> bool:
        """The client closed its connection (read ready with nothing to read)."""
        try:
            ready, _, _ = select.select([self.connection], [], [], 0)
            return bool(ready) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def wait_or_leave(self, seconds: float) -> bool:
        """Sleep ``seconds``; False as soon as the client has left."""
        deadline = time.monotonic() + seconds
        while True:
            if self.client_left():
                return False
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            time.sleep(min(left, 0.05))

    def _answer(self, fake: FakeLLM, request: FakeRequest) -> None:
        body = request.body
        reply = fake.next_reply(request)
        if fake.llama is not None and fake.llama.count(request.prompt) > fake.llama.n_ctx:
            reply = Reply.context_refusal("llama.cpp", fake.llama.count(request.prompt),
                                          fake.llama.n_ctx)
        if not self.wait_or_leave(reply.delay + fake.latency):
            fake.end(request, "client left")
            return
        if body.get("stream") and reply.stream and reply.status < 400 and reply.raw is None:
            fake.end(request, "done" if self._stream(fake, body, reply) else "client left")
            return
        fake.end(request, "done")
        if reply.raw is not None:
            self.send_json(reply.status, reply.raw, reply.headers)
        elif reply.status >= 400:
            self.send_error_json(reply.status, reply.text or f"status {reply.status}",
                                 reply.headers)
        else:
            self.send_json(200, json.dumps(_completion(body, reply, fake.llama)), reply.headers)


    def _stream(self, fake: FakeLLM, body: dict[str, Any], reply: Reply) -> bool:
        """The reply as server-sent events, a word every ``fake.word_delay`` seconds; False
        when the client left before the end."""
        whole = _completion(body, reply, fake.llama)
        words = re.findall(r"\S+\s*", reply.text) or [""]
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for n, word in enumerate(words):
                if n and not self.wait_or_leave(fake.word_delay):
                    return False
                event = {"choices": [{"index": 0, "delta": {"content": word},
                                      "finish_reason": None}], "model": whole["model"]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            last = {"choices": [{"index": 0, "delta": {},
                                 "finish_reason": reply.finish_reason}],
                    **{k: whole[k] for k in ("usage", "timings", "model") if k in whole}}
            self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True


@dataclass
class LlamaFacts:
    """What a llama.cpp server says about itself, for :meth:`FakeLLM.serve_llama`."""

    n_ctx: int = 4096  # per slot
    slots: int = 2
    n_params: int = 1_500_000_000
    tokens_per_tiktoken: float = 1.12  # its tokenizer counts this many tokens per cl100k token
    predicted_per_second: float = 20.0
    prompt_per_second: float = 200.0
    kept: dict[int, str] = field(default_factory=dict)  # slot → the prompt it read last

    def processed(self, body: dict[str, Any], prompt: str) -> int:
        """Prompt tokens read for ``body``: all of them, but for what the named slot
        (``id_slot``) kept of an earlier prompt it read when ``cache_prompt`` asks for it."""
        slot = body.get("id_slot")
        kept = self.kept.get(slot, "") if body.get("cache_prompt") and slot is not None else ""
        same = len(os.path.commonprefix([kept, prompt]))
        if isinstance(slot, int):
            self.kept[slot] = prompt
        return self.count(prompt) - self.count(prompt[:same])

    def count(self, text: str) -> int:
        from core.tokens import count_tokens

        return math.ceil(count_tokens(text) * self.tokens_per_tiktoken)

    def meta(self) -> dict[str, Any]:
        return {"n_ctx_train": 32768, "n_ctx": self.n_ctx * self.slots, "n_params": self.n_params,
                "n_vocab": 49152}

    def props(self) -> dict[str, Any]:
        return {"default_generation_settings": {"n_ctx": self.n_ctx, "params": {}},
                "total_slots": self.slots, "model_path": "/models/fake.gguf",
                "build_info": "fake"}


def _completion(body: dict[str, Any], reply: Reply, llama: LlamaFacts | None) -> dict[str, Any]:
    text = reply.text
    prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    completion = reply.completion_tokens or len(text) // 4 + 1
    usage = {"prompt_tokens": prompt_chars // 4 + 1, "completion_tokens": completion}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    answer: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": body.get("model", MODEL_ID),
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text},
             "finish_reason": reply.finish_reason}
        ],
        "usage": usage,
    }
    if llama is not None:
        prompt = "".join(str(m.get("content", "")) for m in body.get("messages", []))
        read = llama.processed(body, prompt)
        answer["timings"] = {"predicted_per_second": llama.predicted_per_second,
                             "prompt_per_second": llama.prompt_per_second,
                             "prompt_n": read, "cache_n": llama.count(prompt) - read}
    return answer


class FakeLLM(FakeServer):
    """The server plus its script; ``requests`` and ``calls`` record what arrived."""

    def __init__(self, port: int = 0, latency: float = 0.0) -> None:
        self.latency = latency
        self.llama: LlamaFacts | None = None
        self.structured = False  # holds answers to a JSON schema (``response_format``)
        self.grammar = False  # and to a GBNF ``grammar``, as llama.cpp does
        self.calls: list[FakeRequest] = []  # chat completions
        self.arrivals: list[str] = []  # the phase of every chat completion, probes included
        self.probe_delay = 0.0  # seconds an answer-form probe takes
        self.gets: list[str] = []  # paths of GET requests
        self.word_delay = 0.0  # seconds between the words of a streamed answer
        self.ended: list[tuple[str, str, float]] = []  # (phase, "done" | "client left", when)
        self.computing_now = 0  # requests being computed (not queued)
        self._slots: threading.Semaphore | None = None
        self._queue: deque[Reply] = deque()
        self._responder: Callable[[FakeRequest], Reply | str] | None = None
        self._lock = threading.Lock()
        super().__init__(_Handler, port)

    @property
    def requests(self) -> list[dict[str, Any]]:
        return [call.body for call in self.calls]

    @property
    def phases(self) -> list[str]:
        return [call.phase for call in self.calls]

    def script(self, replies: list[Reply | str | dict[str, Any]]) -> None:
        """Queue replies, answered in order before the responder or the automatic answers."""
        with self._lock:
            self._queue.extend(Reply.of(item) for item in replies)

    def respond(self, fn: Callable[[FakeRequest], Reply | str] | None) -> None:
        """Answer each request not covered by the script with ``fn(request)``."""
        self._responder = fn

    def serve_llama(self, *, queue: bool = False, **facts: Any) -> LlamaFacts:
        """Answer like a llama.cpp server from now on (``/props``, ``/tokenize``, model meta);
        with ``queue``, compute at most its ``slots`` requests at once and queue the rest."""
        self.llama = LlamaFacts(**facts)
        self._slots = threading.Semaphore(self.llama.slots) if queue else None
        return self.llama

    def serve_slowly(self, word_delay: float) -> None:
        """Write streamed answers a word every ``word_delay`` seconds."""
        self.word_delay = word_delay

    def arrive(self, request: FakeRequest) -> None:
        with self._lock:
            self.arrivals.append(request.phase)

    def end(self, request: FakeRequest, how: str) -> None:
        with self._lock:
            self.ended.append((request.phase, how, time.monotonic()))

    @contextmanager
    def computing(self, handler: _Handler, request: FakeRequest) -> Iterator[bool]:
        """Hold a slot while the request is computed (waiting for one in line when all are
        busy); yields False when the client left while it waited."""
        slots = self._slots
        if slots is not None:
            while not slots.acquire(timeout=0.05):
                if handler.client_left():
                    self.end(request, "client left")
                    yield False
                    return
        with self._lock:
            self.computing_now += 1
        try:
            yield True
        finally:
            with self._lock:
                self.computing_now -= 1
            if slots is not None:
                slots.release()

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.calls.clear()
            self.arrivals.clear()
        self._responder = None

    def next_reply(self, request: FakeRequest) -> Reply:
        with self._lock:
            self.calls.append(request)
            if self._queue:
                return self._queue.popleft()
        if self._responder is not None:
            return Reply.of(self._responder(request))
        return Reply(text=structured_answer(request.body,
                                            auto_answer(request.phase, request.prompt)))

    def settings(self, **overrides: Any):
        """LLMSettings pointing here: model ``fake``, short timeout, fast retries."""
        from core.llm.settings import LLMSettings

        values: dict[str, Any] = {"base_url": self.base_url, "model": MODEL_ID, "timeout": 5.0}
        return LLMSettings(**{**values, **overrides})

    def client(self, **overrides: Any):
        """An LLMClient on :meth:`settings`, logging into the data folder."""
        from core.llm.client import LLMClient

        return LLMClient(self.settings(**overrides))


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    with running(FakeLLM()) as server:
        yield server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake OpenAI-compatible server for ChunkLab.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added per request")
    parser.add_argument("--script", help="JSON list of replies (strings or Reply fields)")
    parser.add_argument("--llama", action="store_true",
                        help="answer like a llama.cpp server too (/props, /tokenize, meta)")
    parser.add_argument("--loop", action="store_true",
                        help="answer like a model stuck in a loop, a word every 0.05 s")
    args = parser.parse_args(argv)
    server = FakeLLM(port=args.port, latency=args.latency)
    if args.llama:
        server.serve_llama()
    if args.loop:
        server.serve_slowly(0.05)
        server.respond(lambda request: Reply.looping())
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            server.script(json.load(handle))
    server.serve("fake LLM")


if __name__ == "__main__":
    main()

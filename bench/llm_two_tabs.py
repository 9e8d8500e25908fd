"""Two questions asked on Assemble one after the other from two browser tabs, against one
model server with one slot: when each tab shows its place in the queue, when the server starts
reading its prompt, when its first words appear and when it is done.

With a served model (``make llm`` in another terminal, the machine to itself):

    .venv/bin/python -m bench.llm_two_tabs --base-url http://127.0.0.1:8080/v1 \\
        [--server-log FILE]

``--server-log``: the server's own output (``make llm 2>&1 | tee FILE``), from which llama.cpp's
"prompt eval time" lines give how long the server took to read each prompt: the first tab's
words should appear within that plus 5 s. ``--quick`` runs against a fake server of our own
(one slot, a word every 0.1 s) to check the bench itself.

Times are seconds from the first tab's click, read from the pages every 0.2 s: the status line
of a model wait ("Waiting for the model server: N requests ahead of yours", "The model is
reading the prompt", "Writing · N tokens").
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from bench.bench_ui import ARGS, CHROMIUM, ROOT, idle, serve
from bench.quick import add_quick
from core.documents import convert
from core.operations.strategies import chunk
from core.store import ChunkSetInfo, ChunkStore

HANDBOOK = "technical_handbook.md"
SET = "handbook recursive 300"
QUESTIONS = ("How many coordinator failures does a cluster with five coordinators tolerate?",
             "What should an operator do before upgrading a cluster?")
PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
STATES = {"queued": "ahead of yours", "reading": "reading the prompt", "writing": "Writing ·"}


@dataclass
class Tab:
    """What one tab showed, and when (seconds from the first click)."""

    page: Page
    question: str
    clicked: float = 0.0
    seen: dict[str, float] = field(default_factory=dict)  # state -> first seen
    done: float | None = None
    failed: str = ""


def _data(folder: Path) -> None:
    store = ChunkStore(folder / "chroma")
    document = convert((ROOT / "sample_docs" / HANDBOOK).read_bytes(), HANDBOOK)
    settings = {"size": 300, "overlap": 0, "unit": "tokens", "tables": True}
    store.create_set(ChunkSetInfo(name=SET, strategy="recursive", settings=settings))
    store.add_chunks(SET, chunk(document, "recursive", settings))


def _ask(tab: Tab, url: str) -> None:
    tab.page.goto(f"{url}/assemble")
    tab.page.wait_for_selector('[data-testid="stApp"]')
    idle(tab.page)
    question = tab.page.get_by_label("Question")
    question.fill(tab.question)
    question.press("Control+Enter")
    tab.page.wait_for_timeout(300)
    idle(tab.page)
    tab.page.get_by_role("button", name="Ask the LLM").wait_for(state="visible")


def _watch(tabs: list[Tab], start: float, limit: float) -> None:
    while time.monotonic() - start < limit and any(t.done is None for t in tabs):
        for tab in tabs:
            if tab.done is not None:
                continue
            text = tab.page.locator("section.main, [data-testid='stMain']").first.inner_text()
            now = time.monotonic() - start
            for state, words in STATES.items():
                if words in text:
                    tab.seen.setdefault(state, now)
            if re.search(r"timed out|could not|failed", text, re.IGNORECASE):
                tab.failed = next(line for line in text.splitlines()
                                  if re.search(r"timed out|could not|failed", line, re.I))
            if tab.failed or (tab.seen.get("writing") is not None
                              and not any(w in text for w in STATES.values())):
                tab.done = now
        time.sleep(0.2)


def run(base_url: str, model: str, limit: float) -> list[Tab]:
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        data = Path(tmp)
        _data(data)
        env = {"LLM_BASE_URL": base_url, "LLM_MODEL": model}
        with serve(ROOT / "app.py", data, env) as url:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            tabs = []
            for question in QUESTIONS:  # a context each: two sessions, as two users
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                page.set_default_timeout(180_000)
                tabs.append(Tab(page, question))
                _ask(tabs[-1], url)
            start = time.monotonic()
            for tab in tabs:
                tab.clicked = time.monotonic() - start
                tab.page.get_by_role("button", name="Ask the LLM").click()
                time.sleep(1.0)  # the second question one second after the first
            _watch(tabs, start, limit)
            browser.close()
    return tabs


@contextmanager
def _server(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """The server's URL and model: the one given, or (``--quick``) a fake of our own."""
    if not args.quick:
        yield args.base_url, args.model
        return
    from fakes.http import running
    from fakes.llm import FakeLLM

    with running(FakeLLM()) as fake:
        fake.serve_llama(slots=1, queue=True, n_ctx=8192)
        fake.serve_slowly(0.1)
        fake.respond(lambda request: "The handbook answers this in its first section [1]. " * 3)
        yield fake.base_url, "fake"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="local")
    parser.add_argument("--server-log", type=Path, help="the model server's output, to read "
                                                        "how long it took to read each prompt")
    parser.add_argument("--limit", type=float, default=1800, help="seconds to wait at most")
    add_quick(parser)
    args = parser.parse_args()
    with _server(args) as (base_url, model):
        tabs = run(base_url, model, args.limit)
    print(f"{'tab':4} {'clicked':>8} {'queued':>8} {'reading':>8} {'first words':>12}"
          f" {'done':>8}  outcome")
    for n, tab in enumerate(tabs, 1):
        cells = [tab.seen.get(state) for state in ("queued", "reading", "writing")]
        shown = [f"{c:8.1f}" if c is not None else f"{'-':>8}" for c in cells]
        done = f"{tab.done:8.1f}" if tab.done is not None else f"{'-':>8}"
        print(f"{n:<4} {tab.clicked:8.1f} {shown[0]} {shown[1]} {shown[2]:>12} {done}  "
              f"{tab.failed or ('answered' if tab.done is not None else 'not done in time')}")
    if args.server_log and args.server_log.exists():
        reads = PROMPT_EVAL.findall(args.server_log.read_text(errors="replace"))
        for ms, tokens in reads[-len(tabs):]:
            print(f"server read a prompt of {int(tokens):,} tokens in {float(ms) / 1000:.1f} s")


if __name__ == "__main__":
    main()

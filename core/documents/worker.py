"""Conversion in worker processes: bounded in time and memory, cancellable, not blocking others.

Converting an Office file or a PDF can take minutes and gigabytes on a small hostile file, and
the memory a Python process took is rarely given back. So those routes run in a worker: a
fresh interpreter (:mod:`core.documents.worker_main`) that caps its own address space
(``RLIMIT_AS``), takes one job at a time over its pipes and is killed when the job runs past
the time limit or is cancelled. A job that reports its progress (a long PDF, page batch by page
batch) has the time limit for each step it reports, so the limit follows the work: a long
document converts, a step stuck on one hostile page is still stopped. Up to
:data:`MAX_WORKERS` run side by side, so one user's heavy
upload does not hold up another's. A worker that grew past :data:`RECYCLE_BYTES` ends after its
job and an idle one ends after :data:`IDLE_SECONDS`, so the memory goes back to the system;
the next job starts a new one (about a second, plus importing the converter once).
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import resource
import select
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import IO, Any

from core.errors import ChunkLabError, ConversionError
from core.progress import Cancelled, Progress, ProgressFn

MAX_WORKERS = 2
TIMEOUT_SECONDS = 90.0  # one conversion, or one step of a conversion that reports its steps
MEMORY_BYTES = 2 * 2**30  # address space of a worker (RLIMIT_AS): its resident memory stays below
RECYCLE_BYTES = 600 * 2**20  # a worker whose resident memory grew past this ends after its job
IDLE_SECONDS = 300.0
POLL_SECONDS = 0.1
HEADER = struct.Struct("!Q")
log = logging.getLogger(__name__)


def _send(stream: IO[bytes], value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(payload)) + payload)
    stream.flush()


def _read(stream: IO[bytes], size: int) -> bytes:
    """Exactly ``size`` bytes (a raw stream returns what has arrived), or EOFError."""
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _readable(stream: IO[bytes], seconds: float) -> bool:
    """Whether `stream` has something to read within `seconds`. poll(), not select(): select()
    refuses descriptors numbered 1024 or more, which a long-running app holding many files and
    sockets reaches."""
    waiting = select.poll()
    waiting.register(stream, select.POLLIN)
    return bool(waiting.poll(seconds * 1000))


def _receive(stream: IO[bytes]) -> Any:
    size = HEADER.unpack(_read(stream, HEADER.size))[0]
    return pickle.loads(_read(stream, size))  # noqa: S301  (our own worker's answer)


class _Worker:
    def __init__(self) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "core.documents.worker_main", str(MEMORY_BYTES)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        # answers read unbuffered: what poll() says has arrived is never held in a buffer
        # (a step's progress and the answer after it may arrive together)
        self.stdin, self.stdout = self.process.stdin, self.process.stdout.raw  # type: ignore[attr-defined]

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.alive():
            self.process.kill()
        self.process.wait()
        self.stdin.close()
        self.stdout.close()


_idle: list[_Worker] = []
_busy = 0
_available = threading.Condition()


def _take() -> _Worker:
    global _busy
    with _available:
        while _busy >= MAX_WORKERS:
            _available.wait()
        _busy += 1
        while _idle:
            worker = _idle.pop()
            if worker.alive():
                return worker
            worker.stop()
    try:
        return _Worker()
    except OSError:
        _give(None)
        raise


def _give(worker: _Worker | None) -> None:
    """Back to the pool (a worker that ended or is to end is reaped instead)."""
    global _busy
    with _available:
        _busy -= 1
        if worker is not None and worker.alive():
            _idle.append(worker)
        elif worker is not None:
            worker.stop()
        _available.notify()


def shutdown() -> None:
    """End every idle worker now and wait for it (busy ones end with their job); called when
    the process exits, so no worker outlives it."""
    with _available:
        idle, _idle[:] = list(_idle), []
    for worker in idle:
        worker.stdin.close()  # the worker reads the end and exits
        try:
            worker.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        worker.stop()


atexit.register(shutdown)


def run_in_worker(function: Callable[..., Any], *args: Any, filename: str,
                  cancel: threading.Event | None = None,
                  timeout: float = TIMEOUT_SECONDS, progress: ProgressFn | None = None,
                  reports: bool = False) -> Any:
    """``function(*args)`` in a worker process; ``function`` is a module-level function.

    With ``reports``, ``function`` takes a ``progress`` keyword (a :data:`ProgressFn`): each
    :class:`Progress` it reports comes back to ``progress`` and starts a new ``timeout``, the
    time limit of one step. A ChunkLabError it raises comes back as such; running out of
    memory, dying, running past the time limit or ``cancel`` being set end the worker and
    raise one sentence.
    """
    kind, value = _ask((function, args, reports), filename, cancel, timeout, progress)
    if kind == "ok":
        return value
    if kind == "memory":
        raise ConversionError(
            f"{filename} needs more memory than the {MEMORY_BYTES / 2**30:.0f} GiB a "
            "conversion may use; split it into smaller documents."
        )
    if kind == "bug":
        log.info("converting %s failed in the worker:\n%s", filename, value)
        value = f"{filename} could not be converted; it may be corrupt."
    raise ConversionError(value)


def _too_long(filename: str, timeout: float, step: Progress | None) -> ConversionError:
    if step is None:
        return ConversionError(
            f"{filename} took longer than {timeout:.0f} s to convert, the time limit per "
            "document; split it into smaller documents.")
    return ConversionError(
        f"{filename} took longer than {timeout:.0f} s for one step of its conversion (after "
        f"{step.message[:1].lower() + step.message[1:]}), the time limit per step; split it "
        "into smaller documents.")


def _ask(job: tuple[Callable[..., Any], tuple[Any, ...], bool], filename: str,
         cancel: threading.Event | None, timeout: float, progress: ProgressFn | None
         ) -> tuple[str, Any]:
    """The worker's answer, its progress passed on; a worker that ended on its own (idle) just
    before is replaced."""
    while True:
        worker = _take()
        keep = False
        step: Progress | None = None
        try:
            try:
                _send(worker.stdin, job)
                deadline = time.monotonic() + timeout
                while True:
                    while not _readable(worker.stdout, POLL_SECONDS):
                        if cancel is not None and cancel.is_set():
                            raise Cancelled("Conversion")
                        if time.monotonic() > deadline:
                            raise _too_long(filename, timeout, step)
                    kind, value, ending = _receive(worker.stdout)
                    if kind != "progress":
                        break
                    step, deadline = value, time.monotonic() + timeout
                    if progress is not None:
                        progress(value)
            except (EOFError, OSError, pickle.UnpicklingError):
                if step is None and worker.process.wait() == 0:
                    continue  # it had ended idle before it read the job: ask another
                raise ConversionError(
                    f"{filename} could not be converted: the converter crashed or ran out of "
                    f"the {MEMORY_BYTES / 2**30:.0f} GiB of memory a conversion may use."
                ) from None
            keep = not ending
            return kind, value
        finally:
            if not keep:
                worker.stop()
            _give(worker)


def _resident_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def serve(memory_bytes: int) -> None:
    """The worker's loop: one (function, args, reports) job at a time until told nothing or
    idle; a job that reports its progress sends each step before its answer."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything a library prints goes to stderr, never into the answers
    while _readable(requests, IDLE_SECONDS):
        try:
            function, args, reports = _receive(requests)
        except EOFError:
            return

        def report(step: Progress) -> None:
            _send(answers, ("progress", step, False))

        try:
            answer: tuple[str, Any] = ("ok", function(*args, progress=report) if reports
                                       else function(*args))
        except ChunkLabError as err:
            answer = ("error", str(err))
        except MemoryError:
            answer = ("memory", "")
        except Exception:  # a converter bug: the parent logs it, the user gets one sentence
            answer = ("bug", traceback.format_exc())
        ending = _resident_bytes() > RECYCLE_BYTES
        _send(answers, (*answer, ending))
        if ending:
            return



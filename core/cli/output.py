"""The one way the CLI writes a message to stderr: one line, control characters shown escaped.

File names and messages may hold a newline (which would split the line) or an ANSI escape
(which the terminal would obey); both are written as Python-style escapes (``\\n``, ``\\x1b``).
"""

from __future__ import annotations

import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from core.files import write_atomic
from core.operations.report.markup import human_size
from core.progress import Listener, Progress

BAR_WIDTH = 24


def one_line(text: str, keep: str = "") -> str:
    """``text`` with every control or format character (categories Cc, Cf) escaped, but for
    those in ``keep``."""
    return "".join(
        ch.encode("unicode_escape").decode("ascii")
        if unicodedata.category(ch) in ("Cc", "Cf") and ch not in keep else ch
        for ch in text
    )


def say(text: str) -> None:
    """Write one line to stderr now (a message, a warning, a progress line)."""
    print(one_line(text), file=sys.stderr, flush=True)


def show_progress(progress: Progress) -> None:
    """A long run's progress as one stderr line: a bar, the step and the time left."""
    filled = int(BAR_WIDTH * progress.fraction)
    say(f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {progress.caption()}")


def write_report(path: Path, report: bytes) -> None:
    """Write a report file and say where, and how large it is."""
    write_atomic(path, report)
    say(f"report: {path} ({human_size(len(report))})")


def say_retry(line: str) -> None:
    """An LLM request that failed and is asked again (a slow or failing server)."""
    say(f"retry: {line}")


@dataclass
class AnswerEcho:
    """A model answer written to stderr as it arrives (its own line breaks kept, any other
    control character escaped), with its place in the server's line while it waits."""

    written: int = 0

    def listener(self) -> Listener:
        return Listener(queued=self._queued, text=self._heard)

    def _queued(self, ahead: int) -> None:
        say(f"waiting for the model server: {ahead} request{'s' * (ahead != 1)} ahead")

    def _heard(self, so_far: str) -> None:
        if len(so_far) < self.written:  # asked again: the answer starts over
            sys.stderr.write("\n")
            self.written = 0
        sys.stderr.write(one_line(so_far[self.written:], keep="\n"))
        sys.stderr.flush()
        self.written = len(so_far)

    def end(self) -> None:
        if self.written:
            sys.stderr.write("\n")
            sys.stderr.flush()

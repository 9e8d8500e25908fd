"""How fast each model server reads prompts and writes answers, as measured, for the process.

Every answer that says its speed (llama.cpp's ``timings``, or the pace of a streamed answer)
and the connection test add a sample for their server and model. Timeouts count on the slowest
recent sample; estimates shown to a user on the typical one (the median), and there is no
estimate until something was measured: a guess from another machine is worse than none.
"""

from __future__ import annotations

import statistics
import threading
from collections import deque
from dataclasses import dataclass

from core.endpoint import public_url

SAMPLES = 7  # recent samples kept per server and model


@dataclass(frozen=True)
class Speed:
    """Tokens per second; ``prompt`` None when no request said how fast it read."""

    answer: float
    prompt: float | None = None

    def seconds(self, prompt_tokens: float, answer_tokens: float) -> float:
        """Seconds a request of this size takes at this speed (no margin). A prompt speed not
        measured counts as ten times the answer speed, about what CPUs and GPUs do."""
        prompt_speed = self.prompt or self.answer * 10
        return prompt_tokens / prompt_speed + answer_tokens / self.answer


class SpeedBook:
    """Thread-safe samples per (server, model)."""

    def __init__(self) -> None:
        self._samples: dict[tuple[str, str], deque[Speed]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(base_url: str, model: str) -> tuple[str, str]:
        return public_url(base_url).removesuffix("/v1"), model

    def record(self, base_url: str, model: str, speed: Speed) -> None:
        with self._lock:
            kept = self._samples.setdefault(self._key(base_url, model), deque(maxlen=SAMPLES))
            kept.append(speed)

    def _kept(self, base_url: str, model: str) -> list[Speed]:
        with self._lock:
            return list(self._samples.get(self._key(base_url, model), ()))

    def slowest(self, base_url: str, model: str) -> Speed | None:
        """The slowest answer and prompt speeds among the recent samples (for timeouts)."""
        kept = self._kept(base_url, model)
        if not kept:
            return None
        prompts = [s.prompt for s in kept if s.prompt]
        return Speed(min(s.answer for s in kept), min(prompts) if prompts else None)

    def typical(self, base_url: str, model: str) -> Speed | None:
        """The median answer and prompt speeds among the recent samples (for estimates)."""
        kept = self._kept(base_url, model)
        if not kept:
            return None
        prompts = [s.prompt for s in kept if s.prompt]
        return Speed(statistics.median(s.answer for s in kept),
                     statistics.median(prompts) if prompts else None)


SPEEDS = SpeedBook()


@dataclass(frozen=True)
class Estimate:
    """How long some requests will take at a server's measured pace, before they start."""

    requests: int
    seconds: float | None  # None: the server's speed is not measured yet
    speed: Speed | None = None
    ahead: int = 0  # requests already in flight or waiting at the server, sent by this app

    def sentence(self, what: str) -> str:
        """``what`` with the time it will take, or why no time is given."""
        if self.seconds is None:
            return (f"{what}. This server's speed is not measured yet, so no time is guessed: "
                    "Test connection on Settings measures it, and the run shows its own pace "
                    "once it starts.")
        minutes = self.seconds / 60
        took = (f"about {self.seconds:.0f} s" if self.seconds < 90
                else f"about {minutes:.0f} min" if minutes < 90
                else f"about {minutes / 60:.1f} h")
        assert self.speed is not None
        reads = (f"reads {self.speed.prompt:,.0f} tokens/s, " if self.speed.prompt else "")
        ahead = (f", after the {self.ahead} request{'s' * (self.ahead != 1)} already waiting "
                 "at the server" if self.ahead else "")
        return (f"{what}: {took} at this server's measured pace ({reads}writes "
                f"{self.speed.answer:,.1f} tokens/s){ahead}.")


def estimate(base_url: str, model: str, requests: int, prompt_tokens: float,
             answer_tokens: float, ahead: int = 0) -> Estimate:
    """``requests`` requests of about ``prompt_tokens`` read and ``answer_tokens`` written,
    after ``ahead`` others, at the typical measured speed. Requests sent at once share the
    server (a CPU's slots share its cores, and the speeds were measured so), so they count
    one after the other."""
    speed = SPEEDS.typical(base_url, model)
    if speed is None:
        return Estimate(requests, None, None, ahead)
    each = speed.seconds(prompt_tokens, answer_tokens)
    return Estimate(requests, (requests + ahead) * each, speed, ahead)

"""The port: run a task on each item, each result as it is done; and this process's
workers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

S = TypeVar("S")
R = TypeVar("R")


@dataclass(frozen=True)
class TaskLost:
    """A task the cluster could not run to its end (a worker died, a node went away…)."""

    reason: str


class Workers(Protocol):
    where: str  # "this machine" or "the Ray cluster at ADDRESS", for the user

    def run(self, task: Callable[[S], R], items: Sequence[S],
            starting: Callable[[S], None] | None = None) -> Iterator[tuple[S, R | TaskLost]]:
        """``task(item)`` for each item, each result as it is done; ``starting(item)`` is told
        when a task starts in this process (a cluster's run out of sight)."""
        ...


class LocalWorkers:
    """Each task in turn, in this process."""

    where = "this machine"

    def run(self, task: Callable[[S], R], items: Sequence[S],
            starting: Callable[[S], None] | None = None) -> Iterator[tuple[S, R | TaskLost]]:
        for item in items:
            if starting:
                starting(item)
            yield item, task(item)

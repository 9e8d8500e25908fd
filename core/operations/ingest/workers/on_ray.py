"""Ray's workers: each item one Ray task on the cluster ``RAY_ADDRESS`` names (``ray start
--head`` on one machine, ``ray start --address HEAD:6379`` on each other one).

Ray is imported when the workers are made. This process connects as a Ray driver and ships the
``core`` package with its tasks (Ray's ``py_modules``), so the nodes need this project's
requirements installed, not a copy of the code.
A few tasks per CPU of the cluster are in flight at once; the others wait, so a large corpus
never sits in the cluster's memory whole. Results come back as they finish; tasks still running
when the caller stops (cancelled, failed) are cancelled.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from core.errors import ChunkLabError
from core.operations.ingest.workers.base import TaskLost

S = TypeVar("S")
R = TypeVar("R")
TASKS_PER_CPU = 2
CONNECT_TIMEOUT_S = 5
CORE = Path(__file__).resolve().parents[2]  # the ``core`` package, shipped to the workers


def _call(task: Callable[[Any], Any], item: Any) -> Any:
    return task(item)


def _answers(address: str) -> bool:
    """Something listens at ``host:port`` (``ray://host:port`` too); Ray itself would wait
    minutes for a head that is not there. ``auto`` and other forms are left to Ray."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return True
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError:
        return False
    return True


class RayWorkers:
    """Tasks on a Ray cluster; connecting fails with one sentence."""

    def __init__(self, address: str) -> None:
        try:
            import ray
        except ImportError:
            raise ChunkLabError("RAY_ADDRESS is set but Ray is not installed: install the "
                                "cluster extra (pip install -e .[cluster]) or unset "
                                "RAY_ADDRESS.") from None
        self._ray = ray
        self.where = f"the Ray cluster at {address}"
        if not ray.is_initialized():
            unreachable = ChunkLabError(
                f"The Ray cluster at {address} cannot be reached: start it (ray start --head), "
                "set RAY_AUTH_MODE=token if it asks for its token, or unset RAY_ADDRESS.")
            if not _answers(address):
                raise unreachable
            try:
                ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False,
                         runtime_env={"py_modules": [str(CORE)],
                                      "excludes": ["__pycache__", "*.pyc"]})
            except (ConnectionError, RuntimeError, ValueError) as err:
                raise unreachable from err
        self._remote = ray.remote(_call)

    def run(self, task: Callable[[S], R], items: Sequence[S],
            starting: Callable[[S], None] | None = None) -> Iterator[tuple[S, R | TaskLost]]:
        ray = self._ray
        waiting = list(reversed(items))
        shipped = ray.put(task)  # once, not once per item
        window = max(2, int(ray.cluster_resources().get("CPU", 1)) * TASKS_PER_CPU)
        running: dict[Any, S] = {}
        try:
            while waiting or running:
                while waiting and len(running) < window:
                    item = waiting.pop()
                    running[self._remote.remote(shipped, item)] = item
                [ref], _ = ray.wait(list(running), num_returns=1)
                item = running.pop(ref)
                try:
                    result: R | TaskLost = ray.get(ref)
                except ray.exceptions.RayError as err:
                    first = (str(err).strip().splitlines() or [type(err).__name__])[0]
                    result = TaskLost(f"lost on {self.where}: {first}")
                yield item, result
        finally:
            for ref in running:
                ray.cancel(ref)

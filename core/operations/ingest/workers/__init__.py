"""Where an ingest converts and chunks its documents: in this process, or as tasks on the Ray
cluster ``RAY_ADDRESS`` names (Ray's own variable; the ``cluster`` extra installs Ray).

The port is one method: run a task on each item and hand back each item's result as it is done
(in order here, in the order they finish on a cluster). A task must catch the errors a user can
cause and return them as its result; a task the cluster itself loses comes back as
:class:`TaskLost`, so one document's failure never stops the others. Ray is imported only when
a cluster is used (:mod:`core.operations.ingest.workers.on_ray`).
"""

from __future__ import annotations

import os

from core.operations.ingest.workers.base import LocalWorkers, TaskLost, Workers
from core.operations.ingest.workers.on_ray import RayWorkers

RAY_ADDRESS_ENV = "RAY_ADDRESS"

__all__ = ["LocalWorkers", "RayWorkers", "TaskLost", "Workers", "workers_from_env"]


def workers_from_env() -> Workers:
    """Ray's workers when ``RAY_ADDRESS`` is set, else this process."""
    address = os.environ.get(RAY_ADDRESS_ENV, "").strip()
    if not address:
        return LocalWorkers()
    return RayWorkers(address)

"""Where a tune's Optuna study lives.

By default in the data folder as an append-only journal file (no database driver to load), named
after what the tune searches (:func:`study_key`), so a cancelled or interrupted tune is resumed
where it stopped. With a storage URL (``sqlite:///file`` on one machine, ``postgresql://…`` for
several) and a study name, several tune processes add trials to one study: each asks the study
for its next configuration and recommends from every trial in it. A study remembers what it
searches (its key); joining it with other questions, documents or settings is refused.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from core.config import data_dir
from core.documents.model import Document
from core.errors import ChunkLabError
from core.evaluation.questions import QuestionSet
from core.evaluation.split import Split

if TYPE_CHECKING:
    import optuna

SAMPLER_SEED = 0
T = TypeVar("T")
KEY_ATTR = "chunklab_key"  # the study's user attribute naming what it searches
DRIVER_EXTRA = "team"  # the optional extra with the PostgreSQL driver (pyproject.toml)


class StudyError(ChunkLabError):
    """A study that cannot be opened or joined: a bad storage URL, or one that searches
    something else."""


def study_key(question_set: QuestionSet, documents: Mapping[str, Document], objective: str,
              constraints: object, split: Split, space_signature: str = "") -> str:
    """Names what a study searches: the same questions, documents, objective, constraints
    (budget, recall floor), split and space resume the same study (without a space: names the
    inputs alone)."""
    payload = [question_set.version, sorted((cid, hashlib.sha256(d.text.encode()).hexdigest())
                                            for cid, d in documents.items()),
               objective, constraints, split.share, split.seed, space_signature]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:16]


def _sampler(seed: int | None) -> optuna.samplers.BaseSampler:
    import optuna

    with warnings.catch_warnings():  # multivariate and group are marked experimental
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True,
                                          n_startup_trials=6)


def open_study(key: str, *, fresh: bool, storage: str | None = None,
               name: str | None = None) -> optuna.Study:
    """The study of ``key``: in the data folder's journal (``fresh``: started anew), or named
    ``name`` (default ``key``) at the ``storage`` URL, created or joined — never emptied, as
    other workers may be adding to it."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    seed: int | None = SAMPLER_SEED
    if storage is None:
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        path = data_dir() / "tune" / f"{name or key}.journal"
        path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            path.unlink(missing_ok=True)
        backend: optuna.storages.BaseStorage = JournalStorage(JournalFileBackend(str(path)))
    else:
        url = storage
        _require_driver(url)
        backend = _retrying(lambda: optuna.storages.RDBStorage(url),
                            f"Cannot open the study storage {_safe(storage)}: give an Optuna "
                            "storage URL such as sqlite:///tune.db or postgresql://user@host/db")
        seed = None  # workers sharing a study draw apart
    study = _retrying(lambda: optuna.create_study(
        storage=backend, study_name=name or key, sampler=_sampler(seed),
        directions=["maximize", "minimize"], load_if_exists=True),
        f"Cannot open the study {name or key!r}; try again")
    searches = study.user_attrs.get(KEY_ATTR)
    if searches is None:
        study.set_user_attr(KEY_ATTR, key)
    elif searches != key:
        raise StudyError(f"The study {name or key!r} searches other questions, documents or "
                         "settings (objective, budget, recall floor, held-back share, search "
                         "space); join it with the same ones, or name a new study.")
    return study


def _require_driver(url: str) -> None:
    """Refuse at once, naming what to install, a storage URL whose database driver is missing
    (a bad URL is left to Optuna, which says so)."""
    from sqlalchemy.engine import make_url

    try:
        make_url(url).get_dialect().import_dbapi()
    except ImportError as err:
        dialect = url.partition(":")[0].partition("+")[0]
        remedy = (f"install the {DRIVER_EXTRA} extra" if dialect == "postgresql"
                  else f"install it, or use PostgreSQL with the {DRIVER_EXTRA} extra")
        raise StudyError(f"The study storage {_safe(url)} needs the database driver "
                         f"{err.name or dialect!r}, which is not installed: {remedy} "
                         f"(pip install -e .[{DRIVER_EXTRA}]).") from None
    except Exception:  # a URL SQLAlchemy cannot read
        return


def _retrying(make: Callable[[], T], fail: str, attempts: int = 5) -> T:
    """``make()``; workers starting together may find the database busy or its tables half
    made: they try again a few times, then fail with ``fail`` and the driver's error kind."""
    attempt = 0
    while True:
        try:
            return make()
        except Exception as err:  # the driver's own errors: busy, half-made, refused, bad URL
            attempt += 1
            if attempt == attempts:
                raise StudyError(f"{fail} ({type(err).__name__}).") from None
            time.sleep(0.2 * attempt)


def _latest_path(inputs: str) -> Path:
    return data_dir() / "tune" / "latest" / inputs


def remember_latest(inputs: str, key: str) -> None:
    """Note ``key`` as the last study tuned for the inputs ``inputs`` names (the space may grow
    since, as a preset saved from it joins the presets a tune tries)."""
    path = _latest_path(inputs)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(key, encoding="utf-8")


def latest(inputs: str) -> str | None:
    """The last study tuned for ``inputs``, if any."""
    try:
        return _latest_path(inputs).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def study_exists(key: str, *, storage: str | None = None, name: str | None = None) -> bool:
    """Whether the study :func:`open_study` would open is there already (nothing is made)."""
    if storage is None:
        return (data_dir() / "tune" / f"{name or key}.journal").exists()
    import optuna

    try:
        return (name or key) in optuna.get_all_study_names(storage)
    except Exception:  # as open_study: a bad URL, a missing driver, a database that is down
        return False


def _safe(url: str) -> str:
    """``url`` without a password (``postgresql://user:***@host/db``)."""
    head, at, tail = url.rpartition("@")
    if not at or "://" not in head:
        return url
    scheme, _, credentials = head.partition("://")
    user, password, _ = credentials.partition(":")
    return f"{scheme}://{user}{':***' if password else ''}@{tail}"

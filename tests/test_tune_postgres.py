"""Opt-in (``pytest -m postgres``; Debian's postgresql package and the ``team`` extra): two tune
workers with data folders of their own share one study in a real PostgreSQL database, as
analysts on several machines do."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chroma_server import free_port
from tests.tune_workers import assert_one_study, run_workers

pytestmark = pytest.mark.postgres
pytest.importorskip("psycopg", reason="PostgreSQL's driver: pip install -e .[team]")

OWNER = "postgres"  # initdb and the server refuse to run as root: as root, they run as this user
USER, DATABASE = "chunklab", "team"


def _bin_dir() -> Path:
    """The newest of Debian's PostgreSQL versions (``/usr/lib/postgresql/VERSION/bin``)."""
    found = [p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").exists()]
    if not found:
        pytest.skip("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin "
                    "(apt-get install postgresql)")
    return max(found, key=lambda p: [int(n) for n in p.parent.name.split(".") if n.isdigit()])


def _as_owner(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", OWNER, "--", *command]


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed: {done.stderr.strip()}")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A throwaway cluster (its own folder, port and socket folder, trust on 127.0.0.1 only)
    with an empty database; stopped and removed afterwards."""
    bin_dir = _bin_dir()
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam(OWNER)
        except KeyError:
            pytest.skip(f"running as root and there is no {OWNER!r} user to run PostgreSQL as")
    # Not under tmp_path: as root its parents are closed to the postgres user.
    folder = Path(tempfile.mkdtemp(prefix="chunklab-pg", dir="/tmp"))
    if os.geteuid() == 0:
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    data, port = folder / "data", free_port()
    _run(_as_owner([str(bin_dir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust",
                    "-E", "UTF8", "--no-sync"]))
    server = [str(bin_dir / "pg_ctl"), "-D", str(data), "-w", "-t", "60"]
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    try:
        _run(_as_owner([*server, "-l", str(folder / "server.log"), "-o", options, "start"]))
        _run([str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", USER,
              DATABASE])
        yield f"postgresql://{USER}@127.0.0.1:{port}/{DATABASE}"
    finally:
        subprocess.run(_as_owner([*server, "-m", "fast", "stop"]), capture_output=True,
                       timeout=120)
        shutil.rmtree(folder, ignore_errors=True)


def test_two_tune_workers_share_one_study_in_postgresql(postgres_url, tmp_path):
    outputs = run_workers(postgres_url, [tmp_path / "alice", tmp_path / "bob"])
    assert_one_study(postgres_url, outputs, total=6)

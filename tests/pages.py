"""Helpers for the AppTest page tests: a data folder of their own with chosen sample files."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

import ui.resources

ROOT = Path(__file__).resolve().parents[1]


def page_path(name: str) -> str:
    return str(ROOT / "pages" / f"{name}.py")


def use_samples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                files: dict[str, str | bytes]) -> Iterator[Path]:
    """A data folder in ``tmp_path`` whose library starts from ``files`` (name → content)
    instead of the shipped samples; yields the data folder. No LLM endpoint is configured."""
    samples = tmp_path / "samples"
    samples.mkdir()
    for name, content in files.items():
        path = samples / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    for name in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "CHROMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(ui.resources, "SAMPLES_DIR", samples)
    ui.resources.clear()
    yield tmp_path / "data"
    ui.resources.clear()


def shown(markdown: str) -> str:
    """Markdown source as a reader sees it: backslash escapes and word joiners removed."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def texts(at: AppTest) -> str:
    """Every message, Markdown and caption on the page as a reader sees it, one per line."""
    parts = [e.value for kind in ("success", "info", "warning", "error", "markdown", "caption")
             for e in getattr(at, kind)]
    return "\n".join(shown(str(p)) for p in parts)


def click(at: AppTest, key: str) -> AppTest:
    at = next(b for b in at.button if b.key == key).click().run()
    assert not at.exception, at.exception
    return at


def record_downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, Callable[[], object]]:
    """The data makers of the download buttons the runs draw, by the deferred file id their
    button carries: AppTest drops its runtime after each run, so they are kept here."""
    made: dict[str, Callable[[], object]] = {}
    register = MediaFileManager.add_deferred

    def keep(self: MediaFileManager, data_callable: Callable[[], Any], *args: Any,
             **kwargs: Any) -> str:
        file_id = register(self, data_callable, *args, **kwargs)
        made[file_id] = data_callable
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", keep)
    return made


def download(at: AppTest, key: str, made: dict[str, Callable[[], object]]) -> bytes:
    """What the download button ``key`` gives when clicked (its data made now)."""
    button = next(b for b in at.get("download_button") if b.key == key)
    data = made[button.proto.deferred_file_id]()
    assert isinstance(data, bytes)
    return data

"""Process-wide settings: where user data lives and the offline environment defaults."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

DATA_DIR_ENV = "CHUNKLAB_DATA_DIR"
DEFAULT_DATA_DIR = "data"
# The sample documents and their question sets, shipped with the repository.
SAMPLES_DIR = Path(__file__).resolve().parent.parent / "sample_docs"
SAMPLE_QUESTIONS_DIR = SAMPLES_DIR / "questions"

# Set before docling / huggingface_hub / chromadb are imported: a download attempt fails at
# once instead of hanging on the closed network, and Chroma sends no telemetry.
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def configure_runtime() -> None:
    """Apply the offline defaults; a value the user set explicitly wins."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


def data_dir() -> Path:
    """The folder that holds uploads, caches, settings and the Chroma store (created on demand)."""
    path = _resolved(os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR, os.getcwd())
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_cache_dir() -> Path:
    """Where files derived once per machine live, shared by every data folder (fetched models,
    tokenizer tables): ``$XDG_CACHE_HOME/chunklab``, else ``~/.cache/chunklab``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache").expanduser() / "chunklab"


@lru_cache(maxsize=32)
def _resolved(folder: str, cwd: str) -> Path:
    """The absolute path of ``folder`` seen from ``cwd`` (resolving looks at every part of the
    path on disk, and a page asks for the data folder a hundred times a click)."""
    return (Path(cwd) / Path(folder).expanduser()).resolve()

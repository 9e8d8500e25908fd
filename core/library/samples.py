"""The shipped samples are examples, kept apart from the user's documents: what a new chunk
set, a search or a generated question set starts from is the user's documents, the samples only
while there are none; the user can remove them all at once, and a sample the user uploads again
becomes theirs.

A sample is converted once per machine, not once per data folder: converting the shipped deck,
report and PDFs takes seconds that every new data folder's first page would wait (and every test
with a folder of its own). The conversion is kept under ``user_cache_dir()/samples``, keyed by the
file's bytes and name and by the converter — its version and the text of its code, so a changed
converter, released or not, converts again. Only samples go there: a user's documents stay in
their data folder."""

from __future__ import annotations

import hashlib
import logging
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError

from core.config import user_cache_dir
from core.documents import CONVERTER_VERSION, SUPPORTED_EXTENSIONS
from core.documents.model import Document, content_id
from core.files import write_atomic
from core.library.index import LibraryEntry

log = logging.getLogger(__name__)
CONVERTER_CODE = Path(__file__).resolve().parents[1] / "documents"


def sample_files(folder: Path) -> list[Path]:
    """The files of ``folder`` the library can take as samples, by name."""
    return [path for path in sorted(Path(folder).iterdir())
            if path.is_file() and path.suffix.lower() in SUPPORTED_EXTENSIONS]


def default_entries(entries: list[LibraryEntry]) -> list[LibraryEntry]:
    """The user's own entries, or every entry (the samples) while the user has none."""
    return [e for e in entries if not e.sample] or entries


@lru_cache(maxsize=1)
def converter_fingerprint() -> str:
    """A hash of the converter's version and of the text of its code."""
    digest = hashlib.sha256(CONVERTER_VERSION.encode())
    for path in sorted(CONVERTER_CODE.rglob("*.py")):
        digest.update(path.relative_to(CONVERTER_CODE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _cached_path(data: bytes, name: str) -> Path:
    named = hashlib.sha256(name.encode()).hexdigest()[:8]
    return (user_cache_dir() / "samples"
            / f"{converter_fingerprint()}-{content_id(data)}-{named}.json")


def converted_sample(data: bytes, name: str) -> Document | None:
    """The sample ``data`` (named ``name``) as this converter converted it on this machine
    before; None when it never did (or the file kept cannot be read)."""
    path = _cached_path(data, name)
    try:
        return Document.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValidationError) as err:
        log.warning("converting the sample %s again: %s", name, err)
        return None


def keep_converted_sample(data: bytes, name: str, doc: Document) -> None:
    """Keep the conversion of a sample for every data folder of this machine (a cache that
    cannot be written only costs the next folder a conversion)."""
    try:
        write_atomic(_cached_path(data, name), doc.model_dump_json().encode())
    except OSError as err:
        log.warning("the conversion of the sample %s is not kept: %s", name, err)

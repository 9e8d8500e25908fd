"""The shipped samples are examples, kept apart from the user's documents: what a new chunk
set, a search or a generated question set starts from is the user's documents, the samples only
while there are none; the user can remove them all at once, and a sample the user uploads again
becomes theirs."""

from __future__ import annotations

from pathlib import Path

from core.documents import SUPPORTED_EXTENSIONS
from core.library.index import LibraryEntry


def sample_files(folder: Path) -> list[Path]:
    """The files of ``folder`` the library can take as samples, by name."""
    return [path for path in sorted(Path(folder).iterdir())
            if path.is_file() and path.suffix.lower() in SUPPORTED_EXTENSIONS]


def default_entries(entries: list[LibraryEntry]) -> list[LibraryEntry]:
    """The user's own entries, or every entry (the samples) while the user has none."""
    return [e for e in entries if not e.sample] or entries

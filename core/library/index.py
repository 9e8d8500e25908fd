"""The library's index (``index.json``): every stored document's entry, in the order added, and
the ids of the shipped samples the user removed (so a restart does not bring them back)."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from core.documents.model import Document
from core.files import write_json

log = logging.getLogger(__name__)
INDEX = "index.json"


@dataclass(frozen=True)
class LibraryEntry:
    doc_id: str
    source_name: str
    format: str
    size_bytes: int
    added: float  # unix time
    converter_version: str
    # One of the shipped samples, not the user's (None: stored before samples were told apart;
    # ensure_samples settles it).
    sample: bool | None = None
    seconds: float | None = None  # how long its conversion took


@dataclass
class LibraryIndex:
    documents: list[LibraryEntry] = field(default_factory=list)
    dismissed: list[str] = field(default_factory=list)  # samples the user removed

    def find(self, doc_id: str) -> LibraryEntry | None:
        return next((e for e in self.documents if e.doc_id == doc_id), None)

    def update(self, doc_id: str, **changes: Any) -> None:
        """Entry ``doc_id`` with ``changes`` (field: value) instead of its own."""
        self.documents = [replace(e, **changes) if e.doc_id == doc_id else e
                          for e in self.documents]

    def remove(self, doc_id: str) -> None:
        self.documents = [e for e in self.documents if e.doc_id != doc_id]

    @classmethod
    def read(cls, root: Path) -> LibraryIndex:
        """The index of the library at ``root``; rebuilt from the document folders when it is
        missing or unreadable."""
        try:
            data = json.loads((root / INDEX).read_text(encoding="utf-8"))
            return cls([LibraryEntry(**e) for e in data["documents"]],
                       list(data.get("dismissed", [])))
        except FileNotFoundError:
            return cls.rebuild(root)
        except (ValueError, KeyError, TypeError):
            log.warning("library index %s is unreadable; rebuilding it", root / INDEX)
            return cls.rebuild(root)

    @classmethod
    def rebuild(cls, root: Path) -> LibraryIndex:
        """An index from the document folders (their converter version unknown: re-convert)."""
        entries = []
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            originals = list(folder.glob("original.*"))
            try:
                doc = Document.model_validate_json((folder / "document.json").read_bytes())
            except (OSError, ValueError):
                continue
            if originals:
                entries.append(LibraryEntry(doc.doc_id, doc.source_name, doc.format,
                                            originals[0].stat().st_size,
                                            folder.stat().st_mtime, "unknown"))
        return cls(sorted(entries, key=lambda e: e.added))

    def write(self, root: Path) -> None:
        write_json(root / INDEX, {"documents": [asdict(e) for e in self.documents],
                                  "dismissed": self.dismissed}, indent=1)



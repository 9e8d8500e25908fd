"""What a failed ingest must take out of the store: the set it created, or the documents it
stored into an existing set.

When the store cannot be reached to take it out (a Chroma server that went away mid-run), the
undo is noted in a small file on this machine and done the next time the sets are listed (the
Chunk sets page, ``sets list``, an ingest's start), so the store ends as it was before the run.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ValidationError

from core.files import read_json_object, write_json


class Undo(BaseModel):
    chunk_set: str
    whole_set: bool  # the run created the set: delete it
    doc_ids: list[str] = []  # else: the documents it stored or started to store


class UndoJournal:
    """Undos still to do, kept in ``path``."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def pending(self) -> list[Undo]:
        try:
            return [Undo.model_validate(entry)
                    for entry in read_json_object(self._path).get("undo", [])]
        except ValidationError:
            return []

    def add(self, undo: Undo) -> None:
        self._write([*self.pending(), undo])

    def done(self, undo: Undo) -> None:
        self._write([entry for entry in self.pending() if entry != undo])

    def _write(self, undos: list[Undo]) -> None:
        if undos:
            write_json(self._path, {"undo": [entry.model_dump() for entry in undos]})
        else:
            self._path.unlink(missing_ok=True)

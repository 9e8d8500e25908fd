"""The document library: every upload, kept on disk and converted once.

Layout under ``root`` (default ``<data>/documents``)::

    index.json              order, names, sizes, converter version of every document and
                            whether it is one of the shipped samples; the sample ids the user
                            removed (so a restart does not bring them back)
    <doc_id>/original.<ext> the uploaded bytes
    <doc_id>/document.json  the converted Document
    <doc_id>/pages/<n>.jpg  page images of a PDF, rendered from the original on first view

Writes go to a temporary file first and are then renamed, and a document is only listed in the
index after its files are written, so a failed or interrupted add loses nothing already stored.
A stored document converted by an older converter (see ``CONVERTER_VERSION``) is converted again
from its original on first read.

The index is typed (:mod:`core.library.index`); the shipped samples are kept apart from the
user's documents by the rules of :mod:`core.library.samples`.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from pathlib import Path, PurePath

from core.config import data_dir
from core.documents import CONVERTER_VERSION, convert
from core.documents.model import Document, content_id
from core.documents.pdf.render import render_page_jpeg
from core.documents.worker import run_in_worker
from core.errors import ChunkLabError, ConversionError
from core.files import write_atomic
from core.library.index import LibraryEntry, LibraryIndex
from core.library.samples import (
    converted_sample,
    default_entries,
    keep_converted_sample,
    sample_files,
)
from core.progress import ProgressFn

log = logging.getLogger(__name__)


class UnknownDocumentError(ChunkLabError, KeyError):
    """No document with this id in the library."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "Unknown document."


class DocumentLibrary:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._loaded: dict[str, Document] = {}

    def _index(self) -> LibraryIndex:
        return LibraryIndex.read(self.root)

    def entries(self) -> list[LibraryEntry]:
        """What is stored, in the order it was added (name, format, size, converter version)."""
        with self._lock:
            return list(self._index().documents)

    # -- documents --------------------------------------------------------------------------
    def add(self, data: bytes, filename: str, *, sample: bool = False,
            progress: ProgressFn | None = None) -> Document:
        """Convert and store an upload (``sample``: a shipped sample; ``progress`` hears of a
        long PDF's pages); the same bytes added twice are one document, the user's once they
        upload it. Raises ConversionError before anything is written when the file cannot be
        converted."""
        name = PurePath(filename.replace("\\", "/")).name or filename
        with self._lock:  # already stored: no conversion (pages re-add on every rerun)
            if data and self._index().find(content_id(data)):
                if not sample:
                    self._make_own(content_id(data), name)
                return self.get(content_id(data))
        started = time.perf_counter()
        doc = converted_sample(data, name) if sample else None
        if doc is None:
            doc = convert(data, name, progress=progress)
            if sample:
                keep_converted_sample(data, name, doc)
        seconds = round(time.perf_counter() - started, 2)
        with self._lock:
            index = self._index()
            if doc.doc_id in index.dismissed:
                index.dismissed.remove(doc.doc_id)
            if index.find(doc.doc_id):  # added meanwhile
                return self.get(doc.doc_id)
            self._store(doc, data)
            index.documents.append(LibraryEntry(doc.doc_id, doc.source_name, doc.format,
                                                len(data), time.time(), CONVERTER_VERSION,
                                                sample=sample, seconds=seconds))
            index.write(self.root)
            self._loaded[doc.doc_id] = doc
        return doc

    def _make_own(self, doc_id: str, name: str) -> None:
        """A stored sample uploaded by the user becomes theirs, under the name they gave it
        (pickers and citations then say the user's name, not the sample's)."""
        with self._lock:
            index = self._index()
            entry = index.find(doc_id)
            if entry is None or entry.sample is False:
                return
            renamed = entry.sample and name != entry.source_name
            if renamed:
                doc = self.get(doc_id).model_copy(update={"source_name": name})
                write_atomic(self.root / doc_id / "document.json",
                             doc.model_dump_json().encode())
                self._loaded[doc_id] = doc
            index.update(doc_id, sample=False,
                         source_name=name if renamed else entry.source_name)
            index.write(self.root)

    def _mark_sample(self, doc_id: str) -> None:
        """Record that a stored document is a shipped sample (written only when it changes)."""
        with self._lock:
            index = self._index()
            entry = index.find(doc_id)
            if entry is not None and not entry.sample:
                index.update(doc_id, sample=True)
                index.write(self.root)

    def _store(self, doc: Document, data: bytes) -> None:
        folder = self.root / doc.doc_id
        folder.mkdir(exist_ok=True)
        write_atomic(folder / f"original.{doc.format}", data)
        write_atomic(folder / "document.json", doc.model_dump_json().encode())

    def documents(self) -> list[Document]:
        """Every stored document, in the order added."""
        return [self.get(e.doc_id) for e in self.entries()]

    def sample_ids(self) -> set[str]:
        """The ids of the shipped samples in the library."""
        return {e.doc_id for e in self.entries() if e.sample}

    def default_documents(self) -> list[Document]:
        """What a new chunk set, a search or a question set starts from: the user's documents,
        or the samples while the user has none of their own."""
        return [self.get(e.doc_id) for e in default_entries(self.entries())]

    def remove_samples(self) -> list[str]:
        """Remove every shipped sample (they stay removed after a restart); their names."""
        samples = [e for e in self.entries() if e.sample]
        for entry in samples:
            self.remove(entry.doc_id)
        return [e.source_name for e in samples]

    def get(self, doc_id: str) -> Document:
        with self._lock:
            if doc_id in self._loaded:
                return self._loaded[doc_id]
            index = self._index()
            entry = index.find(doc_id)
            if entry is None:
                raise UnknownDocumentError(f"There is no document with id {doc_id!r}.")
            doc = self._load(entry, index)
            self._loaded[doc_id] = doc
            return doc

    def _load(self, entry: LibraryEntry, index: LibraryIndex) -> Document:
        folder = self.root / entry.doc_id
        stored = folder / "document.json"
        if entry.converter_version == CONVERTER_VERSION and stored.exists():
            return Document.model_validate_json(stored.read_bytes())
        try:  # converted by another converter version (or never): convert the original again
            started = time.perf_counter()
            doc = convert(self.original(entry.doc_id), entry.source_name)
            seconds = round(time.perf_counter() - started, 2)
        except ConversionError:
            log.warning("re-converting %s failed; keeping the stored version", entry.source_name)
            return Document.model_validate_json(stored.read_bytes())
        write_atomic(stored, doc.model_dump_json().encode())
        index.update(entry.doc_id, converter_version=CONVERTER_VERSION, seconds=seconds)
        index.write(self.root)
        return doc

    def original(self, doc_id: str) -> bytes:
        """The uploaded bytes of a stored document."""
        originals = list((self.root / doc_id).glob("original.*"))
        if not originals:
            raise UnknownDocumentError(f"There is no document with id {doc_id!r}.")
        return originals[0].read_bytes()

    def entry(self, doc_id: str) -> LibraryEntry:
        """What the index says of a stored document (size, when added, conversion time)."""
        found = self._index().find(doc_id)
        if found is None:
            raise UnknownDocumentError(f"There is no document with id {doc_id!r}.")
        return found

    def page_image(self, doc_id: str, page: int) -> bytes:
        """A JPEG of page ``page`` of a stored PDF, rendered from its uploaded bytes once (in a
        worker process, as untrusted input) and kept beside it."""
        path = self.root / doc_id / "pages" / f"{page}.jpg"
        if path.exists():
            return path.read_bytes()
        entry = self.entry(doc_id)
        image: bytes = run_in_worker(render_page_jpeg, self.original(doc_id), page,
                                     filename=entry.source_name, timeout=30.0)
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, image)
        return image

    def remove(self, doc_id: str) -> None:
        """Delete a document; a removed sample stays removed after a restart."""
        with self._lock:
            index = self._index()
            if index.find(doc_id) is None:
                raise UnknownDocumentError(f"There is no document with id {doc_id!r}.")
            index.remove(doc_id)
            index.dismissed.append(doc_id)
            index.write(self.root)
            self._loaded.pop(doc_id, None)
            shutil.rmtree(self.root / doc_id, ignore_errors=True)

    def ensure_samples(self, folder: Path) -> list[Document]:
        """Add every supported file of ``folder`` that is not stored yet (nor removed by the
        user); return the library's documents for all of the folder's files."""
        docs = []
        for path in sample_files(folder):
            data = path.read_bytes()
            doc_id = content_id(data)
            with self._lock:
                index = self._index()
                if doc_id in index.dismissed:
                    continue
                stored = index.find(doc_id)
                if stored is not None:
                    if stored.sample is None:  # stored before samples were told apart
                        self._mark_sample(doc_id)
                    docs.append(self.get(doc_id))
                    continue
            try:
                docs.append(self.add(data, path.name, sample=True))
            except ConversionError as err:
                log.warning("sample %s was not added: %s", path.name, err)
        return docs


def default_library() -> DocumentLibrary:
    return DocumentLibrary(data_dir() / "documents")

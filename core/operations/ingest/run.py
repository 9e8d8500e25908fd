"""Batch (re-)processing into a chunk set: chunk, embed, store, resume.

Documents go through in batches of ``batch_size``: each batch is converted, chunked, embedded
together (one length-sorted pass over all its chunks) and written; only then do its documents
count as stored in the set. A document already stored there is skipped without converting it
(its id is the hash of its bytes), so a run that was killed goes on where it stopped when started
again with the same arguments. Other chunk sets are never touched (cutover is a separate step).

A set is embedded by one embedder (MiniLM, or the user's endpoint), chosen when it is created.
A run that fails (an embedding endpoint down mid-run, say) leaves the store as it was: what it
stored is taken out again, and a set it created is deleted (a Chroma server that went away: once
it answers again, :mod:`core.store.undo`). A cancelled run keeps what it stored,
so running it again resumes.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from core.chunking.chunk import Chunk
from core.documents import SUPPORTED_EXTENSIONS, convert
from core.documents.model import Document, content_id
from core.embeddings import MAX_WORD_PIECES, EmbedderRef
from core.embeddings.port import Embedder, MiniLM, resolve
from core.embeddings.settings import EmbeddingSettings
from core.errors import ChunkLabError, StoreError
from core.llm.run import RunWarning
from core.operations.ingest.task import ChunkTask
from core.operations.ingest.workers import LocalWorkers, TaskLost, Workers, workers_from_env
from core.operations.strategies import DEFAULT_OPTIONS, RunOptions, validated_config
from core.progress import Cancelled, Tracker
from core.store import ChunkSetInfo, ChunkStore, FailedDocument
from core.store.undo import Undo
from core.store.views import embedding_views

DEFAULT_BATCH_SIZE = 8
# Word pieces embedded between two progress reports: several of the encoder's batches (so every
# core has work), few enough for the bar to move every second or two.
SLICE_WORD_PIECES = 4096
CHUNKING_SHARE = 0.2  # of a document's step, for a local strategy; embedding is the rest


@dataclass(frozen=True)
class Source:
    """A document to ingest: its id is known before it is loaded (so skipping costs nothing)."""

    name: str
    doc_id: str
    load: Callable[[], Document]

    @classmethod
    def from_document(cls, document: Document) -> Source:
        return cls(document.source_name, document.doc_id, lambda: document)

    @classmethod
    def from_path(cls, path: Path) -> Source:
        data = path.read_bytes()
        return cls(path.name, content_id(data), lambda: convert(data, path.name))


def _count(value: int, word: str) -> str:
    return f"{value:,} {word}{'' if value == 1 else 's'}"


@dataclass
class IngestSummary:
    chunk_set: str
    documents: int = 0  # stored by this run
    skipped: int = 0  # already in the set
    chunks: int = 0
    tokens: int = 0
    seconds: float = 0.0
    over_limit: int = 0  # chunks embedded truncated (longer than MiniLM reads)
    where: str = LocalWorkers.where  # where documents were converted and chunked
    failed: list[tuple[str, str]] = field(default_factory=list)  # (document, sentence)
    notes: list[tuple[str, RunWarning]] = field(default_factory=list)  # (document, LLM warning)

    def sentence(self) -> str:
        text = (
            f"Chunk set “{self.chunk_set}”: stored {_count(self.documents, 'document')} as "
            f"{_count(self.chunks, 'chunk')} ({_count(self.tokens, 'token')}) in "
            f"{self.seconds:.1f} s"
        )
        if self.where != LocalWorkers.where:
            text += f", converted and chunked on {self.where}"
        if self.skipped:
            text += f"; skipped {self.skipped} already stored"
        if self.failed:
            text += f"; {len(self.failed)} failed"
        return text + "."

    def warnings(self, *, truncation: bool = True) -> list[str]:
        """Failed documents and notes, then (``truncation``) how many chunks were embedded
        truncated — a page that lists its sets with that figure leaves it out."""
        lines = [f"{name}: {message}" for name, message in self.failed]
        kinds: dict[str, Counter[str]] = {}
        for name, note in self.notes:
            kinds.setdefault(name, Counter())[note.kind] += 1
        lines += [f"{name}: {_count(sum(found.values()), 'warning')} ("
                  + ", ".join(f"{kind} ×{n}" for kind, n in found.most_common()) + ")"
                  for name, found in kinds.items()]
        if truncation and self.over_limit:
            lines.append(
                f"{_count(self.over_limit, 'chunk')} longer than MiniLM's {MAX_WORD_PIECES} word "
                "pieces: embedded truncated (their tail does not count for retrieval)."
            )
        return lines


def open_set(
    store: ChunkStore,
    name: str,
    strategy: str,
    settings: dict[str, Any],
    *,
    description: str = "",
    prompt_versions: dict[str, str] | None = None,
    embedder: Embedder | None = None,
) -> ChunkSetInfo:
    """The set to write into: created, or the existing one when its chunking and embedder are
    the same."""
    resolved = validated_config(strategy, settings).model_dump(mode="json")
    ref = (embedder or MiniLM()).ref
    info = store.create_set(
        ChunkSetInfo(
            name=name,
            strategy=strategy,
            settings=resolved,
            prompt_versions=prompt_versions or {},
            description=description,
            embedder=ref.model,
            embedder_url=ref.base_url,
            **({} if ref.builtin else {"dimension": 0}),
        ),
        exist_ok=True,
    )
    mismatch = _mismatch(info, strategy, resolved, ref)
    if mismatch:
        raise StoreError(mismatch)
    return info


def _mismatch(info: ChunkSetInfo, strategy: str, resolved: dict[str, Any],
              ref: EmbedderRef) -> str:
    """Why chunks of ``strategy`` with ``resolved`` settings, embedded by ``ref``, cannot be
    added to the existing set ``info`` ("" when they can)."""
    if (info.strategy, info.settings) != (strategy, resolved):
        return (f"The chunk set “{info.name}” already holds {info.strategy} chunks with other "
                "settings; choose a new name to re-process.")
    if info.embedder_ref != ref:
        return (f"The chunk set “{info.name}” is embedded with {info.embedder_ref.label}, not "
                f"{ref.label}; choose a new name to embed it with another model.")
    return ""


@dataclass(frozen=True)
class NameCheck:
    """What creating the set ``name`` would do: ``problem`` is one sentence ("" when the name
    is free) holding the name as typed (escape it to show it); ``blocking``: it cannot be
    created so."""

    problem: str = ""
    blocking: bool = False


def check_set_name(store: ChunkStore, name: str, strategy: str, settings: dict[str, Any],
                   embedder: EmbedderRef) -> NameCheck:
    """Whether ingesting into ``name`` with this chunking and embedder would create a set, add
    to one (a warning), or be refused as :func:`open_set` refuses it."""
    if not name.strip():
        return NameCheck("Give the new set a name.", True)
    try:
        resolved = validated_config(strategy, settings).model_dump(mode="json")
    except ChunkLabError as err:
        return NameCheck(str(err), True)
    if not store.has_set(name):
        return NameCheck()
    mismatch = _mismatch(store.info(name), strategy, resolved, embedder)
    if mismatch:
        return NameCheck(mismatch, True)
    return NameCheck(f"A set named “{name}” already exists with these settings: creating it "
                     "again adds the chosen documents it does not hold yet.")


def ingest(
    sources: Sequence[Source],
    chunk_set: str,
    strategy: str,
    settings: dict[str, Any] | None = None,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    store: ChunkStore | None = None,
    description: str = "",
    prompt_versions: dict[str, str] | None = None,
    options: RunOptions = DEFAULT_OPTIONS,
    embedder: Embedder | EmbedderRef | None = None,
    embedding: EmbeddingSettings | None = None,
    workers: Workers | None = None,
) -> IngestSummary:
    """Chunk and store ``sources`` into ``chunk_set``; documents already there are skipped.

    ``options`` bring progress (per document) and cancellation, and for the LLM strategy the
    connection and the prompt library. Cancelling stops before the next document: what is
    stored stays stored. ``embedder`` (default MiniLM) embeds a new set, and chunks it when the
    strategy embeds (cluster); an existing set keeps its own. An embedder given by its reference
    is asked with ``embedding``, the endpoint settings that bring its key (default: the saved
    ones and the environment). Any other failure undoes the run (see the module's docstring).
    ``workers`` (default: Ray's when ``RAY_ADDRESS`` is set, else this process) convert and
    chunk.
    """
    if batch_size < 1:
        raise StoreError("The batch size must be at least 1 document.")
    settings = settings or {}
    started = time.perf_counter()
    store = store or ChunkStore()
    embedder = (resolve(embedder, embedding) if isinstance(embedder, EmbedderRef)
                else embedder or MiniLM())
    workers = workers or workers_from_env()
    existed = store.has_set(chunk_set)
    info = open_set(store, chunk_set, strategy, settings, description=description,
                    prompt_versions=prompt_versions, embedder=embedder)
    written: list[str] = []  # documents this run stored or started to store
    try:
        return _ingest(sources, info, strategy, settings, batch_size, store, options,
                       embedder, workers, existed, started, written)
    except Cancelled:
        raise
    except Exception:  # a kill (Ctrl-C, a page left mid-run) keeps what is stored: it resumes
        store.undo(Undo(chunk_set=info.name, whole_set=not existed, doc_ids=written))
        raise


def _ingest(sources: Sequence[Source], info: ChunkSetInfo, strategy: str,
            settings: dict[str, Any], batch_size: int, store: ChunkStore, options: RunOptions,
            embedder: Embedder, workers: Workers, existed: bool, started: float,
            written: list[str]) -> IngestSummary:
    summary = IngestSummary(chunk_set=info.name, where=workers.where)
    stored = set(info.doc_ids)
    unique = list({source.doc_id: source for source in sources}.values())
    pending = [source for source in unique if source.doc_id not in stored]
    total = len(unique)
    summary.skipped = total - len(pending)
    done = summary.skipped
    tracker = Tracker(options.progress, total, options.cancel, what="Ingest")
    local = isinstance(workers, LocalWorkers)  # a cluster's tasks cannot share an Event
    task = ChunkTask(strategy, settings, RunOptions(
        llm=options.llm, library=options.library, embedder=embedder,
        cancel=options.cancel if local else None,
        listener=options.listener if local else None))

    def report(done: float, message: str) -> None:
        stored = summary.documents + summary.skipped
        tracker.step(done, f"{stored}/{total} documents · {summary.chunks:,} chunks · {message}")

    def starting(source: Source) -> None:
        report(done + (len(names) + len(failed)) * CHUNKING_SHARE, f"chunking {source.name}")

    outcomes = workers.run(task, pending, starting)  # each done as this loop asks for it

    report(done, f"{summary.skipped} already stored" if summary.skipped else "starting")
    for first in range(0, len(pending), batch_size):
        batch = pending[first : first + batch_size]
        chunks: list[Chunk] = []
        names: list[str] = []
        ids: list[str] = []
        failed: list[FailedDocument] = []
        for n, (source, made) in enumerate(islice(outcomes, len(batch))):
            if existed:  # an interrupted run may have written part of this document
                store.remove_document(info.name, source.doc_id)
            written.append(source.doc_id)
            error = made.reason if isinstance(made, TaskLost) else made.error
            if error:
                summary.failed.append((source.name, error))
                failed.append(FailedDocument(doc_id=source.doc_id, name=source.name, error=error))
            elif not isinstance(made, TaskLost):
                chunks.extend(made.chunks)
                summary.notes += [(source.name, w) for w in made.warnings]
                names.append(source.name)
                ids.append(source.doc_id)
            if not local:  # this process told each document as it started
                report(done + (n + 1) * CHUNKING_SHARE, f"{source.name} chunked")
        start = done + len(batch) * CHUNKING_SHARE
        share = len(batch) * (1 - CHUNKING_SHARE)
        for part, whole in _embed_ahead(chunks, embedder):
            report(min(done + len(batch), start + share * part / max(whole, 1)),
                   f"embedding {part:,}/{whole:,} texts of {_count(len(names), 'document')}")
        before = store.info(info.name).over_limit
        after = store.add_chunks(info.name, chunks, documents=ids,
                                 names=dict(zip(ids, names, strict=True)),
                                 embedder=embedder).over_limit
        if failed:  # the set says so wherever it is picked; ingesting them again retries
            store.record_failed(info.name, failed)
        summary.documents += len(names)
        summary.chunks += len(chunks)
        summary.tokens += sum(chunk.tokens for chunk in chunks)
        summary.over_limit += after - before
        done += len(batch)
        report(done, ", ".join(names) or "nothing stored")
    summary.seconds = time.perf_counter() - started
    return summary


def _embed_ahead(chunks: Sequence[Chunk], embedder: Embedder) -> Iterator[tuple[int, int]]:
    """Embed what the store will embed for ``chunks`` (into the vector cache) a slice at a time,
    yielding (texts done, texts) after each, so a batch of documents does not sit silent while
    its vectors are computed; storing then finds every vector cached. Texts go shortest first,
    so each slice pads as little as one call over all of them would; an endpoint gets slices
    that keep all its allowed requests busy."""
    texts = sorted(dict.fromkeys(text for c in chunks for text in embedding_views(c)), key=len)
    yield 0, len(texts)
    start = 0
    while start < len(texts):
        end, pieces = start, 0
        if embedder.parallel_texts:
            end = min(len(texts), start + embedder.parallel_texts)
        while end < len(texts) and pieces < SLICE_WORD_PIECES and not embedder.parallel_texts:
            pieces += min(MAX_WORD_PIECES, len(texts[end]) // 4 + 2)  # about 4 chars a piece
            end += 1
        embedder.embed(texts[start:end])
        yield end, len(texts)
        start = end


def sources_from_paths(paths: Iterable[Path]) -> list[Source]:
    """One source per file; a folder gives the supported files directly inside it."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            inside = [p for p in path.iterdir() if p.is_file()]
            files.extend(sorted(p for p in inside if p.suffix.lower() in SUPPORTED_EXTENSIONS))
        else:
            files.append(path)
    return [Source.from_path(path) for path in files]

"""The library keeps originals and converted documents on disk, across restarts."""

from __future__ import annotations

import json

import pytest

import core.library
from core.errors import ChunkLabError, ConversionError
from core.library import DocumentLibrary, UnknownDocumentError
from corpora.documents import docx_bytes
from tests.docfactory import HTML, MARKDOWN


@pytest.fixture
def lib(tmp_path):
    return DocumentLibrary(tmp_path / "documents")


def test_add_persists_and_survives_a_restart(lib):
    md = lib.add(MARKDOWN.encode(), "handbook.md")
    html = lib.add(HTML.encode(), "uploads/manual.html")
    assert html.source_name == "manual.html"  # folder parts of the name are dropped
    reopened = DocumentLibrary(lib.root)
    assert [d.doc_id for d in reopened.documents()] == [md.doc_id, html.doc_id]
    assert reopened.get(md.doc_id) == md
    assert reopened.original(md.doc_id) == MARKDOWN.encode()
    [entry, _] = reopened.entries()
    assert (entry.source_name, entry.format, entry.size_bytes) == (
        "handbook.md", "md", len(MARKDOWN.encode()))


def test_same_bytes_twice_is_one_document(lib):
    first = lib.add(b"hello", "a.txt")
    again = lib.add(b"hello", "b.txt")
    assert again == first and len(lib.documents()) == 1


def test_failed_add_loses_nothing(lib):
    kept = lib.add(MARKDOWN.encode(), "handbook.md")
    index_before = (lib.root / "index.json").read_bytes()
    with pytest.raises(ConversionError, match="empty"):
        lib.add(b"", "empty.txt")
    with pytest.raises(ConversionError, match="really a PDF"):
        lib.add(b"%PDF-1.4 junk", "policy.docx")
    assert (lib.root / "index.json").read_bytes() == index_before
    assert DocumentLibrary(lib.root).documents() == [kept]


def test_remove_and_unknown_ids(lib):
    doc = lib.add(b"some text", "a.txt")
    lib.remove(doc.doc_id)
    assert lib.documents() == [] and not (lib.root / doc.doc_id).exists()
    with pytest.raises(UnknownDocumentError) as caught:
        lib.get(doc.doc_id)
    assert isinstance(caught.value, ChunkLabError) and "no document with id" in str(caught.value)
    with pytest.raises(KeyError):
        lib.remove("nope")


def test_ensure_samples_adds_missing_files_once_and_respects_removal(lib, tmp_path):
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "policy.docx").write_bytes(docx_bytes())
    (samples / "notes.txt").write_text("A transcript.\n\nSecond paragraph.")
    (samples / "make_samples.py").write_text("print('not a document')")
    (samples / "broken.pdf").write_bytes(b"not a pdf")
    (samples / "questions").mkdir()
    added = lib.ensure_samples(samples)
    assert sorted(d.source_name for d in added) == ["notes.txt", "policy.docx"]
    assert lib.ensure_samples(samples) == added  # nothing added twice
    assert len(lib.documents()) == 2
    notes = next(d for d in added if d.source_name == "notes.txt")
    lib.remove(notes.doc_id)
    assert [d.source_name for d in DocumentLibrary(lib.root).ensure_samples(samples)] == [
        "policy.docx"]
    lib.add((samples / "notes.txt").read_bytes(), "notes.txt")  # an explicit upload brings it back
    assert len(lib.documents()) == 2


def test_new_converter_version_reconverts_from_the_original(lib, monkeypatch):
    doc = lib.add(MARKDOWN.encode(), "handbook.md")
    stored = lib.root / doc.doc_id / "document.json"
    stale = json.loads(stored.read_text())
    stale["sections"] = []
    stored.write_text(json.dumps(stale))
    assert DocumentLibrary(lib.root).get(doc.doc_id).sections == []  # same version: no work
    monkeypatch.setattr(core.library, "CONVERTER_VERSION", "next-version")
    fresh = DocumentLibrary(lib.root).get(doc.doc_id)
    assert fresh == doc
    assert DocumentLibrary(lib.root).entries()[0].converter_version == "next-version"


def test_unreadable_index_is_rebuilt_from_the_folders(lib):
    doc = lib.add(HTML.encode(), "manual.html")
    (lib.root / "index.json").write_text("{not json")
    reopened = DocumentLibrary(lib.root)
    assert reopened.documents() == [doc]


def _samples_folder(tmp_path):
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "policy.docx").write_bytes(docx_bytes())
    (samples / "notes.txt").write_text("A transcript.\n\nSecond paragraph.")
    return samples


def test_samples_are_kept_apart_from_the_users_documents(lib, tmp_path):
    samples = _samples_folder(tmp_path)
    shipped = lib.ensure_samples(samples)
    assert lib.sample_ids() == {d.doc_id for d in shipped}
    assert lib.default_documents() == lib.documents()  # no documents of the user's yet
    mine = lib.add(MARKDOWN.encode(), "handbook.md")
    assert lib.default_documents() == [mine]  # the samples only when chosen
    assert DocumentLibrary(lib.root).sample_ids() == lib.sample_ids()  # kept in the index
    notes = next(d for d in shipped if d.source_name == "notes.txt")
    lib.add((samples / "notes.txt").read_bytes(), "our notes.txt")  # uploaded: the user's now,
    assert notes.doc_id not in lib.sample_ids()  # under the name the user gave it
    assert [d.source_name for d in lib.default_documents()] == ["our notes.txt", "handbook.md"]
    assert lib.entry(notes.doc_id).source_name == "our notes.txt"
    assert DocumentLibrary(lib.root).get(notes.doc_id).source_name == "our notes.txt"
    lib.add((samples / "notes.txt").read_bytes(), "notes (2).txt")  # the user's: named once
    assert lib.get(notes.doc_id).source_name == "our notes.txt"
    assert lib.remove_samples() == ["policy.docx"]
    assert lib.sample_ids() == set() and len(lib.documents()) == 2
    kept = lib.ensure_samples(samples)  # removed samples stay removed
    assert [d.doc_id for d in kept] == [notes.doc_id]


def test_samples_stored_before_they_were_told_apart_are_samples(lib, tmp_path):
    samples = _samples_folder(tmp_path)
    lib.ensure_samples(samples)
    mine = lib.add(MARKDOWN.encode(), "handbook.md")
    index = json.loads((lib.root / "index.json").read_text())
    for entry in index["documents"]:
        del entry["sample"]  # as an older version wrote it
    (lib.root / "index.json").write_text(json.dumps(index))
    reopened = DocumentLibrary(lib.root)
    reopened.ensure_samples(samples)
    assert reopened.default_documents() == [mine]
    assert len(reopened.sample_ids()) == 2


def test_the_index_is_typed_and_finds_an_entry_by_id(lib):
    from core.library.index import LibraryEntry, LibraryIndex

    doc = lib.add(MARKDOWN.encode(), "handbook.md")
    lib.remove(lib.add(b"hello", "a.txt").doc_id)
    index = LibraryIndex.read(lib.root)
    entry = index.find(doc.doc_id)
    assert isinstance(entry, LibraryEntry) and entry.source_name == "handbook.md"
    assert index.find("no such id") is None and len(index.dismissed) == 1


def test_a_sample_is_converted_once_per_machine_and_again_for_a_changed_converter(
        tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "policy.docx").write_bytes(docx_bytes())
    converted = []
    convert = core.library.convert

    def counted(data, name, **kwargs):
        converted.append(name)
        return convert(data, name, **kwargs)

    monkeypatch.setattr(core.library, "convert", counted)
    [first] = DocumentLibrary(tmp_path / "one" / "documents").ensure_samples(samples)
    [second] = DocumentLibrary(tmp_path / "two" / "documents").ensure_samples(samples)
    assert second == first and converted == ["policy.docx"]  # the second folder converted nothing
    # an upload of the user's is converted in its own folder, never taken from the machine's
    DocumentLibrary(tmp_path / "three" / "documents").add(docx_bytes(), "policy.docx")
    assert converted == ["policy.docx"] * 2

    monkeypatch.setattr(core.library.samples, "CONVERTER_VERSION", "a changed converter")
    core.library.samples.converter_fingerprint.cache_clear()
    try:
        DocumentLibrary(tmp_path / "four" / "documents").ensure_samples(samples)
    finally:
        core.library.samples.converter_fingerprint.cache_clear()
    assert converted == ["policy.docx"] * 3

"""Hand edits: move, split, merge, undo by replay, exact offsets, tables never cut, and the
edited configuration run, saved and evaluated like any other."""

from __future__ import annotations

import pytest

from core.chunking.checks import check_chunks
from core.chunking.edits import EDITED, Merge, MoveBoundary, Split, snap_to_word
from core.documents import convert
from core.documents.model import Document
from core.errors import ChunkingError
from core.operations.hand_edits import edit_chunks, edited_config, save_edited
from core.operations.ingest.run import Source, ingest
from core.operations.presets import preset
from core.operations.strategies import chunk, uses_llm
from core.store import ChunkStore
from tests.docfactory import GUIDE_MARKDOWN

BASE = {"size": 20, "overlap": 0, "unit": "tokens", "tables": True}


@pytest.fixture(scope="module")
def guide() -> Document:
    return convert(GUIDE_MARKDOWN.encode(), "guide.md")


def edited(guide: Document, *edits):
    config = edited_config("recursive 20", "recursive", BASE, guide.doc_id, list(edits))
    return edit_chunks(guide, chunk(guide, "recursive", BASE), config)


def exact(document: Document, chunks) -> None:
    assert all(c.text == document.text[c.start:c.end] and c.text == c.text.strip()
               for c in chunks)
    assert check_chunks(document, chunks).check("offsets").count == 0


def test_split_move_merge_keep_offsets_exact(guide: Document) -> None:
    base = chunk(guide, "recursive", BASE)
    at = guide.text.index("Unpack")
    split = edited(guide, Split(index=1, at=at))
    exact(guide, split)
    assert len(split) == len(base) + 1
    assert split[1].text == "Download the package." and split[2].text.startswith("Unpack")
    assert all(c.strategy == EDITED for c in split)
    assert split[0].tokens == base[0].tokens and split[0].heading_path == base[0].heading_path

    moved = edited(guide, MoveBoundary(index=0, at=guide.text.index("## Install")))
    exact(guide, moved)
    assert moved[0].text.endswith("two parts.") and moved[1].text.startswith("## Install")
    assert check_chunks(guide, moved).check("lonely_heading").count == 0
    assert check_chunks(guide, base).check("lonely_heading").count == 1

    merged = edited(guide, Merge(index=1))
    exact(guide, merged)
    assert len(merged) == len(base) - 1
    assert merged[1].start == base[1].start and merged[1].end == base[2].end


def test_replay_gives_the_same_chunks_and_undo_is_replay_without_the_last(guide) -> None:
    edits = [Split(index=1, at=guide.text.index("Unpack")), Merge(index=3)]
    once, again = edited(guide, *edits), edited(guide, *edits)
    assert [(c.id, c.start, c.end) for c in once] == [(c.id, c.start, c.end) for c in again]
    undone = edited(guide, *edits[:-1])
    assert [(c.start, c.end) for c in undone] == [
        (c.start, c.end) for c in edited(guide, edits[0])]


def test_a_position_inside_a_word_snaps_to_its_nearer_edge(guide: Document) -> None:
    word = guide.text.index("package")
    assert snap_to_word(guide.text, word + 2) == word
    assert snap_to_word(guide.text, word + 6) == word + len("package.")
    split = edited(guide, Split(index=1, at=word + 2))
    assert split[1].text == "Download the" and split[2].text.startswith("package.")


def test_an_edit_that_would_cut_a_table_is_refused(guide: Document) -> None:
    table = guide.tables[0]
    inside = guide.text.index("| web")
    base = chunk(guide, "recursive", BASE)
    k = next(i for i, c in enumerate(base) if c.chunk_type == "table")
    with pytest.raises(ChunkingError, match="inside the table “Table 1: Ports”"):
        edited(guide, Split(index=k, at=inside))
    with pytest.raises(ChunkingError, match="cut its rows"):
        edited(guide, MoveBoundary(index=k, at=table.start + 3))
    caption_split = edited(guide, Split(index=k, at=table.start))
    assert [c.chunk_type for c in caption_split[k:k + 2]] == ["text", "table"]


@pytest.mark.parametrize(("edit", "needle"), [
    (Split(index=99, at=10), "no chunk 100"),
    (Merge(index=5), "no chunk 7"),
    (Split(index=0, at=200), "not inside chunk 1"),
])
def test_impossible_edits_say_why(guide: Document, edit, needle) -> None:
    with pytest.raises(ChunkingError, match=needle):
        edited(guide, edit)


def test_saved_edits_run_as_a_strategy(guide: Document, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    edits = [Split(index=1, at=guide.text.index("Unpack"))]
    config = edited_config("recursive 20", "recursive", BASE, guide.doc_id, edits)
    save_edited("my edits", config)
    saved = preset("my edits")
    assert saved.strategy == EDITED and saved.settings["source"] == "recursive 20"
    again = chunk(guide, saved.strategy, saved.settings)
    assert [(c.start, c.end) for c in again] == [(c.start, c.end) for c in edited(guide, *edits)]
    other = convert(b"# Other\n\nA different document with its own words.\n", "other.md")
    assert [(c.start, c.end) for c in chunk(other, EDITED, saved.settings)] == [
        (c.start, c.end) for c in chunk(other, "recursive", BASE)]
    with pytest.raises(ChunkingError, match="not from other hand edits"):
        chunk(guide, EDITED, {**saved.settings, "base": EDITED})


def test_an_edited_configuration_becomes_a_chunk_set_that_says_so(guide, tmp_path,
                                                                  monkeypatch) -> None:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    edits = [Split(index=1, at=guide.text.index("Unpack"))]
    config = edited_config("recursive 20", "recursive", BASE, guide.doc_id, edits)
    store = ChunkStore()
    summary = ingest([Source.from_document(guide)], "by hand", EDITED,
                     config.model_dump(mode="json"), store=store)
    assert not summary.failed and summary.chunks == len(edited(guide, *edits))
    info = store.info("by hand")
    assert info.strategy == EDITED and info.settings["source"] == "recursive 20"
    stored = sorted((c.start, c.end) for c in store.get_chunks("by hand"))
    assert stored == [(c.start, c.end) for c in edited(guide, *edits)]


def test_hand_edits_of_an_llm_chunking_need_the_model() -> None:
    assert uses_llm(EDITED, {"base": "llm", "base_settings": {}})
    assert not uses_llm(EDITED, {"base": "recursive", "base_settings": BASE})
    assert uses_llm("llm", {}) and not uses_llm("fixed", {})

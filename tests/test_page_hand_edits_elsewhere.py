"""A configuration saved from hand edits on Compare is offered by the Chunk sets page, ingests
as a chunk set that records its source configuration."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.chunking.edits import EDITED, Split
from core.operations.hand_edits import edited_config, save_edited
from core.operations.presets import preset
from core.store import ChunkStore
from tests.docfactory import inspection_markdown
from tests.pages import click, page_path, use_samples
from ui.resources import library


@pytest.fixture
def data(tmp_path, monkeypatch):
    yield from use_samples(tmp_path, monkeypatch, {"boilers.md": inspection_markdown("boilers")})


def test_a_saved_hand_edit_becomes_a_chunk_set(data) -> None:
    document = library().documents()[0]
    base = preset("recursive 500/50")
    at = document.text.index("Paragraph 2")
    config = edited_config(base.name, base.strategy, base.settings, document.doc_id,
                           [Split(index=0, at=at)])
    save_edited("boilers by hand", config)
    page = AppTest.from_file(page_path("store"), default_timeout=120).run()
    assert not page.exception, page.exception
    page.selectbox(key="store:preset").set_value("boilers by hand")
    page.run()
    assert not page.exception and not page.error
    page.text_input(key="store_name").set_value("by hand")
    page = click(page, "store_create")
    info = ChunkStore().info("by hand")
    assert info.strategy == EDITED and info.settings["source"] == "recursive 500/50"
    starts = [c.start for c in ChunkStore().get_chunks("by hand")]
    assert at in starts

"""AppTest: the Home page lists the library's documents with their numbers and links onward."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.state
from tests.test_page_structure import MARKDOWN

APP = str(Path(__file__).resolve().parents[1] / "app.py")  # page_link needs the router


@pytest.fixture
def samples(tmp_path, monkeypatch):
    folder = tmp_path / "samples"
    folder.mkdir()
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(ui.state, "SAMPLES_DIR", folder)
    ui.state.library.clear()
    yield folder
    ui.state.library.clear()


def test_first_start_lists_the_samples_with_their_numbers(samples):
    (samples / "guide.md").write_text(MARKDOWN)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.subheader[0].value == "Loaded documents (1)"
    frame = at.dataframe[0].value
    row = frame.iloc[0]
    assert row["Document"] == "guide.md" and row["Format"] == "MD"
    assert row["Pages"] == "–"  # no page numbers in Markdown: a dash, not "None"
    assert row["Sections"] >= 2 and row["Tables"] == 1
    assert row["Tokens (cl100k)"] > 0


def test_empty_library_says_where_to_add_documents(samples):
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.subheader[0].value == "Loaded documents (0)"
    assert "Documents" in at.info[0].value

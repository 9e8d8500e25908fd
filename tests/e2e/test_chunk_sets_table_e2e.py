"""Browser: the Chunk sets table fits a wide page (no column cut off), and says what share of
its text MiniLM read."""

import pytest
from playwright.sync_api import expect

from core.documents import convert
from core.operations.strategies import chunk
from core.store import ChunkSetInfo, ChunkStore
from tests.docfactory import inspection_markdown
from tests.e2e.browser import ARTIFACTS, open_page

pytestmark = pytest.mark.e2e


def test_the_chunk_sets_table_is_not_cut_off(page, start_app, tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(data))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    document = convert((inspection_markdown("attics") * 3).encode(), "attics.md")
    store = ChunkStore()
    settings = {"size": 500, "overlap": 50, "unit": "tokens", "tables": True}
    store.create_set(ChunkSetInfo(name="recursive 500/50 with a long description",
                                  strategy="recursive", settings=settings,
                                  description="the inspection notes, chunked for the demo"))
    store.add_chunks("recursive 500/50 with a long description",
                     chunk(document, "recursive", settings), names={document.doc_id: "a.md"})
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data)})
    page.set_viewport_size({"width": 1400, "height": 1000})
    open_page(page, f"{url}/store", heading="Chunk sets")
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible()
    table.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "store_sets_table.png"), full_page=True)
    # the grid scrolls sideways only when its columns are wider than the page gives it
    overflow = table.evaluate("""t => { const s = t.querySelector('.dvn-scroller');
                                        return s.scrollWidth - s.clientWidth; }""")
    assert overflow <= 1
    expect(page.get_by_text("every word is read")).to_be_visible()


def test_compare_says_how_much_text_the_embedder_reads(page, start_app):
    open_page(page, f"{start_app()}/compare", heading="Compare chunkings")
    stats = page.get_by_test_id("stTable").first
    expect(stats).to_be_visible(timeout=120_000)
    expect(stats.get_by_text("text read when searching")).to_be_visible()
    expect(stats.get_by_text("pieces embedded")).to_be_visible()
    for jargon in ("MiniLM reads", "embedding views", "within the size"):  # the words a
        expect(stats.get_by_text(jargon)).to_have_count(0)  # newcomer met first, before
    details = page.get_by_test_id("stExpander").filter(has_text="Details: what the rows count")
    details.get_by_text("Details: what the rows count").click()
    expect(details.get_by_text("overlapping windows")).to_be_visible()
    stats.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    stats.screenshot(path=str(ARTIFACTS / "compare_text_read.png"))

"""Browser: ask a question on a chunk set of a sample document, see the cited prompt, ask the
(fake) LLM and see its markers checked against the citation map; a printed book's sources cited
by page, its contents page set apart, its budget added up."""

import re

import pytest
from playwright.sync_api import expect

from core.library import DocumentLibrary
from core.store import ChunkSetInfo, ChunkStore
from corpora.pdf_books import book
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import chunk_document
from tests.e2e.browser import ARTIFACTS, open_page, pick, type_number, wait_for_app
from tests.retrieval_helpers import HANDBOOK, SAMPLES, handbook_set

pytestmark = pytest.mark.e2e
QUESTION = "How many coordinator failures does a cluster with five coordinators tolerate?"


def test_ask_a_question_and_see_citations(page, start_app, tmp_path, fake_llm):  # noqa: F811
    data = tmp_path / "data"
    document = handbook_set(ChunkStore(data / "chroma"), "handbook recursive 200")
    DocumentLibrary(data / "documents").add((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    fake_llm.respond(lambda request: "A five-coordinator cluster tolerates two failures [¹]. "
                                     "Older releases differed [⁷].")
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data), "LLM_BASE_URL": fake_llm.base_url,
                         "LLM_MODEL": "fake"})
    page.goto(f"{url}/assemble")
    wait_for_app(page)
    expect(page.get_by_text("Type a question")).to_be_visible(timeout=120_000)

    question = page.get_by_label("Question")
    question.fill(QUESTION)
    question.press("Control+Enter")
    wait_for_app(page)
    expect(page.get_by_text("You may reference [¹]…").first).to_be_visible(timeout=120_000)
    expect(page.get_by_text("a cluster with five tolerates two").first).to_be_visible()
    expect(page.locator(".cl-chart .cl-bar").first).to_be_visible()  # the token budget
    first_source = page.locator(".cl-text mark").first
    expect(first_source).to_be_attached(timeout=120_000)
    expect(first_source).to_contain_text("a cluster with five tolerates two")
    expect(page.get_by_test_id("stCode").nth(1)).to_contain_text(f"Doc: {HANDBOOK}")
    expect(page.get_by_text(document.doc_id).first).to_be_attached()  # in the citation map
    link = page.locator('a[href="#cite-a-1"]').first
    expect(link).to_be_visible()
    expect(page.locator("#cite-a-1")).to_be_attached()

    page.get_by_role("button", name="Ask the LLM").click()
    wait_for_app(page)
    expect(page.get_by_text("Unknown markers (no source behind them, struck through above): "
                            "[⁷]")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("A five-coordinator cluster tolerates two failures")).to_be_visible()
    answer_link = page.get_by_test_id("stMarkdown").locator('a[href="#cite-a-1"]', has_text="¹")
    expect(answer_link.last).to_be_visible()  # the answer's marker links to its source
    expect(page.locator("del", has_text="⁷")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert fake_llm.calls and QUESTION in fake_llm.calls[-1].prompt
    expect(page.get_by_text("Sources the answer never cites: [²]")).to_be_visible()
    page.get_by_text("A five-coordinator cluster").scroll_into_view_if_needed()
    wait_for_app(page)

    # the question is still there after a visit to another page
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Home").click()
    wait_for_app(page)
    expect(page.get_by_text("Start here")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "home_start_here.png"), full_page=True)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Assemble").click()
    wait_for_app(page)
    expect(page.get_by_label("Question")).to_have_value(QUESTION)
    page.get_by_text("A five-coordinator cluster").scroll_into_view_if_needed()


BOOK_QUESTION = "How are changes to set points reviewed, and who grants the engineer role?"


def test_a_book_cites_pages_sets_its_contents_apart_and_its_budget_adds_up(page, start_app,
                                                                            tmp_path):
    """A printed book: the contents page is set apart (and said so) until the box is ticked,
    the citation map names pages with the characters in a tooltip, the bar adds up to the
    figure left for the answer, and a budget that keeps no passage says what would keep one."""
    data = tmp_path / "data"
    pdf, _ = book("field-guide", "assemble")
    document = DocumentLibrary(data / "documents").add(pdf, "field_guide.pdf")
    settings = {"size": 200, "overlap": 0, "unit": "tokens"}
    store = ChunkStore(data / "chroma")
    store.create_set(ChunkSetInfo(name="guide", strategy="recursive", settings=settings))
    store.add_chunks("guide", chunk_document(document, "recursive", **settings))
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(data)})
    open_page(page, f"{url}/assemble", "Assemble")
    pick(page, "stSelectbox", "Rank", "bm25")
    question = page.get_by_label("Question")
    question.fill(BOOK_QUESTION)
    question.press("Control+Enter")
    wait_for_app(page)

    set_apart = page.get_by_text("chunks of front matter set apart (cover, contents, index)")
    expect(set_apart).to_be_visible(timeout=120_000)
    prompt = page.get_by_test_id("stCode").nth(1)
    expect(prompt).to_contain_text("You may reference [¹]")
    expect(prompt).not_to_contain_text(". . . .")
    place = page.locator('a[href="#cite-a-1"][title^="characters "]')
    expect(place).to_have_text(re.compile(r"^pp?\. \d"))
    page.get_by_text("Budget by context size", exact=True).click()  # off by default
    wait_for_app(page)
    type_number(page, "Headroom for the answer (tokens)", 300)
    left = page.get_by_test_id("stMetric").filter(has_text="Left for the answer")
    figure = left.get_by_test_id("stMetricValue").inner_text()
    expect(page.locator(".cl-legend")).to_contain_text(
        f"left for the answer ({figure}, of which the headroom 300)")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".cl-legend").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "assemble_book_budget.png"))
    place.scroll_into_view_if_needed()
    place.hover()
    page.screenshot(path=str(ARTIFACTS / "assemble_book_pages.png"))

    page.get_by_text("Include front matter", exact=True).click()
    wait_for_app(page)
    expect(set_apart).to_have_count(0)
    expect(prompt).to_contain_text(". . . .")

    page.get_by_text("Budget by context size", exact=True).click()
    wait_for_app(page)
    type_number(page, "Passage budget (tokens)", 10)
    warning = page.get_by_text("No passage fits the budget")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text(re.compile(r"Raise the passage budget to [\d,]+ tokens"))
    expect(page.get_by_test_id("stException")).to_have_count(0)

"""Browser: the user's own embedder (a fake OpenAI-compatible embeddings server) builds a chunk
set, Assemble retrieves from it with a fake reranker reordering the hits, and Evaluate compares
a chunking under MiniLM and under it; when the endpoint fails, one message, the earlier results
kept. Settings tests the endpoint."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import ARTIFACTS, pick, wait_for_app
from tests.fakeembed import DIMENSION, FakeEmbed, fake_embed  # noqa: F401  (fixture)

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)  # the app shares two cores with the other tests


def test_own_embedder_builds_a_set_and_is_evaluated_beside_minilm(
        page, start_app, tmp_path, fake_embed):  # noqa: F811
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(tmp_path / "data"),
                         "EMBEDDING_BASE_URL": fake_embed.base_url,
                         "EMBEDDING_MODEL": "fake-embed",
                         "RERANK_BASE_URL": fake_embed.base_url, "RERANK_MODEL": "fake-rerank"})
    own = f"fake-embed @ {fake_embed.settings().location}"
    ARTIFACTS.mkdir(exist_ok=True)

    page.goto(f"{url}/settings")
    wait_for_app(page)
    page.get_by_role("heading", name="Embeddings").scroll_into_view_if_needed()
    page.get_by_test_id("stForm").filter(has_text="Texts per request").get_by_role(
        "button", name="Test").click()
    wait_for_app(page)
    expect(page.get_by_text(re.compile(f"embeds {DIMENSION}-dimension vectors"))).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "stack_settings_test.png"), full_page=True)

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Chunk sets").click()
    wait_for_app(page)
    pick(page, "stSelectbox", "Embedder", own)
    name = page.get_by_role("textbox", name="Name")
    name.fill("own embedder")
    name.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Create and ingest").click()
    expect(page.get_by_text("Chunk set “own embedder”: stored ")).to_be_visible(timeout=180_000)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    sent = len(fake_embed.texts())
    assert sent > 20  # the chunks were embedded there
    page.screenshot(path=str(ARTIFACTS / "stack_chunk_set.png"), full_page=True)

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Assemble").click()
    wait_for_app(page)
    page.get_by_test_id("stCheckbox").filter(has_text="Rerank the top 20 with fake-rerank").click()
    question = page.get_by_role("textbox", name="Question")
    question.fill("How do I descale the machine?")
    question.press("Control+Enter")
    wait_for_app(page)
    expect(page.get_by_text("Packs kept", exact=True)).to_be_visible(timeout=120_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert "How do I descale the machine?" in fake_embed.texts()  # asked with the set's model
    reranked = fake_embed.rerank_requests()
    assert reranked and reranked[-1].body["query"] == "How do I descale the machine?"
    assert len(reranked[-1].body["documents"]) == 20
    page.screenshot(path=str(ARTIFACTS / "stack_assemble_reranked.png"), full_page=True)
    sent = len(fake_embed.texts())

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Evaluate").click()
    wait_for_app(page)
    pick(page, "stSelectbox", "Question set", "product_manual")
    pick(page, "stMultiSelect", "Embedders", own)
    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page)
    expect(page.get_by_text("Metrics (percent of the question set")).to_be_visible(
        timeout=180_000)
    expect(page.get_by_text(re.compile(  # word joiners keep the address from becoming a link
        rf"embedders: MiniLM \(built-in\) \(384-d\), fake-embed\W+@ .+ \({DIMENSION}-d\)"))
    ).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert len(fake_embed.texts()) > sent  # questions and chunks embedded by the endpoint
    page.get_by_role("heading", name="Is the difference real?").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "stack_evaluate.png"), full_page=True)

    fake_embed.fail_after(0)  # another question set: texts the endpoint has not embedded yet
    pick(page, "stSelectbox", "Question set", "insurance_policy")
    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page)
    # the endpoint's configuration is a failed row; MiniLM's results are kept
    error = page.get_by_text("2 of 4 configurations failed; the results of the other 2 are "
                             "kept.")
    expect(error).to_be_visible(timeout=180_000)
    rows = page.get_by_test_id("stTable")
    # every configuration under the endpoint failed with its reason; those under MiniLM ran
    for text, said in (("fake-embed", f"The embedding endpoint (fake-embed at "
                                      f"{fake_embed.settings().location}) failed: HTTP 500"),
                       ("MiniLM", "ok")):
        matching = rows.locator("tr", has_text=text)
        expect(matching.first).to_be_visible()
        assert matching.count() == 2  # two configurations
        for row in matching.all():
            expect(row).to_contain_text(said)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_text("Metrics (percent of the question set")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stProgress")).to_have_count(0)  # the bar is gone
    error.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "stack_evaluate_failed.png"), full_page=True)

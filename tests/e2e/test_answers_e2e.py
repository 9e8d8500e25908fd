"""Browser: two variants of the answer prompt on a small shipped question set with the fake LLM
server; read the verdict, the figures and the answers side by side, a citation linked to its
passage; the downloaded report opens on its own, offline, with the verdict the page showed."""

import pytest
from playwright.sync_api import expect

from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.e2e.browser import (
    ARTIFACTS,
    alert_text,
    download_report,
    open_page,
    open_report_offline,
    pick,
    two_variants_on_the_manual,
    type_number,
    wait_for_app,
)

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)  # the app shares two cores with the other tests


def test_two_variants_and_the_verdict(page, browser, start_app, tmp_path, fake_llm):  # noqa: F811
    two_variants_on_the_manual(page, start_app, tmp_path / "data", fake_llm, 8)
    expect(page.get_by_text("16 answers to grade")).to_be_visible()

    page.get_by_role("button", name="Run", exact=True).click()
    verdict = page.get_by_test_id("stAlertContentInfo").filter(has_text="citing a source")
    expect(verdict).to_be_visible(timeout=600_000)
    wait_for_app(page)
    expect(verdict).to_contain_text("no cites is worse than default on citing a source")
    expect(verdict).to_contain_text("over 8 questions")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert len(fake_llm.calls) == 16
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "answers_verdict.png"), full_page=True)

    link = page.locator('a[href="#a0-0-s1"]')
    expect(link).to_be_visible()
    link.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "answers_side_by_side.png"))
    link.click()
    expect(page.locator("#a0-0-s1")).to_be_in_viewport()
    page.get_by_text("Shares with their 95 % intervals").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "answers_figures.png"))

    report = download_report(page, tmp_path)
    assert report.name == "answers-product_manual.html"
    open_report_offline(browser, report, "Answers on product_manual", alert_text(verdict),
                        "report_download_answers.png")


def test_the_answer_prompt_is_edited_as_text(page, start_app, tmp_path):
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(tmp_path / "data")})
    open_page(page, f"{url}/prompts", "Prompts")
    pick(page, "stSelectbox", "Template", "RAG answer (system prompt)")
    role = page.get_by_role("textbox", name="Role", exact=True)
    expect(role).to_have_value("an assistant who answers using passages retrieved from the "
                               "user's documents")
    role.fill("a careful insurance assistant")
    role.press("Tab")
    wait_for_app(page)
    expect(page.get_by_text("edited, not saved")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    role.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "prompts_rag_as_text.png"))


def test_the_whole_form_survives_a_reload_and_a_page_switch(page, start_app, tmp_path):
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(tmp_path / "data")})
    open_page(page, f"{url}/answers", "Answers")
    pick(page, "stSelectbox", "Question set", "product_manual")
    type_number(page, "Questions (0: all)", 3)
    type_number(page, "Passages per question", 4)
    temperature = page.get_by_role("spinbutton", name="Temperature")
    temperature.fill("0.1")
    temperature.press("Enter")
    wait_for_app(page)
    page.get_by_text("Also have the model judge").click()
    wait_for_app(page)

    def the_form_is_kept() -> None:
        expect(page.get_by_role("combobox", name="Question set", exact=True)).to_have_value(
            "product_manual")
        expect(page.get_by_role("spinbutton", name="Questions (0: all)")).to_have_value("3")
        expect(page.get_by_role("spinbutton", name="Passages per question")).to_have_value("4")
        expect(page.get_by_role("spinbutton", name="Temperature")).to_have_value("0.10")
        expect(page.get_by_role("checkbox", name="Also have the model judge each answer's "
                                "faithfulness (1–5, with its reason)")).to_be_checked()

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Home").click()
    wait_for_app(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Answers").click()
    wait_for_app(page)
    the_form_is_kept()
    page.reload()
    wait_for_app(page)
    the_form_is_kept()


OLD_HEIGHT = 3_000  # px, with every passage under each answer
MAIN_HEIGHT = ("() => document.querySelector('[data-testid=\"stMainBlockContainer\"]')"
               ".getBoundingClientRect().height")


def test_a_short_run_shows_the_answers_then_only_the_cited_passages(
        page, start_app, tmp_path, fake_llm):  # noqa: F811
    two_variants_on_the_manual(page, start_app, tmp_path / "data", fake_llm, 3)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_text("citing a source").first).to_be_visible(timeout=600_000)
    wait_for_app(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    height = page.evaluate(MAIN_HEIGHT)
    print(f"Answers page, 3 questions, 2 variants: {height:,.0f} px")
    page.set_viewport_size({"width": 1500, "height": int(height) + 200})
    wait_for_app(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "answers_cited_passages.png"))

    cited = page.locator("#a0-0-s1")  # the passage the first answer cites
    expect(cited).to_be_visible()
    folded = page.get_by_test_id("stExpander").filter(
        has_text="4 more passages retrieved, not cited")
    expect(folded).to_be_visible()
    expect(page.locator("#a0-0-s2")).to_be_hidden()  # not cited: folded away
    expect(page.get_by_test_id("stExpander").filter(  # the second variant cites none
        has_text="5 passages retrieved, none cited")).to_be_visible()

    def top(locator) -> float:
        return locator.evaluate("(el) => el.getBoundingClientRect().top")

    # both answers side by side first, the passages under them
    second_answer = page.get_by_test_id("stMarkdown").locator("strong").get_by_text(
        "no cites", exact=True)
    assert top(page.locator('a[href="#a0-0-s1"]')) < top(cited)
    assert top(second_answer) < top(cited)
    assert height < OLD_HEIGHT * 0.75, f"the page is {height:,.0f} px tall for 3 questions"

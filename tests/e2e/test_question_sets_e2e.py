"""Browser, against the fake LLM: upload a document, generate a question set, edit two
questions, save, then evaluate three chunkings at top-5 and at a 1,000-token budget and read
which wins, with intervals and a significance verdict."""

import re

import pytest
from playwright.sync_api import Page, expect

from core.evaluation.questions import parse_questions, to_csv
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK
from tests.e2e.browser import ARTIFACTS, pick, upload_markdown, wait_for_app

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)  # the app shares two cores with the other tests
WAIT = 120_000
VERDICT = re.compile(r"is better than .* \(p [=<] [0-9.]+\)|No difference on recall detectable "
                     r"with 6 questions")


def _edit(page: Page, text: str) -> None:
    page.get_by_label("Question text").fill(text)
    page.get_by_role("button", name="Apply changes").click()
    wait_for_app(page)
    expect(page.get_by_role("combobox", name="Question", exact=True)).to_have_value(
        re.compile(re.escape(text)))


def test_generate_edit_and_evaluate_with_a_verdict(page, start_app, tmp_path, fake_llm):  # noqa: F811
    url = start_app(env={"CHUNKLAB_DATA_DIR": str(tmp_path / "data"),
                         "LLM_BASE_URL": fake_llm.base_url, "LLM_MODEL": "fake"})
    upload_markdown(page, url, "claims_handbook.md", HANDBOOK)

    page.goto(f"{url}/questions")
    wait_for_app(page)
    count = page.get_by_label("Questions per document")
    count.fill("6")
    count.press("Enter")
    wait_for_app(page)
    pick(page, "stMultiSelect", "Documents", "claims_handbook.md")
    generate = page.get_by_role("button", name="Generate questions")
    expect(generate).to_be_enabled()
    generate.click()
    wait_for_app(page)
    expect(page.get_by_text("generated · 6 questions")).to_be_visible(timeout=WAIT)
    assert fake_llm.phases.count("question_generation") == 6
    expect(page.locator(".cl-text mark.cl-reference").first).to_be_attached()

    _edit(page, "How long is the waiting period for water damage?")
    page.reload()  # the unsaved set is a draft in the data folder: a reload finds it, edited
    wait_for_app(page)
    expect(page.get_by_text("generated · 6 questions")).to_be_visible(timeout=WAIT)
    expect(page.get_by_text("kept as a draft in the data folder")).to_be_visible()
    expect(page.get_by_label("Question text")).to_have_value(
        "How long is the waiting period for water damage?")
    expect(page.get_by_label("Questions per document")).to_have_value("6")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "questions_draft_after_reload.png"))
    picker = page.get_by_role("combobox", name="Question", exact=True)
    picker.click()
    if not page.get_by_role("option").first.is_visible():
        page.keyboard.press("ArrowDown")  # focused but closed: open the list
    label = page.get_by_role("option").nth(1).inner_text()
    page.keyboard.press("Escape")
    pick(page, "stSelectbox", "Question", label)
    expect(page.get_by_label("Question text")).to_have_value(label.split(". ", 1)[1])
    _edit(page, "Which report must come with a burst pipe claim?")
    name = page.get_by_label("Name", exact=True)
    name.fill("claims")
    name.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Save", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_text("Saved 6 questions as “claims”")).to_be_visible(timeout=WAIT)
    saved = [q.question for q in parse_questions(
        (tmp_path / "data" / "question_sets" / "claims.csv").read_bytes()).questions]
    assert saved[:2] == ["How long is the waiting period for water damage?",
                         "Which report must come with a burst pipe claim?"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "question_sets_editor.png"), full_page=True)

    page.goto(f"{url}/evaluate")
    wait_for_app(page)
    pick(page, "stSelectbox", "Question set", "saved: claims")
    expect(page.get_by_text("6 valid questions over 1 document")).to_be_visible(timeout=WAIT)
    pick(page, "stMultiSelect", "Configurations (2–4)", "semantic")
    page.get_by_text("both", exact=True).click()
    wait_for_app(page)
    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page, timeout_ms=300_000)
    expect(page.get_by_text("Metrics (percent of the question set")).to_be_visible(timeout=WAIT)
    expect(page.get_by_test_id("stAlert").filter(has_text=VERDICT).first).to_be_visible()
    expect(page.get_by_text(re.compile(r"top-5 · chunks: fixed 1000 chars"))).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_role("heading", name="Is the difference real?").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "evaluate_verdict_top5.png"), full_page=False)

    # a row of the per-question wins/losses table opens that question in the drill-down
    outcomes = page.locator('.st-key-evaluate_outcomes [data-testid="stDataFrame"]')
    outcomes.scroll_into_view_if_needed()
    box = outcomes.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 12, box["y"] + 35 * 3 + 17)  # the third row's selector
    wait_for_app(page)
    expect(page.get_by_role("combobox", name="Question", exact=True)).to_have_value(
        re.compile(r"^3\. claims_handbook\.md"))
    page.get_by_role("heading", name="Per question").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "evaluate_opened_question.png"), full_page=False)

    page.get_by_text("1,000-token budget", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_text(re.compile(r"1,000-token budget · chunks"))).to_be_visible(
        timeout=WAIT)
    expect(page.get_by_test_id("stAlert").filter(has_text=VERDICT).first).to_be_visible()
    page.get_by_role("heading", name="Metrics (percent of the question set").first \
        .scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "evaluate_budget_intervals.png"), full_page=False)

    # another set, run again: the question picker shows the new set's first question
    folder = tmp_path / "data" / "question_sets"
    other = list(parse_questions((folder / "claims.csv").read_bytes()).questions)[3:5]
    (folder / "other.csv").write_bytes(to_csv(other))
    page.reload()
    wait_for_app(page)
    pick(page, "stSelectbox", "Question set", "saved: other")
    page.get_by_role("button", name="Run evaluation").click()
    wait_for_app(page, timeout_ms=300_000)
    expect(page.get_by_role("combobox", name="Question", exact=True)).to_have_value(
        f"1. claims_handbook.md · {other[0].kind} · {other[0].question}")

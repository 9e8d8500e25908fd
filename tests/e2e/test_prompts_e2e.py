"""In a real browser: edit the boundary template, see the unknown-placeholder warning, save the
edit as a variant and A/B it against the default on the same section, with the fake LLM."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from fakes.llm import FakeLLM, FakeRequest, auto_answer
from tests.e2e.browser import ARTIFACTS, pick, wait_for_app

pytestmark = pytest.mark.e2e

HINT = "Prefer fewer, larger chunks."


def _fewer_when_asked(request: FakeRequest) -> str:
    """The default answer, minus the inner boundaries when the variant's hint is in the prompt."""
    answer = auto_answer(request.phase, request.prompt)
    if request.phase == "boundary_detection" and HINT in request.prompt:
        lines = answer.splitlines()
        return "\n".join([lines[0], lines[-1]])
    return answer


@pytest.fixture(scope="module")
def fake():
    server = FakeLLM(latency=0.05).start()
    server.respond(_fewer_when_asked)
    yield server
    server.stop()


def test_the_answer_format_example_shows_every_column(page: Page, app_url: str):
    """The example table of a five-column answer shows every column without scrolling, and no
    cell wraps a short value over lines."""
    page.goto(f"{app_url}/prompts")
    wait_for_app(page)
    pick(page, "stSelectbox", "Template", "Structure analysis (anchors)")
    table = page.locator(".st-key-pw_format table").first
    table.scroll_into_view_if_needed()
    expect(table.get_by_role("columnheader", name="parent_title")).to_be_visible()
    scroll, client = table.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert scroll <= client + 1, f"the table is cut off: {scroll} px wide in {client} px"
    title = table.get_by_role("cell", name="What Is Insured").first
    height = title.evaluate("e => e.getBoundingClientRect().height")
    short = table.get_by_role("cell", name="Exclusions", exact=True).first
    assert height < 2 * short.evaluate(
        "e => e.getBoundingClientRect().height")  # on one line, as short as a one-word cell
    page.locator(".st-key-pw_format").screenshot(path=str(ARTIFACTS / "prompts_format_table.png"))


def test_edit_warn_save_and_ab(page: Page, start_app, fake):
    url = start_app(env={"LLM_BASE_URL": fake.base_url, "LLM_MODEL": "fake"})
    page.goto(f"{url}/prompts")
    wait_for_app(page)
    expect(page.get_by_text("Every placeholder is known and used.")).to_be_visible(timeout=90_000)

    pick(page, "stSelectbox", "Template", "Boundary detection (anchors)")
    fmt = page.locator(".st-key-pw_format table").first
    fmt.scroll_into_view_if_needed()
    box, column = fmt.bounding_box(), page.locator(".st-key-pw_format").bounding_box()
    assert box and column and box["x"] + box["width"] <= column["x"] + column["width"] + 1
    page.screenshot(path=str(ARTIFACTS / "prompts_answer_format.png"))
    editor = page.get_by_role("textbox", name="Template text")
    editor.fill(editor.input_value() + f"\n{HINT} Mind {{{{ budget }}}}.")
    editor.press("Control+Enter")
    wait_for_app(page)
    expect(page.get_by_text("{{budget}} is not a placeholder of this template")).to_be_visible()
    expect(page.get_by_text("edited, not saved")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "prompts_unknown_placeholder.png"))

    page.get_by_role("textbox", name=re.compile("^New variant of")).fill("fewer chunks")
    page.get_by_role("textbox", name=re.compile("^New variant of")).press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Save", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_text("Saved variant “fewer chunks”")).to_be_visible()

    page.get_by_role("tab", name="A/B").click()
    wait_for_app(page)  # the tab's contents are drawn when it opens
    pick(page, "stSelectbox", "A", "default")
    pick(page, "stSelectbox", "B", "fewer chunks")
    page.get_by_role("button", name="Run A and B").click()
    wait_for_app(page)
    panel = page.get_by_role("tabpanel", name="A/B")
    expect(panel.get_by_text("Only in A:")).to_be_visible(timeout=60_000)
    expect(panel.get_by_text(re.compile(r"chunk starts at \d+ \(SEMANTIC_SHIFT\)")).first
           ).to_be_visible()
    expect(panel.get_by_text("boundary_detection@fewer chunks").first).to_be_visible()
    assert [p for p in fake.phases if p == "boundary_detection"]
    sent = [c.prompt for c in fake.calls if c.phase == "boundary_detection"]
    assert any(HINT in p for p in sent) and any(HINT not in p for p in sent)
    expect(panel.get_by_text("Latency").first).to_be_visible()
    wait_for_app(page)
    panel.screenshot(path=str(ARTIFACTS / "prompts_ab_panel.png"))


def test_save_with_the_name_box_empty_updates_the_variant_on_screen(page: Page, start_app,
                                                                    tmp_path):
    """Save a variant under a name, edit it again and press Save with the name box empty: the
    variant being edited is saved, with no error."""
    page.goto(f"{start_app(env={'CHUNKLAB_DATA_DIR': str(tmp_path)})}/prompts")
    wait_for_app(page)
    editor = page.get_by_role("textbox", name="Template text")
    editor.fill(editor.input_value() + "\nBe brief.")
    editor.press("Control+Enter")
    wait_for_app(page)
    name = page.get_by_role("textbox", name=re.compile("^New variant of"))
    name.fill("brief")
    name.press("Enter")
    wait_for_app(page)
    save = page.get_by_role("button", name="Save", exact=True)
    save.click()
    wait_for_app(page)
    expect(page.get_by_text("Saved variant “brief” (version")).to_be_visible()
    expect(page.get_by_role("combobox", name="Variant")).to_have_value("brief")
    expect(name).to_have_value("")
    expect(name).to_have_attribute("placeholder", "empty: Save updates “brief”")
    editor.fill(editor.input_value() + " Briefer.")
    editor.press("Control+Enter")
    wait_for_app(page)
    save.click()
    wait_for_app(page)
    expect(page.get_by_text("Saved variant “brief” (version")).to_be_visible()
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    saved = [path.read_text() for path in (tmp_path / "prompts").rglob("*.json")]
    assert any("Be brief. Briefer." in text for text in saved)
    page.screenshot(path=str(ARTIFACTS / "prompts_save_over_variant.png"))
    # the answer prompt's editor says which citation markers its answers are graded on
    pick(page, "stSelectbox", "Template", "RAG answer (system prompt)")
    expect(page.get_by_text("graded on the markers [1], [¹] and [^1] alike")).to_be_visible()

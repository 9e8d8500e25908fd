"""In a real browser: a file named like Markdown is shown as its name, a heading holding HTML
and Markdown is shown as text in the outline, and neither fetches anything."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import ARTIFACTS, wait_for_app

pytestmark = pytest.mark.e2e
WAIT = 60_000
NAME = "![px](http://127.0.0.1:9/x.png) **bold** <b>x</b>.md"
HEADING = "![px](http://127.0.0.1:9/y.png) <img src=http://127.0.0.1:9/z.png> **bold**"


def test_a_markdown_file_name_is_shown_as_text(page, start_app):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    url = start_app()
    page.goto(f"{url}/documents")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Documents")).to_be_visible(timeout=120_000)
    page.locator("input[type=file]").set_input_files([
        {"name": NAME, "mimeType": "text/markdown",
         "buffer": f"# {HEADING}\n\nSome text.\n".encode()},
    ])
    success = page.get_by_test_id("stAlertContentSuccess")
    shown = NAME.replace("http://", "http\u2060://")  # a word joiner stops the auto-link
    expect(success).to_contain_text(f"{shown}: 1 section, ", timeout=120_000)
    wait_for_app(page)
    expect(success.locator("img, strong, b, a")).to_have_count(0)
    tree = page.get_by_role("tree", name="Sections")
    expect(tree.get_by_role("treeitem")).to_contain_text("<img src=http://127.0.0.1:9/z.png>",
                                                         timeout=WAIT)
    expect(tree.locator("img, strong, a")).to_have_count(0)
    assert not [u for u in requested if ".png" in u and "127.0.0.1:9" in u]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "documents_markdown_file_name.png"))

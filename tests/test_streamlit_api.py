"""The app uses Streamlit's current API: no argument Streamlit has deprecated (each one prints a
deprecation notice in the server log on every run that draws the widget)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEPRECATED = {"use_container_width": 'width="stretch" (or "content")'}


def _app_sources() -> list[Path]:
    return [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")),
            *sorted((ROOT / "ui").glob("*.py"))]


def test_no_deprecated_streamlit_argument_is_passed():
    found = []
    for path in _app_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {kw.arg} → {DEPRECATED[kw.arg]}"
                          for kw in node.keywords if kw.arg in DEPRECATED]
    assert not found, "\n".join(found)

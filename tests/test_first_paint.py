"""A first visit shows the app's frame and Home's heading before the shared resources' code is
imported (seconds on a server's first visit): the router runs the navigation and the page
before importing ``ui.resources``, and Home draws what to read before the library's code."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("ui.resources", "core.documents", "core.operations", "pandas")


def _statements(path: Path) -> list[str]:
    """Each top-level statement of a script: its imported modules, else its source."""
    source = path.read_text()
    shown = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom):
            shown.append(f"import {node.module}")
        elif isinstance(node, ast.Import):
            shown.append("import " + ", ".join(alias.name for alias in node.names))
        else:
            shown.append(ast.get_source_segment(source, node) or "")
    return shown


def _first(statements: list[str], found) -> int:
    return next(n for n, statement in enumerate(statements) if found(statement))


def _heavy(statement: str) -> bool:
    return statement.startswith("import ") and any(
        module in statement.split(",")[0].split()[1] for module in HEAVY)


def test_the_router_draws_the_navigation_and_the_page_before_the_heavy_imports():
    app = _statements(ROOT / "app.py")
    assert _first(app, lambda s: "page.run()" in s) < _first(app, _heavy)


def test_home_draws_its_heading_before_the_heavy_imports():
    home = _statements(ROOT / "pages" / "home.py")
    assert _first(home, lambda s: s.startswith("st.title(")) < _first(home, _heavy)

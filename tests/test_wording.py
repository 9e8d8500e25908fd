"""How counts read on screen: "1 document", "8 documents", never "8 document(s)"."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ui.wording import count

ROOT = Path(__file__).resolve().parents[1]
HEDGED_PLURAL = re.compile(r"[a-z]\(s\)")  # "document(s)"; a unit such as "Timeout (s)" is fine


def test_count_says_one_or_many():
    assert (count(1, "document"), count(8, "document")) == ("1 document", "8 documents")
    assert count(1_204, "query", "queries") == "1,204 queries"


def test_no_page_writes_a_hedged_plural():
    hedged = [f"{path.relative_to(ROOT)}:{node.lineno}"
              for path in sorted([*ROOT.glob("pages/*.py"), *ROOT.glob("ui/*.py")])
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.Constant) and isinstance(node.value, str)
              and HEDGED_PLURAL.search(node.value)]
    assert hedged == [], "say it with ui.wording.count"

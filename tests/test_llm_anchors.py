"""Anchored text for the model, and the way back to exact offsets (anchors and snapping)."""

from __future__ import annotations

from core.documents import convert
from core.llm import anchors

GUIDE = (
    b"# Guide\n\nFirst paragraph. It has two sentences.\n\n## Setup\n\n"
    b"Install it. Then run it.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast words here.\n"
)


def guide():
    return convert(GUIDE, "guide.md")


def test_units_number_blocks_from_one_and_keep_line_markup():
    doc = guide()
    found = anchors.anchor_blocks(doc)
    assert [u.number for u in found] == [1, 2, 3, 4, 5, 6]
    assert doc.text[found[0].start : found[0].end] == "# Guide"  # the "# " marker comes along
    assert doc.text[found[2].start : found[2].end] == "## Setup"
    assert found[4].kind == "table"


def test_render_puts_each_anchor_at_a_line_start():
    doc = guide()
    found = anchors.anchor_blocks(doc)
    text = anchors.render(doc, found, len(doc.text))
    lines = [line for line in text.splitlines() if line.startswith("[")]
    assert lines[:3] == [
        "[1] # Guide", "[2] First paragraph. It has two sentences.", "[3] ## Setup"]
    assert "[5] | a | b |" in text
    mapping = anchors.AnchorMap(found)
    assert doc.text[mapping.offset(4) :].startswith("Install it.")


def test_units_fall_back_to_paragraphs_without_blocks():
    doc = guide().model_copy(update={"blocks": []})
    found = anchors.anchor_blocks(doc)
    assert len(found) == 6 and doc.text[found[1].start :].startswith("First paragraph.")


def test_windows_fit_the_budget():
    text = b"\n\n".join(b"Paragraph %d has some words in it." % i for i in range(60))
    doc = convert(text, "p.md")
    found = anchors.anchor_blocks(doc)
    parts = anchors.windows(doc, found, budget_tokens=60)
    assert len(parts) > 5
    assert [u for part in parts for u in part] == found  # nothing lost, order kept
    assert all(len(part) >= 1 for part in parts)


def test_snap_to_block_or_sentence_start_within_tolerance():
    doc = guide()
    found = anchors.anchor_blocks(doc)
    candidates = anchors.boundary_candidates(doc, found, 0, len(doc.text))
    sentence = doc.text.index("It has two")
    assert sentence in candidates
    table = doc.text.index("| a |")
    assert not any(table < c < table + 29 for c in candidates)  # nothing inside the table
    assert anchors.snap(doc, sentence + 3, candidates, 10) == (sentence, 3)
    setup = doc.text.index("## Setup")
    assert anchors.snap(doc, setup - 2, candidates, 10) == (setup, 2)


def test_snap_beyond_tolerance_lands_on_a_word_start():
    doc = guide()
    found = anchors.anchor_blocks(doc)
    candidates = anchors.boundary_candidates(doc, found, 0, len(doc.text))
    inside_word = doc.text.index("paragraph") + 4
    position, moved = anchors.snap(doc, inside_word, candidates, tolerance=0)
    assert doc.text[position - 1].isspace() and not doc.text[position].isspace()
    assert moved == abs(position - inside_word) and moved <= 5

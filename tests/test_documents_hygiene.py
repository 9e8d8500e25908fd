"""Text hygiene: whatever a font's map or an upload holds, the Document serialises as JSON."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.documents import convert
from core.documents.hygiene import Hygiene, is_clean
from core.documents.model import PdfQuality
from core.documents.pdf.chars import CharFacts, clean_chars, words_of
from core.documents.pdf.layout import read_page_lines
from core.documents.pdf.writer import write


def test_pairs_are_joined_lone_surrogates_replaced_and_controls_dropped_and_counted() -> None:
    hygiene = Hygiene()
    text = hygiene.clean("a\ud835\udc00b\ud800c\udfffd\x00e\x1bf\x0cg\ufffeh\tI\nJ")
    assert text == "a\U0001d400b\ufffdc\ufffddef\ngh\tI\nJ"
    assert (hygiene.paired, hygiene.replaced, hygiene.controls) == (1, 2, 4)
    assert text.encode("utf-8")
    assert is_clean(text) and not is_clean("\udc00")
    assert hygiene.notes() == [
        "Text cleaned: 1 split characters (surrogate pairs) joined; 2 invalid characters "
        "(lone surrogates) replaced by \ufffd; 4 control characters removed."]


def test_a_text_upload_with_control_characters_converts_clean_and_says_so() -> None:
    document = convert(b"Intro\x1bduction\x07\n\nSecond\x0cpage", "notes.txt")
    assert document.text == "Introduction\n\nSecond\npage"
    assert any("3 control characters removed" in note for note in document.notes)
    json.loads(document.model_dump_json())


# glyph texts a font's map may give: anything, surrogates and control characters included
GLYPH_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, categories=None),
                     min_size=1, max_size=3)


def _chars(codes: list[list[int]]) -> list[dict[str, Any]]:
    """Glyphs without a Unicode map, set in lines of words on a page."""
    out = []
    for row, line in enumerate(codes):
        x = 50.0
        for i, code in enumerate(line):
            if i and i % 4 == 0:
                x += 6.0  # a word space
            out.append({"text": None, "code": code, "fontname": "ABCDEF+Font", "x0": x,
                        "x1": x + 5.0, "top": 100.0 + 14 * row, "bottom": 110.0 + 14 * row,
                        "doctop": 100.0 + 14 * row, "size": 10.0, "upright": True,
                        "upward": False, "origin": (x, 700.0 - 14 * row)})
            x += 5.0
    return out


@settings(max_examples=60, deadline=None)
@given(font_map=st.dictionaries(st.integers(1, 40), GLYPH_TEXT, min_size=1),
       codes=st.lists(st.lists(st.integers(1, 40), min_size=1, max_size=12), min_size=1,
                      max_size=6))
def test_any_font_map_gives_a_document_json_accepts_with_exact_spans(
        font_map: dict[int, str], codes: list[list[int]]) -> None:
    facts = CharFacts()
    chars = clean_chars(_chars(codes), lambda c: font_map.get(c["code"]), facts)
    lines = read_page_lines(words_of(chars), 1).lines
    converted = write(list(lines), [], PdfQuality(), [])
    document = converted.document("0" * 16, "random.pdf", "pdf")
    assert is_clean(document.text)
    dumped = json.loads(document.model_dump_json().encode("utf-8"))
    assert dumped["text"] == document.text
    for block in document.blocks:
        assert block.end <= len(document.text)
    for table in document.tables:
        assert document.text[table.start:table.end] == table.markdown
    for section in document.sections:
        assert document.text[section.heading_start:section.heading_end] == section.title

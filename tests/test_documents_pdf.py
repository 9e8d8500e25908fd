"""The offline PDF route on PDFs made like real ones (bench.pdf_heldout), whose reference text
and headings are known: columns read in order, running lines out, overprints collapsed,
numbered and wrapped headings, a ruled table with its caption, page facts kept."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.pdf_heldout import fake_bold, three_column, two_column
from bench.pdf_score import (
    doubled_glyph_words,
    heading_recall,
    reference_headings,
    unmapped,
    word_f1,
)
from core.documents.pdf import convert_pdf_offline
from core.errors import ConversionError


@pytest.mark.parametrize("maker", [two_column, three_column, fake_bold])
def test_reads_like_the_reference(maker):
    data, reference = maker(random.Random(maker.__name__))
    converted = convert_pdf_offline(data, "made.pdf")
    markdown = reference.markdown()
    assert word_f1(converted.text, markdown) >= 0.97
    assert heading_recall([s.title for s in converted.sections],
                          reference_headings(markdown)) == 1.0
    assert doubled_glyph_words(converted.text) == []


def test_columns_are_read_one_after_the_other_and_running_lines_kept_apart():
    data, reference = two_column(random.Random("order"))
    converted = convert_pdf_offline(data, "made.pdf")
    paragraphs = [str(p) for kind, p in reference.parts if kind == "p"]
    # every paragraph of the reference is one run of the text, in the reference's order
    cursor = 0
    for paragraph in paragraphs:
        cursor = converted.text.find(paragraph, cursor)
        assert cursor >= 0, paragraph
        cursor += len(paragraph)
    assert "Northern Region" not in converted.text and "Page 1" not in converted.text
    assert converted.page_info[0].running == [
        "Annual Review of Water Services - Northern Region", "Page 1"]
    assert converted.page_info[0].columns == 2 and converted.quality is not None
    assert converted.quality.multi_column_pages >= 1


def test_numbering_gives_levels_and_a_wrapped_heading_is_one_section():
    data, _ = two_column(random.Random("levels"))
    converted = convert_pdf_offline(data, "made.pdf")
    levels = {s.title: s.level for s in converted.sections}
    wrapped = ("2 Leakage and pressure management across the network and the districts it "
               "serves")
    assert levels[wrapped] == levels["1 Supply and demand"] == 2
    assert levels["1.1 Actions for supply"] == 3  # same font as "1 ...", numbered one deeper
    assert levels["Annual Review of Water Services"] == 1


def test_fake_bold_is_collapsed_and_the_table_keeps_its_caption():
    data, _ = fake_bold(random.Random("bold"))
    converted = convert_pdf_offline(data, "made.pdf")
    assert converted.quality is not None and converted.quality.overprinted_removed > 100
    [table] = converted.tables
    assert table.caption == "Table 1: Night flows and repairs by district"
    assert table.rows[0] == ["District", "Night flow (l/s)", "Leaks repaired", "Change"]
    assert [b.kind for b in converted.blocks].count("list_item") == 3


FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pdf"


@pytest.mark.parametrize("name", ["no-unicode-map", "browser-ligatures", "print-driver"])
def test_glyphs_without_a_unicode_map_are_read_from_their_fonts(name):
    """Type0 Identity-H fonts without ToUnicode: the text comes from the embedded font's cmap,
    its glyph names or its ligature table, never from pdfium's guesses (character codes)."""
    converted = convert_pdf_offline((FIXTURES / f"{name}.pdf").read_bytes(), f"{name}.pdf")
    reference = (FIXTURES / f"{name}.md").read_text()
    assert word_f1(converted.text, reference) >= 0.97
    assert heading_recall([s.title for s in converted.sections],
                          reference_headings(reference)) == 1.0
    assert converted.quality is not None and converted.quality.unmappable_recovered > 1000
    assert converted.quality.unmappable_dropped == 0
    assert not any(ord(c) < 32 and c != "\n" or 0x0780 <= ord(c) <= 0x07BF
                   or 0xE000 <= ord(c) <= 0xF8FF for c in converted.text)
    assert "ﬁ" not in converted.text and "ﬀ" not in converted.text  # ligatures as letters


def test_glyphs_no_font_names_are_dropped_counted_and_said():
    data = (FIXTURES / "no-unicode-map.pdf").read_bytes()
    one_unreadable = data.replace(b"/FontFile2", b"/FontFileX", 1)  # its program is gone
    converted = convert_pdf_offline(one_unreadable, "one-font.pdf")
    assert converted.quality is not None and converted.quality.unmappable_dropped > 1000
    assert converted.quality.unmappable_recovered > 100  # the headings' font is still read
    assert "unmappable characters dropped" in converted.quality.summary()
    assert unmapped(converted.text) == 0
    with pytest.raises(ConversionError, match="none of its .* glyphs"):
        convert_pdf_offline(data.replace(b"/FontFile2", b"/FontFileX"), "no-fonts.pdf")

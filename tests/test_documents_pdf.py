"""The offline PDF route on PDFs made like real ones (bench.pdf_heldout), whose reference text
and headings are known: columns read in order, running lines out, overprints collapsed,
numbered and wrapped headings, a ruled table with its caption, page facts kept."""

from __future__ import annotations

import random

import pytest

from bench.pdf_heldout import fake_bold, three_column, two_column
from bench.pdf_score import doubled_glyph_words, heading_recall, reference_headings, word_f1
from core.documents.pdf import convert_pdf_offline


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

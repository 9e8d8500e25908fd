"""The offline PDF route on PDFs made like real ones (corpora.pdf_layouts), whose reference text
and headings are known: columns read in order, running lines out, overprints collapsed,
numbered and wrapped headings, a ruled table with its caption, page facts kept."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from core.documents.pdf import convert_pdf_offline
from core.errors import ConversionError
from corpora.pdf_layouts import fake_bold, three_column, two_column
from corpora.pdf_score import (
    doubled_glyph_words,
    heading_recall,
    reference_headings,
    unmapped,
    word_f1,
)
from tests.docfactory import transcript


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


def test_a_line_number_gutter_is_page_facts_and_double_spaced_lines_are_paragraphs():
    data, paragraphs = transcript()
    converted = convert_pdf_offline(data, "transcript.pdf")
    assert converted.page_info[0].line_numbers == list(range(1, 26))
    assert converted.page_info[1].line_numbers == list(range(1, 26))
    assert not any(b.kind == "table" for b in converted.blocks)  # the caption stays text
    texts = [converted.text[b.start:b.end] for b in converted.blocks]
    for paragraph in paragraphs:
        assert paragraph in texts  # one paragraph each, no line number inside
    assert "JANE ROE" in converted.text and not any(
        re.match(r"^\d{1,2} ", t) for t in texts)


def lines_pdf(lines: list[str], size: float = 10) -> bytes:
    """One paragraph, broken into exactly these lines (left-aligned, single spaced)."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", size)
    for text in lines:
        pdf.cell(0, size * 0.45, text, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def test_a_dash_at_a_line_end_joins_the_number_on_the_next_line():
    # fpdf2's core fonts have no en dash ("–"): "-" stands in for it; the rule is the same
    lines = ["The proposed directive applies to all The Boeing Company Model 737-",
             "9 airplanes and to the models listed in Emergency AD 2018-",
             "23-51, which the agency issued to operators of 737 MAX airplanes in the",
             "autumn; self-contained units and pre- and post-flight checks are well-",
             "known to crews, and the comments on the proposal are filed in docket FAA-",
             "2020-0686 holds the comments received."]
    converted = convert_pdf_offline(lines_pdf(lines), "dashes.pdf")
    assert "Model 737-9 airplanes" in converted.text
    assert "Emergency AD 2018-23-51, which" in converted.text
    assert "docket FAA-2020-0686 holds" in converted.text
    assert "well-known" not in converted.text and "wellknown to crews" in converted.text


def agenda() -> bytes:
    """A meeting agenda as a school board writes one: a letterhead, an address block set in
    fields, a bold notice sentence, numbered items in bold with numbered sub-items in regular
    type a point larger than the running text."""
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.add_page()

    def line(text: str, size: float, style: str = "", x: float = 20, gap: float = 2) -> None:
        pdf.set_font("Helvetica", style, size)
        pdf.set_x(x)
        pdf.cell(0, size * 0.45, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(gap)

    line("NORTHFIELD UNIFIED SCHOOL DISTRICT", 12, "B", 60)
    line("Board of Education Regular Meeting Agenda", 15, "B", 45, 6)
    pdf.set_font("Helvetica", "", 11)
    for left, right in [("Northfield Unified School District", "May 4, 2021"),
                        ("Board Room, 40 Elm Street", "6:00 p.m.")]:
        pdf.cell(120, 5, left)
        pdf.cell(0, 5, right, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    body = ("Members of the public may address the Board on any item on the agenda. Speakers are "
            "asked to fill out a card and hand it to the clerk before the meeting begins, and "
            "each speaker will have three minutes. ") * 3
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 4.5, body, new_x="LMARGIN", new_y="NEXT")
    line("As a courtesy to others, please silence your phone when you enter the meeting room.",
         10, "B", 40, 4)
    for number, title, subs in [("1.", "CALL TO ORDER", []),
                                ("2.", "PUBLIC COMMENT", ["2.1 Comments on agenda items"]),
                                ("3.", "CONSENT CALENDAR", ["3.1 Minutes of April 20",
                                                            "3.2 Warrants and payroll"]),
                                ("4.", "ADJOURNMENT", [])]:
        line(f"{number} {title}", 11, "B", 20, 1)
        pdf.set_font("Helvetica", "", 10)
        pdf.set_x(28)
        pdf.multi_cell(0, 4.5, body[:230], new_x="LMARGIN", new_y="NEXT")
        for sub in subs:
            line(sub, 11, "", 28, 1)
        pdf.ln(3)
    return bytes(pdf.output())


def test_heading_levels_are_dense_numbering_nests_and_sentences_and_fields_are_not_headings():
    converted = convert_pdf_offline(agenda(), "agenda.pdf")
    levels = {s.title: s.level for s in converted.sections}
    assert levels["Board of Education Regular Meeting Agenda"] == 1  # the largest type
    assert levels["1. CALL TO ORDER"] == levels["4. ADJOURNMENT"]
    assert levels["2.1 Comments on agenda items"] == levels["2. PUBLIC COMMENT"] + 1
    assert levels["3.2 Warrants and payroll"] == levels["3. CONSENT CALENDAR"] + 1
    assert sorted(set(levels.values())) == list(range(1, max(levels.values()) + 1))  # no gaps
    assert not any("courtesy" in t or "May 4" in t or "Elm Street" in t for t in levels)


WRAPPED_ROWS = [("06/22/2015", ["Maxim Integrated Products"], "San Jose", "150"),
                ("06/30/2015", ["McGraw-Hill Education and", "Learning Services"], "Monterey",
                 "137"),
                ("07/01/2015", ["Leidos"], "El Segundo", "72"),
                ("07/02/2015", ["Bay Bread LLC dba New", "French Bakery"], "South San Francisco",
                 "121"),
                ("07/06/2015", ["Bridgepoint Education, Inc."], "San Diego", "7"),
                ("07/08/2015", ["Microsoft Corporation"], "San Diego", "129")]


def unruled_table() -> bytes:
    """A report table without rules whose company names wrap onto a second line."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 5, "Notices received in July, by the date each notice was received.",
                   new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    xs = [20, 50, 105, 160]
    pdf.set_font("Helvetica", "B", 10)
    for x, head in zip(xs, ["Notice Date", "Company", "City", "Employees"], strict=True):
        pdf.text(x, pdf.get_y() + 4, head)
    pdf.ln(7)
    pdf.set_font("Helvetica", "", 10)
    for date, company, city, count in WRAPPED_ROWS:
        y = pdf.get_y() + 4
        for x, value in zip(xs, [date, company[0], city, count], strict=True):
            pdf.text(x, y, value)
        for k, more in enumerate(company[1:], start=1):
            pdf.text(xs[1], y + 4.2 * k, more)
        pdf.ln(4.2 * len(company) + 1.5)
    pdf.ln(4)
    pdf.multi_cell(0, 5, "Counts are as reported by the employers and have not been checked.",
                   new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def test_an_unruled_table_keeps_rows_whose_cells_wrap():
    converted = convert_pdf_offline(unruled_table(), "notices.pdf")
    [table] = converted.tables
    assert table.rows[0] == ["Notice Date", "Company", "City", "Employees"]
    assert len(table.rows) == 1 + len(WRAPPED_ROWS)
    for row, (date, company, city, count) in zip(table.rows[1:], WRAPPED_ROWS, strict=True):
        assert row == [date, " ".join(company), city, count]
    assert converted.text[table.start:table.end] == table.markdown


def stamped_pages(stamp: str, note: str) -> bytes:
    """Three pages of prose with a production stamp set up the left margin (as typesetting
    systems stamp every page) and a note set down the right margin on the first page only."""
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    for number in range(3):
        pdf.add_page()
        pdf.set_font("Helvetica", "", 10)
        pdf.set_xy(25, 25)
        pdf.multi_cell(160, 5, f"Page {number + 1} of the notice. " + "The comments received "
                       "are filed in the docket and answered in the final rule. " * 8)
        pdf.set_font("Helvetica", "", 6)
        with pdf.rotation(90, 10, 200):  # counter-clockwise: reads up the page
            pdf.text(10, 200, stamp)
        if number == 0:
            with pdf.rotation(-90, 200, 40):  # clockwise: reads down the page
                pdf.text(200, 40, note)
    return bytes(pdf.output())


def test_rotated_margin_text_reads_in_its_direction_and_a_repeated_stamp_is_running():
    stamp, note = "jbell on PRODUCTION with PROPOSALS", "Filed under seal for review"
    converted = convert_pdf_offline(stamped_pages(stamp, note), "stamped.pdf")
    assert stamp not in converted.text and "SLASOPORP" not in converted.text  # not reversed
    assert all(stamp in page.running for page in converted.page_info)
    assert note in converted.text  # once only: rotated text, read top to bottom, stays

"""Letters a producer set apart (character spacing, tracking) still read as whole words."""

from __future__ import annotations

from core.documents.pdf import convert_pdf_offline


def tracked() -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    for spacing in (0, 1.5, 2.5):
        pdf.set_char_spacing(spacing)
        pdf.multi_cell(0, 5, "Specifies that the row permission is to be initially disabled.",
                       new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
    pdf.set_char_spacing(0)
    pdf.multi_cell(0, 5, "Footnote 1 and x 7 stay apart from their neighbours here.",
                   new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def test_letters_set_apart_read_as_whole_words_and_word_spaces_stay() -> None:
    text = convert_pdf_offline(tracked(), "tracked.pdf").text
    assert text.count("Specifies that the row permission is to be initially disabled.") == 3
    assert "Footnote 1 and x 7 stay apart" in text

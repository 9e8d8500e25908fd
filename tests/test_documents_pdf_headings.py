"""Headings in PDFs: numbered sections nest, bold run-in headings are found, code is never a
heading."""

from __future__ import annotations

from core.documents.pdf import convert_pdf_offline
from core.documents.pdf.chars import _font_kind

BODY = ("The parameters were chosen on a held-out split of the training data and kept fixed for "
        "every run reported in this section of the paper.")


def paper() -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.add_page()

    def text(line: str, family: str = "Helvetica", style: str = "", size: float = 10) -> None:
        pdf.set_font(family, style, size)
        pdf.multi_cell(0, size * 0.5, line, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)

    text("5 Experiments", style="B", size=12)
    text(BODY * 2)
    text("5.1 Hyper Parameter Optimization", style="B")
    text(BODY * 2)
    text("CREATE PERMISSION <permission name>", family="Courier", style="B")
    text("DISABLE;", family="Courier", style="B")
    text(BODY)
    text("5.2 Quantitative Results", style="B")
    text(BODY * 2)
    # a bold run-in heading opening its paragraph
    pdf.set_font("Helvetica", "B", 10)
    pdf.write(5, "Boots Self-Locking Nut ")
    pdf.set_font("Helvetica", "", 10)
    pdf.write(5, "The nut is held by a spring clip that locks it on the bolt. " + BODY)
    return bytes(pdf.output())


def test_numbered_headings_nest_run_in_headings_are_found_and_code_is_not_a_heading() -> None:
    converted = convert_pdf_offline(paper(), "paper.pdf")
    found = {s.title: (s.level, s.parent) for s in converted.sections}
    assert found["5 Experiments"] == (1, None)
    assert found["5.1 Hyper Parameter Optimization"] == (2, "5 Experiments")
    assert found["5.2 Quantitative Results"] == (2, "5 Experiments")
    assert found["Boots Self-Locking Nut"][0] >= 2
    assert not any("PERMISSION" in t or "DISABLE" in t for t in found)
    assert "CREATE PERMISSION <permission name>" in converted.text
    assert "\n\nThe nut is held by a spring clip" in converted.text


def test_latex_times_medium_is_bold() -> None:
    assert _font_kind("ABCDEF+NimbusRomNo9L-Medi")[0]
    assert _font_kind("NimbusRomNo9L-MediItal")[0]
    assert not _font_kind("NimbusRomNo9L-Regu")[0]
    assert _font_kind("Courier-Bold")[2] and not _font_kind("Helvetica")[2]


def one_page(header: str | None) -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.add_page()
    if header:
        pdf.set_font("Helvetica", "", 8)
        pdf.cell(0, 4, header, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(8)
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 8, "Table Structure Recognition", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    for _ in range(4):
        pdf.multi_cell(0, 5, BODY * 3, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    return bytes(pdf.output())


def test_a_one_page_papers_running_header_is_taken_out_by_its_place_and_font() -> None:
    converted = convert_pdf_offline(one_page("Published as a conference paper at ICLR 2024"),
                                    "paper.pdf")
    assert "Published as" not in converted.text
    assert converted.page_info[0].running == ["Published as a conference paper at ICLR 2024"]
    plain = convert_pdf_offline(one_page(None), "paper.pdf")
    assert plain.text.startswith("# Table Structure Recognition")
    assert plain.page_info[0].running == []

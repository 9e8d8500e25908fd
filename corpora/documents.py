"""Office files and PDFs made in code, with known content: a DOCX (title, headings, a list, a
table with a caption), a text PDF (title, numbered headings, a ruled table), an XLSX of two
sheets and a PPTX with a table. Tests and benchmarks convert them."""

from __future__ import annotations

import io

POLICY_ROWS = [["Cover", "Limit", "Deductible"], ["Fire", "250,000 EUR", "500 EUR"],
               ["Water | flood", "100,000 EUR", "1,000 EUR"]]


def docx_bytes() -> bytes:
    """A DOCX with a title, two heading levels, a bullet list, a table and a caption."""
    import docx

    d = docx.Document()
    d.add_heading("Home Insurance Policy", 0)
    d.add_heading("Coverage", 1)
    paragraph = d.add_paragraph("This policy covers your home ")
    paragraph.add_run("against fire and water").bold = True
    paragraph.add_run(" damage.")
    d.add_paragraph("Fire damage", style="List Bullet")
    d.add_paragraph("Water damage", style="List Bullet")
    d.add_heading("Coverage limits", 2)
    table = d.add_table(rows=len(POLICY_ROWS), cols=3)
    for row, values in zip(table.rows, POLICY_ROWS, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    d.add_paragraph("Table 1: Coverage limits and deductibles")
    d.add_heading("Exclusions", 1)
    d.add_paragraph("War, nuclear risks and wear and tear are not covered.")
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def pdf_bytes(pages: int = 2) -> bytes:
    """A text PDF: a 20 pt title, 15/13 pt headings, 11 pt body, a ruled table with a caption."""
    from fpdf import FPDF

    pdf = FPDF()

    def write(size: float, text: str, style: str = "", after: float = 2) -> None:
        pdf.set_font("Helvetica", style, size)
        pdf.multi_cell(0, size * 0.5, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(after)

    pdf.add_page()
    write(20, "Field Report", "B")
    write(15, "1. Site visit", "B")
    for i in range(2):
        write(11, f"Paragraph {i}. The crew inspected the pump housing and found corrosion on "
                  "the inlet flange, which they photographed and measured.", after=3)
    write(13, "1.1 Measurements", "B")
    write(11, "Table 1: Pressure readings", after=1)
    pdf.set_font("Helvetica", "", 11)
    with pdf.table() as table:
        for values in [("Point", "Pressure (bar)"), ("A", "4.2"), ("B", "3.1")]:
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.ln(3)
    write(11, "After the table the report goes on.")
    for n in range(2, pages + 1):
        pdf.add_page()
        write(15, f"{n}. Findings part {n}", "B")
        write(11, "- first finding", after=0)
        write(11, "- second finding", after=0)
    return bytes(pdf.output())


def xlsx_bytes() -> bytes:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Limits"
    for row in [["Item", "Limit"], ["Fire", 1000], ["Flood", 500]]:
        ws.append(row)
    other = wb.create_sheet("Staff")
    for row in [["Name", "Role"], ["Ada", "Engineer"]]:
        other.append(row)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def pptx_bytes() -> bytes:
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Quarterly review"
    slide.placeholders[1].text = "Revenue grew\nCosts fell"
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Numbers"
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
    for (r, c), value in {(0, 0): "Metric", (0, 1): "Value", (1, 0): "Revenue",
                          (1, 1): "12"}.items():
        table.cell(r, c).text = value
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()

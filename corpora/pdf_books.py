"""Books made like printed ones, each with its reference conversion (:class:`Doc`): a cover
(series name, title, author list, publisher line), a contents page with dot leaders and page
numbers, numbered chapters that each start a page, running headers naming the current chapter,
and an index — to test that the offline PDF route reads their structure as a reader does.

- ``field-guide``: a technical guide's layout: "Chapter 2. Roles and separation of duties" at
  the top of the chapter's first page, the same words as the running header of its other pages;
- ``annual-report``: the chapter's number alone in a huge size above its title, a contents
  list over two pages, a list of figures, a back cover.

In the reference, cover, contents, list-of-figures and index pages are fenced by
``<!-- front matter: ROLE -->`` … ``<!-- end front matter -->`` (their lines are no answer to a
question); cover lines are never headings.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from corpora.pdf_layouts import Doc, paragraph

FIELD_GUIDE = [
    ("Securing the control network", [
        ("Why the control room needs its own network", ["Zones and conduits",
                                                        "Remote access for contractors"]),
        ("Encrypted telemetry links", [])]),
    ("Roles and separation of duties", [
        ("Operators and engineers", ["Granting the engineer role"]),
        ("Reviewing changes to set points", [])]),
    ("Monitoring and response", [
        ("Alarms that matter", []),
        ("Logging every change", ["Keeping logs where nobody can delete them"]),
        ("Exercises on paper", ["Running the exercise", "Activating the manual logs"])]),
]
ANNUAL_REPORT = [
    ("Supply and demand", [("Demand through the dry summer", ["Garden use in the evenings"]),
                           ("Reservoir levels", [])]),
    ("Leakage and pressure", [("Night flows by district", ["Acoustic loggers"]),
                              ("Repairs", [])]),
    ("Water quality", [("Sampling at customer taps", []),
                       ("Taste and odour", ["Activated carbon dosing"])]),
    ("Customers and billing", [("Smart meters", []), ("The social tariff", [])]),
]
INDEX = ["alarms, 9, 11", "audit records, 11", "contractors, 4", "control room, 3, 12",
         "engineer role, 7", "exercises, 12", "logs, 11, 12", "operators, 7",
         "set points, 8", "telemetry, 5", "zones, 4"]


@dataclass
class _Entry:
    level: int  # 1 chapter, 2 section, 3 subsection
    text: str  # as printed in the heading and in the contents
    page: int = 0


def _chapters(plan: str, rng: random.Random) -> list[tuple[_Entry, list[tuple[_Entry, str]]]]:
    """Each chapter's entry and its parts in order: a heading (level 2 or 3), a figure (level
    -1, its caption) or running text (level 0, the text)."""
    spec = FIELD_GUIDE if plan == "field-guide" else ANNUAL_REPORT
    out = []
    for c, (title, sections) in enumerate(spec, start=1):
        heading = f"Chapter {c}. {title}" if plan == "field-guide" else f"{c} {title}"
        parts: list[tuple[_Entry, str]] = [(_Entry(0, ""), paragraph(rng, 4))]
        for s, (section, subsections) in enumerate(sections, start=1):
            parts.append((_Entry(2, f"{c}.{s} {section}"), ""))
            for _ in range(rng.randint(4, 5)):
                parts.append((_Entry(0, ""), paragraph(rng, rng.randint(7, 10))))
            if plan == "annual-report" and s == 1:
                parts.append((_Entry(-1, f"Figure {c}.{s} {section}"), ""))
            for k, sub in enumerate(subsections, start=1):
                parts.append((_Entry(3, f"{c}.{s}.{k} {sub}"), ""))
                for _ in range(rng.randint(3, 4)):
                    parts.append((_Entry(0, ""), paragraph(rng, rng.randint(6, 9))))
        out.append((_Entry(1, heading), parts))
    return out


class _Printer:
    """Draws one book with fpdf2; ``known`` are the pages its headings landed on (empty on the
    first rendering, which only finds them, in ``found``)."""

    def __init__(self, plan: str, rng: random.Random, known: dict[str, int]) -> None:
        from fpdf import FPDF

        self.plan = plan
        self.known = known
        self.found: dict[str, int] = {}
        self.chapter = ""  # the running header's words, "" on pages without one
        printer = self

        class Book(FPDF):
            def header(self) -> None:
                if printer.chapter and self.page_no() != printer.chapter_page:
                    self.set_font("Helvetica", "", 8)
                    self.set_y(10)
                    self.cell(0, 5, printer.chapter, align="L")
                    self.set_y(24)

            def footer(self) -> None:
                if printer.numbered:
                    self.set_y(-14)
                    self.set_font("Helvetica", "", 8)
                    self.cell(0, 5, str(self.page_no()), align="C")

        self.pdf = Book(format="A4")
        self.pdf.set_creation_date(datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC))
        self.pdf.set_auto_page_break(True, margin=22)
        self.pdf.set_margins(22, 24, 22)
        self.chapter_page = 0
        self.numbered = False
        self.rng = rng
        self.doc = Doc()

    def matter(self, role: str) -> None:
        self.doc.parts.append(("raw", f"<!-- front matter: {role} -->"))

    def end_matter(self) -> None:
        self.doc.parts.append(("raw", "<!-- end front matter -->"))

    def line(self, text: str, size: float, bold: bool = False, align: str = "L",
             height: float = 0.0, gray: int = 0) -> None:
        self.pdf.set_font("Helvetica", "B" if bold else "", size)
        self.pdf.set_text_color(gray)
        self.pdf.multi_cell(0, height or size * 0.5, text, align=align, new_x="LMARGIN",
                            new_y="NEXT")
        self.pdf.set_text_color(0)

    def cover(self, series: str, title: str, authors: list[str], publisher: str) -> None:
        pdf = self.pdf
        pdf.add_page()
        self.matter("cover")
        pdf.set_y(30)
        self.line(series, 20, True, "R")
        self.doc.para(series)
        pdf.set_y(80)
        self.line(title, 28, True, height=13)
        self.doc.para(title)
        pdf.ln(18)
        for names in authors:
            self.line(names, 11, True, height=6)
            self.doc.para(names)
        pdf.set_y(-50)
        self.line(publisher, 13, True)
        self.doc.para(publisher)
        self.end_matter()

    def _leader(self, text: str, page: int, size: float, indent: float) -> None:
        pdf = self.pdf
        pdf.set_font("Helvetica", "B" if indent == 0 else "", size)
        width = pdf.w - pdf.l_margin - pdf.r_margin - indent
        number = str(page)
        room = width - pdf.get_string_width(text) - pdf.get_string_width(number) - 4
        dots = " ." * max(int(room / pdf.get_string_width(" .")), 3)
        pdf.set_x(pdf.l_margin + indent)
        pdf.cell(width, size * 0.55, f"{text}{dots} {number}", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(size * 0.2 if size < 12 else size * 1.3)

    def listing(self, role: str, title: str, entries: list[_Entry], size: float) -> None:
        self.pdf.add_page()
        self.matter(role)
        self.line(title, 22, True)
        self.doc.heading(1, title)
        self.pdf.ln(8)
        for entry in entries:
            page = self.known.get(entry.text, 0)
            self._leader(entry.text, page, size, 6.0 * max(entry.level - 1, 0))
            self.doc.para(f"{entry.text} {page}")
        self.end_matter()

    def chapter_start(self, entry: _Entry, number: int) -> None:
        pdf = self.pdf
        self.chapter = ""
        pdf.add_page()
        self.chapter_page = pdf.page_no()
        self.found[entry.text] = pdf.page_no()
        pdf.set_y(16)
        if self.plan == "field-guide":
            self.line(entry.text, 22, True, height=10)
        else:
            self.line(str(number), 60, True, height=24, gray=90)
            self.line(entry.text.split(" ", 1)[1], 22, True, height=10)
        self.doc.heading(1, entry.text)
        pdf.ln(6)
        self.chapter = entry.text

    def body(self, parts: list[tuple[_Entry, str]]) -> None:
        pdf = self.pdf
        for entry, text in parts:
            if entry.level in (2, 3):
                pdf.ln(3)
                self.found[entry.text] = pdf.page_no()
                self.line(entry.text, 14 if entry.level == 2 else 11.5, True, height=7)
                self.doc.heading(entry.level, entry.text)
                pdf.ln(1)
            elif entry.level == -1:
                if pdf.get_y() + 60 > pdf.h - pdf.b_margin:
                    pdf.add_page()
                self.found[entry.text] = pdf.page_no()
                pdf.set_fill_color(225)
                pdf.rect(pdf.l_margin, pdf.get_y() + 2, 90, 40, style="F")
                pdf.ln(46)
                self.line(entry.text, 9, height=5)
                self.doc.para(entry.text)
                pdf.ln(3)
            else:
                self.line(text, 10, height=5, align="J")
                self.doc.para(text)
                pdf.ln(2)

    def index(self) -> None:
        self.chapter = ""
        self.pdf.add_page()
        self.matter("index")
        self.line("Index", 22, True)
        self.doc.heading(1, "Index")
        self.pdf.ln(6)
        for entry in INDEX:
            self.line(entry, 10, height=5.5)
            self.doc.para(entry)
        self.end_matter()


def _render(plan: str, seed: str, known: dict[str, int]) -> tuple[_Printer, list[_Entry]]:
    rng = random.Random(seed)
    printer = _Printer(plan, rng, known)
    chapters = _chapters(plan, rng)
    entries = [e for chapter, parts in chapters
               for e in [chapter, *(p for p, _ in parts if p.level > 0)]]
    if plan == "field-guide":
        printer.cover("Fieldguide", "Telemetry and Control Security for Water Networks",
                      ["Amara Okafor   Bruno Lindqvist   Chen Wei   Dalia Haddad",
                       "Emil Novak   Farah Qureshi   Gustavo Ramos"],
                      "Harbourside Technical Press")
        printer.numbered = True
        printer.listing("contents", "Contents", [*entries, _Entry(1, "Index")], 10)
    else:
        printer.cover("Northern Water", "Annual Review of Water Services 2024",
                      ["Ines Moreau   Kwame Asante   Lena Fischer", "Marek Dvorak   Noor Rahman"],
                      "Published by the Northern Water Board, Ashford")
        printer.numbered = True
        printer.listing("contents", "Contents", entries, 12)
        figures = [p for _, parts in chapters for p, _ in parts if p.level == -1]
        printer.listing("figures", "List of figures", figures, 10)
    for number, (chapter, parts) in enumerate(chapters, start=1):
        printer.chapter_start(chapter, number)
        printer.body(parts)
    if plan == "field-guide":
        printer.found["Index"] = printer.pdf.page_no() + 1
        printer.index()
    else:
        printer.chapter = ""
        printer.numbered = False
        printer.pdf.add_page()
        printer.matter("cover")
        printer.pdf.set_y(200)
        back = ["Northern Water Board", "Ashford Road, Ashford",
                "Copies of this review are available from the board's offices."]
        for k, text in enumerate(back):
            printer.line(text, 24 if k == 0 else 11, k == 0, "C", height=12 if k == 0 else 6)
            printer.doc.para(text)
        printer.end_matter()
    return printer, entries


def book(plan: str, seed: str) -> tuple[bytes, Doc]:
    """The book ``plan`` ("field-guide" or "annual-report") and its reference."""
    first, _ = _render(plan, seed, {})
    final, _ = _render(plan, seed, first.found)
    assert final.found == first.found, "the contents moved the pages it lists"
    return bytes(final.pdf.output()), final.doc


def field_guide(rng: random.Random) -> tuple[bytes, Doc]:
    return book("field-guide", str(rng.random()))


def annual_report(rng: random.Random) -> tuple[bytes, Doc]:
    return book("annual-report", str(rng.random()))

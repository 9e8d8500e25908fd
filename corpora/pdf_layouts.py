"""PDFs made like real-world ones, each with its reference conversion (:class:`Doc`), to test
the offline PDF route on material it was not developed on: the layouts fpdf2 can write
(``python -m bench.pdf_heldout`` writes them all; :mod:`corpora.pdf_browser` has those printed
by headless Chromium)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

SENTENCES = [
    "The utility operates four treatment works and about two thousand kilometres of mains.",
    "Demand rose sharply during the dry summer, when garden use doubled in the evenings.",
    "Leakage fell for the third year running after pressure management was extended.",
    "Every district metered area now reports night flows to the control room each hour.",
    "Customers in the northern valley saw two interruptions longer than twelve hours.",
    "The regulator asked for a plan to replace lead service pipes within fifteen years.",
    "Crews repaired most visible leaks within a day and hidden leaks within nine days.",
    "Sampling at customer taps met the drinking water standard in all but three cases.",
    "Each exceedance was traced to a private fitting and resolved with the owner.",
    "Energy use per cubic metre treated fell after the pumps at Ashford were replaced.",
    "Sludge from the works is dried on site and spread on farmland under permit.",
    "The board approved a capital programme weighted towards renewals of old mains.",
    "Consultation with farmers shaped the catchment scheme that reduces nitrate at source.",
    "Reservoir levels recovered by late autumn, and hosepipe restrictions were lifted.",
    "Complaints about taste and odour were highest in August, after an algal bloom.",
    "Activated carbon dosing was increased until the bloom had passed the intake.",
    "Staff turnover was low, though recruiting experienced fitters remained difficult.",
    "An apprenticeship scheme took on twelve trainees across the three depots.",
    "Smart meters were fitted to new homes, and a trial covers older streets in Marlow.",
    "Early results suggest households with smart meters use about six percent less water.",
    "The billing system was migrated over a weekend without any missed invoices.",
    "Bad debt remained stable despite rising living costs in the region.",
    "A social tariff halves bills for households on the lowest incomes.",
    "Take-up of the social tariff grew after community groups helped promote it.",
    "Flood resilience work raised the walls around two pumping stations by a metre.",
    "Telemetry outstations were upgraded to encrypted links during the spring.",
    "A cyber security exercise tested how the control room would work on paper.",
    "The exercise showed that manual logs needed clearer handover instructions.",
    "Chlorine contact tanks at Dene were relined, which took them out of use for six weeks.",
    "During the work the site ran on its standby tank with extra monitoring.",
]


@dataclass
class Doc:
    """What a generated PDF says, in reading order, as the reference conversion."""

    parts: list[tuple[str, object]] = field(default_factory=list)  # (kind, payload)

    def heading(self, level: int, text: str) -> None:
        self.parts.append(("h", (level, text)))

    def para(self, text: str) -> None:
        self.parts.append(("p", text))

    def bullet(self, text: str) -> None:
        self.parts.append(("li", text))

    def table(self, rows: list[list[str]], caption: str) -> None:
        self.parts.append(("t", (rows, caption)))

    def markdown(self) -> str:
        out = []
        for kind, payload in self.parts:
            if kind == "h":
                level, text = payload  # type: ignore[misc]
                out.append("#" * level + " " + text)
            elif kind == "li":
                out.append(f"- {payload}")
            elif kind == "t":
                rows, caption = payload  # type: ignore[misc]
                out.append(caption)
                out.append("\n".join("| " + " | ".join(r) + " |" for r in rows))
            else:
                out.append(str(payload))
        return "\n\n".join(out) + "\n"


def paragraph(rng: random.Random, n: int) -> str:
    start = rng.randrange(len(SENTENCES))
    return " ".join(SENTENCES[(start + i) % len(SENTENCES)] for i in range(n))


def outline(rng: random.Random, chapters: int, wrapped: bool = True) -> Doc:
    doc = Doc()
    doc.heading(1, "Annual Review of Water Services")
    doc.para(paragraph(rng, 3))
    titles = ["Supply and demand", "Leakage and pressure management across the network and "
              "the districts it serves" if wrapped else "Leakage", "Water quality",
              "Customers and billing", "Resilience and security", "People"]
    for c in range(1, chapters + 1):
        doc.heading(2, f"{c} {titles[(c - 1) % len(titles)]}")
        doc.para(paragraph(rng, rng.randint(3, 6)))
        for s in range(1, 3):
            doc.heading(3, f"{c}.{s} {['Findings', 'Actions', 'Outlook'][s % 3]} for "
                           f"{titles[(c - 1) % len(titles)].split(' ')[0].lower()}")
            for _ in range(rng.randint(1, 3)):
                doc.para(paragraph(rng, rng.randint(3, 7)))
    return doc


def _fpdf(unicode_font: bool = False):  # noqa: ANN202
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(True, margin=22)
    if unicode_font:
        pdf.add_font("Sans", "", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
        pdf.add_font("Sans", "B", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
    return pdf


def _columns(pdf: Any, doc: Doc, count: int, gutter: float,
             font: tuple[str, float, float, float], heading_space: float) -> None:
    """``doc`` after its title in ``count`` justified columns; ``font``: the family, the sizes
    of level-2 and deeper headings, and of the text."""
    family, level_two, deeper, body = font
    with pdf.text_columns(ncols=count, gutter=gutter, text_align="J") as cols:
        for kind, payload in doc.parts[1:]:
            if kind == "h":
                level, text = payload  # type: ignore[misc]
                with cols.paragraph(text_align="L", top_margin=heading_space,
                                    bottom_margin=1) as par:
                    pdf.set_font(family, "B", level_two if level == 2 else deeper)
                    par.write(text)
            else:
                with cols.paragraph(bottom_margin=2) as par:
                    pdf.set_font(family, "", body)
                    par.write(str(payload))


def two_column(rng: random.Random) -> tuple[bytes, Doc]:
    from fpdf import FPDF

    doc = outline(rng, 4)

    class Report(FPDF):
        def header(self) -> None:
            self.set_font("Times", "I", 8)
            self.cell(0, 5, "Annual Review of Water Services - Northern Region", align="L")
            self.ln(8)

        def footer(self) -> None:
            self.set_y(-14)
            self.set_font("Times", "", 8)
            self.cell(0, 5, f"Page {self.page_no()}", align="C")

    pdf = Report(format="A4")
    pdf.set_auto_page_break(True, margin=22)
    pdf.add_page()
    title = doc.parts[0][1][1]  # type: ignore[index]
    pdf.set_font("Times", "B", 18)
    pdf.multi_cell(0, 9, title, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    _columns(pdf, doc, 2, 8, ("Times", 12, 10.5, 10), 3)
    return bytes(pdf.output()), doc


def fake_bold(rng: random.Random) -> tuple[bytes, Doc]:
    doc = outline(rng, 3, wrapped=False)
    rows = [["District", "Night flow (l/s)", "Leaks repaired", "Change"],
            ["Ashford", "41.2", "118", "-6%"], ["Dene", "17.9", "52", "-2%"],
            ["Marlow", "33.4", "97", "+1%"], ["Northvale", "25.0", "71", "-9%"]]
    caption = "Table 1: Night flows and repairs by district"
    doc.parts.insert(4, ("t", (rows, caption)))
    bullets = ["Pressure reduced at night in six districts",
               "Acoustic loggers moved every fortnight", "Customer leak reports answered in a day"]
    for i, b in enumerate(bullets):
        doc.parts.insert(5 + i, ("li", b))
    pdf = _fpdf()
    pdf.add_page()
    for kind, payload in doc.parts:
        if kind == "h":
            level, text = payload  # type: ignore[misc]
            size = {1: 17, 2: 13, 3: 11}[level]
            pdf.ln(3)
            pdf.set_font("Helvetica", "", size)
            x, y = pdf.get_x(), pdf.get_y()
            pdf.multi_cell(0, size * 0.5, text, new_x="LMARGIN", new_y="NEXT")
            after = pdf.get_y()
            pdf.set_xy(x + 0.12, y)  # the same words again, 0.35 pt to the right: fake bold
            pdf.multi_cell(0, size * 0.5, text, new_x="LMARGIN", new_y="NEXT")
            pdf.set_y(after + 1)
        elif kind == "t":
            rows, caption = payload  # type: ignore[misc]
            pdf.set_font("Helvetica", "", 10)
            pdf.multi_cell(0, 5, caption, new_x="LMARGIN", new_y="NEXT")
            with pdf.table(col_widths=(40, 40, 40, 30)) as table:
                for values in rows:
                    row = table.row()
                    for value in values:
                        row.cell(value)
            pdf.ln(3)
        elif kind == "li":
            pdf.set_font("Helvetica", "", 10)
            pdf.multi_cell(0, 5, f"- {payload}", new_x="LMARGIN", new_y="NEXT")
        else:
            pdf.set_font("Helvetica", "", 10)
            pdf.multi_cell(0, 5, str(payload), align="J", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    return bytes(pdf.output()), doc


def no_unicode_map(rng: random.Random) -> tuple[bytes, Doc]:
    from fpdf import FPDF

    doc = outline(rng, 3, wrapped=False)

    class Report(FPDF):
        def footer(self) -> None:
            self.set_y(-14)
            self.set_font("Sans", "", 8)
            self.cell(0, 5, f"Northern Water - annual review - {self.page_no()}", align="R")

    pdf = Report(format="A4")
    pdf.add_font("Sans", "", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    pdf.add_font("Sans", "B", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
    pdf.set_compression(False)
    pdf.add_page()
    for kind, payload in doc.parts:
        if kind == "h":
            level, text = payload  # type: ignore[misc]
            pdf.set_font("Sans", "B", {1: 16, 2: 12, 3: 10.5}[level])
            pdf.ln(2)
            pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        else:
            pdf.set_font("Sans", "", 9.5)
            pdf.multi_cell(0, 5, str(payload), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    data = bytes(pdf.output())
    # same length, so the cross-reference offsets stay right: no font has a Unicode map now
    return strip_unicode_maps(data), doc


def strip_unicode_maps(data: bytes) -> bytes:
    """The PDF with no font's ToUnicode map (same length, so cross-references stay right)."""
    return data.replace(b"/ToUnicode", b"/ToUnicodX")


LIGATURE_CODES = {"ffi": 0xFB03, "ffl": 0xFB04, "fi": 0xFB01, "fl": 0xFB02}


def _glyph_runs(text: str, cmap: dict[int, str]) -> list[str]:
    """The glyph names that draw ``text``, ligatures where the font has them."""
    names, i = [], 0
    while i < len(text):
        for letters, code in LIGATURE_CODES.items():
            if text.startswith(letters, i) and code in cmap:
                names.append(cmap[code])
                i += len(letters)
                break
        else:
            names.append(cmap[ord(text[i])])
            i += 1
    return names


def print_driver(rng: random.Random) -> tuple[bytes, Doc]:
    """A PDF written the way some print drivers write one (see the module docstring)."""
    import io

    from fontTools import subset
    from fontTools.ttLib import TTFont

    doc = outline(rng, 2, wrapped=False)
    for i, b in enumerate(["• Fifty offices refitted in the first quarter",
                           "▪ Staff briefed on the new filing flow"]):
        doc.parts.insert(3 + i, ("li", b))
    path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    font = TTFont(path)
    cmap = font.getBestCmap()
    runs: list[tuple[float, list[str]]] = []  # (font size, glyph names) per line
    widths = font["hmtx"].metrics
    scale = 1000 / font["head"].unitsPerEm

    def lines(text: str, size: float) -> None:
        line: list[str] = []
        width = 0.0
        for word in text.split(" "):
            names = _glyph_runs(word, cmap)
            advance = sum(widths[n][0] for n in names) * scale * size / 1000
            space = widths[cmap[32]][0] * scale * size / 1000
            if line and width + space + advance > 480:
                runs.append((size, line))
                line, width = [], 0.0
            if line:
                line.append(cmap[32])
                width += space
            line += names
            width += advance
        runs.append((size, line))

    for kind, payload in doc.parts:
        if kind == "h":
            level, text = payload  # type: ignore[misc]
            lines(text, {1: 16.0, 2: 13.0, 3: 11.0}[level])
        else:
            lines(str(payload), 10.0)
        runs.append((0.0, []))  # paragraph gap
    doc.parts = [(k, p.split(" ", 1)[1] if k == "li" else p) for k, p in doc.parts]
    used = sorted({n for _, names in runs for n in names} | {".notdef"})
    options = subset.Options()
    options.glyph_names, options.retain_gids, options.notdef_outline = True, True, True
    options.layout_features = []
    subsetter = subset.Subsetter(options)
    subsetter.populate(glyphs=used)
    subsetter.subset(font)
    del font["cmap"]  # the driver kept glyph names but no character map
    program = io.BytesIO()
    font.save(program)
    order = {name: gid for gid, name in enumerate(font.getGlyphOrder())}
    content = ["BT"]
    y = 800.0
    for size, names in runs:
        y -= size * 1.4 if names else 6
        if names:
            hexes = "".join(f"{order[n]:04X}" for n in names)
            content.append(f"/F1 {size} Tf 1 0 0 1 56 {y:.2f} Tm <{hexes}> Tj")
    content.append("ET")
    widths_array = " ".join(f"{order[n]} [{round(widths[n][0] * scale)}]" for n in used)
    stream = "\n".join(content).encode()
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Resources<</Font<</F1 5 0 R>>>>"
        b"/Contents 4 0 R>>",
        b"<</Length %d>>stream\n" % len(stream) + stream + b"\nendstream",
        b"<</Type/Font/Subtype/Type0/BaseFont/PRNDRV+DejaVuSans/Encoding/Identity-H"
        b"/DescendantFonts[6 0 R]>>",
        b"<</Type/Font/Subtype/CIDFontType2/BaseFont/PRNDRV+DejaVuSans/CIDSystemInfo"
        b"<</Registry(Adobe)/Ordering(Identity)/Supplement 0>>/FontDescriptor 7 0 R"
        b"/CIDToGIDMap/Identity/W[" + widths_array.encode() + b"]>>",
        b"<</Type/FontDescriptor/FontName/PRNDRV+DejaVuSans/Flags 4/FontBBox[-1021 -463 1793 "
        b"1232]/ItalicAngle 0/Ascent 928/Descent -236/CapHeight 729/StemV 80/FontFile2 8 0 R>>",
        b"<</Length %d/Length1 %d>>stream\n" % (len(program.getvalue()), len(program.getvalue()))
        + program.getvalue() + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out), doc


def three_column(rng: random.Random) -> tuple[bytes, Doc]:
    doc = outline(rng, 3, wrapped=False)
    pdf = _fpdf()
    pdf.add_page(orientation="L")
    pdf.set_font("Helvetica", "B", 20)
    pdf.cell(0, 12, str(doc.parts[0][1][1]), align="C", new_x="LMARGIN", new_y="NEXT")  # type: ignore[index]
    pdf.ln(3)
    _columns(pdf, doc, 3, 7, ("Helvetica", 11, 10, 9), 2)
    return bytes(pdf.output()), doc

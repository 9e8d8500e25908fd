"""Text for glyphs whose font has no Unicode map, read from the font itself.

A PDF font may come without a ToUnicode map (common for Type0 fonts with the Identity-H
encoding, as some print drivers and browsers write them): pdfium then knows a glyph only by its
character code. The code leads to a glyph of the embedded font program (Type0: the code is the
CID, and the CIDToGIDMap gives the glyph; simple TrueType fonts: the font's (3,0) or (1,0)
cmap), and the glyph's text is found, in this order, in:

1. the font program's own Unicode cmap, reversed (glyph to the code point that selects it);
2. its glyph names (``post`` table: ``uni0041``, ``f_i``, Adobe Glyph List names);
3. its ligature substitutions (``GSUB``): a ligature glyph is the text of the glyphs it joins,
   so "ﬁ" drawn from a font whose cmap does not list it still reads "fi"

(the font program itself is read in :mod:`.sfnt`). The font's PDF objects are
read with pdfminer's object parser (never the page content), and only for fonts that need it.
A glyph none of these name is left unmapped, for the caller to count.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from core.documents.pdf.drawing import MAX_FORM_DEPTH
from core.documents.pdf.sfnt import FontProgram


def _resolve(obj: Any) -> Any:
    from pdfminer.pdftypes import resolve1

    return resolve1(obj)


def _name(value: Any) -> str:
    value = getattr(value, "name", value)
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


@dataclass
class _PdfFont:
    """A PDF font dictionary, understood enough to reach glyphs from character codes."""

    program: FontProgram | None
    cid_keyed: bool
    cid_to_gid: bytes | None  # a CIDToGIDMap stream, None for Identity
    unmapped: bool = False  # no ToUnicode map nor encoding: pdfium's guesses are not trusted

    def text(self, code: int) -> str | None:
        if self.program is None:
            return None
        if self.cid_keyed:
            gid: int | None = code
            if self.cid_to_gid is not None:
                pair = self.cid_to_gid[2 * code : 2 * code + 2]
                gid = int.from_bytes(pair, "big") if len(pair) == 2 else None
        else:
            gid = self.program.glyph_for_code(code)
        return self.program.text(gid) if gid else None

    @classmethod
    def read(cls, font: dict[str, Any]) -> _PdfFont:
        found = cls._read(font)
        # a simple font with an encoding is read right by pdfium through its glyph names
        found.unmapped = (found.program is not None and font.get("ToUnicode") is None
                          and (found.cid_keyed or font.get("Encoding") is None))
        return found

    @classmethod
    def _read(cls, font: dict[str, Any]) -> _PdfFont:
        cid_keyed = _name(font.get("Subtype")) == "Type0"
        cid_to_gid = None
        if cid_keyed:
            if not _name(font.get("Encoding")).startswith("Identity"):
                return cls(None, True, None)  # other CMaps pdfium reads itself
            font = _resolve((_resolve(font.get("DescendantFonts")) or [{}])[0]) or {}
            mapping = _resolve(font.get("CIDToGIDMap"))
            if mapping is not None and hasattr(mapping, "get_data"):
                cid_to_gid = mapping.get_data()
        descriptor = _resolve(font.get("FontDescriptor")) or {}
        program = None
        for key in ("FontFile2", "FontFile3"):
            stream = _resolve(descriptor.get(key))
            if stream is not None and hasattr(stream, "get_data"):
                data = stream.get_data()
                if data[:4] in (b"\x00\x01\x00\x00", b"true", b"OTTO"):
                    program = FontProgram.parse(data)
                break
        return cls(program, cid_keyed, cid_to_gid)


def bare(font_name: str) -> str:
    """A font's name without its subset tag ("ABCDEF+")."""
    return font_name.split("+", 1)[-1]


def _glyph_codes(page: Any) -> dict[tuple[str, int, int], int]:
    """The character code of every glyph on a page, keyed by its font (bare name) and its
    origin in PDF user space (to half a point): pdfminer reads the page's content."""
    from pdfminer.pdfdevice import PDFTextDevice
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager

    codes: dict[tuple[str, int, int], int] = {}

    class Recorder(PDFTextDevice):
        def render_char(self, matrix: Any, font: Any, fontsize: float, scaling: float,
                        rise: float, cid: int, ncs: Any, graphicstate: Any) -> float:
            key = (bare(str(font.fontname)), round(matrix[4] * 2), round(matrix[5] * 2))
            codes.setdefault(key, cid)
            return float(font.char_width(cid) * fontsize * scaling)

    manager = PDFResourceManager(caching=True)
    device = Recorder(manager)
    PDFPageInterpreter(manager, device).render_contents(page.resources, page.contents)
    return codes


class GlyphTexts:
    """Text for the glyphs of a PDF whose fonts have no Unicode map; the PDF's fonts are read
    once, on the first question."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._pages: list[Any] | None = None
        self._fonts: dict[tuple[int, str], _PdfFont | None] = {}
        self._texts: dict[tuple[int, str, int], str | None] = {}
        self._codes: dict[int, dict[tuple[str, int, int], int]] = {}

    def unmapped_font(self, page: int, font_name: str) -> bool:
        """Whether the font has no ToUnicode map but a program whose glyphs can be read: then
        pdfium's text for its glyphs is a guess, and :meth:`code_at` tells the real codes."""
        font = self._font(page, font_name)
        return font is not None and font.unmapped

    def take_codes(self, page: int, chars: list[dict[str, Any]]) -> None:
        """Characters (see :mod:`.reader`) of fonts without a Unicode map lose the text pdfium
        guessed for them and get their character codes instead, to be read from the font like
        the glyphs pdfium reported unmapped. The letters pdfium split one glyph into (a
        ligature) become that one glyph again."""
        # a font without a map shows itself by at least one glyph pdfium could not map
        flagged = {c["fontname"] for c in chars if c["text"] is None}
        suspect = {n for n in flagged if self.unmapped_font(page, n)}
        if not suspect:
            return
        kept: list[dict[str, Any]] = []
        for char in chars:
            if char["fontname"] in suspect and char["text"] not in (None, " "):
                if (kept and kept[-1]["fontname"] == char["fontname"]
                        and kept[-1]["origin"] == char["origin"]):
                    kept[-1]["x1"] = max(kept[-1]["x1"], char["x1"])
                    continue  # a later piece of the glyph just taken
                code = self.code_at(page, char["fontname"], *char["origin"])
                if code is not None:  # pdfium's guess stays the last resort
                    char = {**char, "text": None, "code": code, "guess": char["text"]}
            kept.append(char)
        chars[:] = kept

    def code_at(self, page: int, font_name: str, x: float, y: float) -> int | None:
        """The character code of the glyph of ``font_name`` drawn at (x, y) (PDF user space)."""
        if page not in self._codes:
            self._page_fonts(page)  # opens the document
            try:
                self._codes[page] = _glyph_codes(self._pages[page - 1]) if self._pages else {}
            except Exception:  # pdfminer cannot read this page: pdfium's guesses stay
                self._codes[page] = {}
        codes, name = self._codes[page], bare(font_name)
        x2, y2 = round(x * 2), round(y * 2)
        return next((codes[k] for dx in (0, -1, 1) for dy in (0, -1, 1)
                     if (k := (name, x2 + dx, y2 + dy)) in codes), None)

    def _page_fonts(self, number: int) -> dict[str, Any]:
        from pdfminer.pdfdocument import PDFDocument
        from pdfminer.pdfpage import PDFPage
        from pdfminer.pdfparser import PDFParser

        if self._pages is None:
            try:
                document = PDFDocument(PDFParser(io.BytesIO(self.data)))
                self._pages = list(PDFPage.create_pages(document))
            except Exception:  # pdfminer cannot parse it: those glyphs stay unmapped
                self._pages = []
        if number > len(self._pages):
            return {}
        fonts: dict[str, Any] = {}

        def gather(resources: Any, depth: int) -> None:
            resources = _resolve(resources) or {}
            for value in (_resolve(resources.get("Font")) or {}).values():
                font = _resolve(value)
                if isinstance(font, dict) and "BaseFont" in font:
                    fonts.setdefault(_name(font["BaseFont"]), font)
            if depth < MAX_FORM_DEPTH:
                for value in (_resolve(resources.get("XObject")) or {}).values():
                    form = _resolve(value)
                    attrs = getattr(form, "attrs", None)
                    if attrs is not None and _name(attrs.get("Subtype")) == "Form":
                        gather(attrs.get("Resources"), depth + 1)

        gather(self._pages[number - 1].resources, 0)
        return fonts

    def _font(self, page: int, name: str) -> _PdfFont | None:
        key = (page, name)
        if key not in self._fonts:
            fonts = self._page_fonts(page)
            font = fonts.get(name)
            if font is None:  # the same font under another subset tag
                font = next((f for n, f in fonts.items() if bare(n) == bare(name)), None)
            try:
                self._fonts[key] = _PdfFont.read(font) if font is not None else None
            except Exception:  # a damaged font dictionary: its glyphs stay unmapped
                self._fonts[key] = None
        return self._fonts[key]

    def forget(self, page: int) -> None:
        """What was read for ``page`` dropped: it is done (a long PDF's memory stays bounded)."""
        self._codes.pop(page, None)
        for font in [k for k in self._fonts if k[0] == page]:
            del self._fonts[font]
        for glyph in [k for k in self._texts if k[0] == page]:
            del self._texts[glyph]

    def text(self, page: int, font_name: str, code: int) -> str | None:
        """The text of the glyph with ``code`` in the font named ``font_name`` on ``page``."""
        key = (page, font_name, code)
        if key not in self._texts:
            font = self._font(page, font_name)
            self._texts[key] = font.text(code) if font is not None else None
        return self._texts[key]

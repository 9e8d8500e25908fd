"""Text for glyphs whose font has no Unicode map, read from the font itself.

A PDF font may come without a ToUnicode map (common for Type0 fonts with the Identity-H
encoding, as some print drivers and browsers write them): pdfium then knows a glyph only by its
character code. The code leads to a glyph of the embedded font program (Type0: the code is the
CID, and the CIDToGIDMap gives the glyph; simple TrueType fonts: the font's (3,0) or (1,0)
cmap), and the glyph's text is found, in this order, in:

1. the font program's own Unicode cmap, reversed (glyph to the code point that selects it);
2. its glyph names (``post`` table: ``uni0041``, ``f_i``, Adobe Glyph List names);
3. its ligature substitutions (``GSUB``): a ligature glyph is the text of the glyphs it joins,
   so "ﬁ" drawn from a font whose cmap does not list it still reads "fi".

Ligature code points (U+FB00..U+FB06) are written as their letters. The font's PDF objects are
read with pdfminer's object parser (never the page content), and only for fonts that need it.
A glyph none of these name is left unmapped, for the caller to count.
"""

from __future__ import annotations

import io
import struct
import unicodedata
from dataclasses import dataclass, field
from typing import Any

MAX_CMAP_CODES = 200_000  # a cmap maps at most this many codes (a broken one is cut short)
MAX_FORM_DEPTH = 4  # fonts of forms inside forms: deeper nesting is not searched
LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
MAC_GLYPH_NAMES = (
    ".notdef .null nonmarkingreturn space exclam quotedbl numbersign dollar percent ampersand "
    "quotesingle parenleft parenright asterisk plus comma hyphen period slash zero one two "
    "three four five six seven eight nine colon semicolon less equal greater question at A B C "
    "D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright "
    "asciicircum underscore grave a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft "
    "bar braceright asciitilde Adieresis Aring Ccedilla Eacute Ntilde Odieresis Udieresis "
    "aacute agrave acircumflex adieresis atilde aring ccedilla eacute egrave ecircumflex "
    "edieresis iacute igrave icircumflex idieresis ntilde oacute ograve ocircumflex odieresis "
    "otilde uacute ugrave ucircumflex udieresis dagger degree cent sterling section bullet "
    "paragraph germandbls registered copyright trademark acute dieresis notequal AE Oslash "
    "infinity plusminus lessequal greaterequal yen mu partialdiff summation product pi "
    "integral ordfeminine ordmasculine Omega ae oslash questiondown exclamdown logicalnot "
    "radical florin approxequal Delta guillemotleft guillemotright ellipsis nonbreakingspace "
    "Agrave Atilde Otilde OE oe endash emdash quotedblleft quotedblright quoteleft quoteright "
    "divide lozenge ydieresis Ydieresis fraction currency guilsinglleft guilsinglright fi fl "
    "daggerdbl periodcentered quotesinglbase quotedblbase perthousand Acircumflex Ecircumflex "
    "Aacute Edieresis Egrave Iacute Icircumflex Idieresis Igrave Oacute Ocircumflex apple "
    "Ograve Uacute Ucircumflex Ugrave dotlessi circumflex tilde macron breve dotaccent ring "
    "cedilla hungarumlaut ogonek caron Lslash lslash Scaron scaron Zcaron zcaron brokenbar Eth "
    "eth Yacute yacute Thorn thorn minus multiply onesuperior twosuperior threesuperior "
    "onehalf onequarter threequarters franc Gbreve gbreve Idotaccent Scedilla scedilla Cacute "
    "cacute Ccaron ccaron dcroat").split()


def _u16(data: bytes, at: int) -> int:
    return int(struct.unpack_from(">H", data, at)[0])


def _i16(data: bytes, at: int) -> int:
    return int(struct.unpack_from(">h", data, at)[0])


def _u32(data: bytes, at: int) -> int:
    return int(struct.unpack_from(">I", data, at)[0])


def _tables(data: bytes) -> dict[str, bytes]:
    """The tables of an sfnt (TrueType or OpenType) font program, by tag."""
    if len(data) < 12:
        return {}
    tables = {}
    for i in range(_u16(data, 4)):
        record = 12 + 16 * i
        if record + 16 > len(data):
            break
        tag = data[record:record + 4].decode("latin-1")
        offset, length = _u32(data, record + 8), _u32(data, record + 12)
        tables[tag] = data[offset:offset + length]
    return tables


def _cmap_subtable(data: bytes, at: int) -> dict[int, int]:
    """Code to glyph of one cmap subtable (formats 0, 4, 6 and 12)."""
    out: dict[int, int] = {}
    fmt = _u16(data, at)
    if fmt == 0:
        for code in range(256):
            if gid := data[at + 6 + code]:
                out[code] = gid
    elif fmt == 4:
        segments = _u16(data, at + 6) // 2
        ends, starts = at + 14, at + 16 + 2 * segments
        deltas, ranges = starts + 2 * segments, starts + 4 * segments
        for s in range(segments):
            start, end = _u16(data, starts + 2 * s), _u16(data, ends + 2 * s)
            delta, range_offset = _i16(data, deltas + 2 * s), _u16(data, ranges + 2 * s)
            for code in range(start, min(end, 0xFFFE) + 1):
                if range_offset == 0:
                    gid = (code + delta) & 0xFFFF
                else:
                    where = ranges + 2 * s + range_offset + 2 * (code - start)
                    gid = _u16(data, where) if where + 2 <= len(data) else 0
                    gid = (gid + delta) & 0xFFFF if gid else 0
                if gid:
                    out[code] = gid
                if len(out) > MAX_CMAP_CODES:
                    return out
    elif fmt == 6:
        first, count = _u16(data, at + 6), _u16(data, at + 8)
        for i in range(count):
            if gid := _u16(data, at + 10 + 2 * i):
                out[first + i] = gid
    elif fmt == 12:
        for g in range(_u32(data, at + 12)):
            start, end, gid = struct.unpack_from(">III", data, at + 16 + 12 * g)
            for code in range(start, min(end, start + MAX_CMAP_CODES) + 1):
                out[code] = gid + code - start
            if len(out) > MAX_CMAP_CODES:
                return out
    return out


def _cmaps(data: bytes) -> dict[tuple[int, int], dict[int, int]]:
    """Every subtable of a cmap table, keyed by (platform, encoding)."""
    out = {}
    for i in range(_u16(data, 2)):
        platform, encoding, offset = struct.unpack_from(">HHI", data, 4 + 8 * i)
        try:
            out[(platform, encoding)] = _cmap_subtable(data, offset)
        except struct.error:
            continue  # a truncated subtable maps nothing
    return out


def _glyph_names(data: bytes) -> dict[int, str]:
    """Glyph names of a version 2 ``post`` table."""
    if len(data) < 34 or _u32(data, 0) != 0x00020000:
        return {}
    count = _u16(data, 32)
    indexes = [_u16(data, 34 + 2 * i) for i in range(count)]
    extra: list[str] = []
    at = 34 + 2 * count
    while at < len(data):
        length = data[at]
        extra.append(data[at + 1:at + 1 + length].decode("latin-1"))
        at += 1 + length
    names = {}
    for gid, index in enumerate(indexes):
        if index < len(MAC_GLYPH_NAMES):
            names[gid] = MAC_GLYPH_NAMES[index]
        elif index - len(MAC_GLYPH_NAMES) < len(extra):
            names[gid] = extra[index - len(MAC_GLYPH_NAMES)]
    return names


def _coverage(data: bytes, at: int) -> list[int]:
    fmt, count = _u16(data, at), _u16(data, at + 2)
    if fmt == 1:
        return [_u16(data, at + 4 + 2 * i) for i in range(count)]
    glyphs: list[int] = []
    for r in range(count):
        start, end, _ = struct.unpack_from(">HHH", data, at + 4 + 6 * r)
        glyphs += range(start, end + 1)
    return glyphs


def _ligatures(data: bytes) -> dict[int, list[int]]:
    """Ligature glyph to the glyphs it joins, from every ligature lookup of a GSUB table."""
    out: dict[int, list[int]] = {}
    lookups = _u16(data, 8)
    for i in range(_u16(data, lookups)):
        lookup = lookups + _u16(data, lookups + 2 + 2 * i)
        kind = _u16(data, lookup)
        for j in range(_u16(data, lookup + 4)):
            sub = lookup + _u16(data, lookup + 6 + 2 * j)
            if kind == 7:  # an extension: the real subtable is further on
                if _u16(data, sub + 2) != 4:
                    continue
                sub += _u32(data, sub + 4)
            elif kind != 4:
                continue
            firsts = _coverage(data, sub + _u16(data, sub + 2))
            for k, first in enumerate(firsts[:_u16(data, sub + 4)]):
                ligature_set = sub + _u16(data, sub + 6 + 2 * k)
                for m in range(_u16(data, ligature_set)):
                    ligature = ligature_set + _u16(data, ligature_set + 2 + 2 * m)
                    glyph, count = _u16(data, ligature), _u16(data, ligature + 2)
                    rest = [_u16(data, ligature + 4 + 2 * n) for n in range(count - 1)]
                    out.setdefault(glyph, [first, *rest])
    return out


def _name_text(name: str) -> str | None:
    """The text a glyph name stands for (``uni00410042``, ``u1F600``, ``f_f_i``, ``a.sc``,
    Adobe Glyph List names), or None."""
    from pdfminer.encodingdb import name2unicode

    base = name.split(".", 1)[0]
    if not base or base.startswith("glyph") or base in (".notdef", ".null"):
        return None
    try:
        return "".join(name2unicode(part) for part in base.split("_"))
    except (KeyError, ValueError):
        return None


@dataclass
class FontProgram:
    """What an embedded sfnt font program says about its glyphs' text."""

    cmaps: dict[tuple[int, int], dict[int, int]] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    ligatures: dict[int, list[int]] = field(default_factory=dict)
    unicode_of: dict[int, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, data: bytes) -> FontProgram:
        tables = _tables(data)
        program = cls()
        readers = (("cmap", _cmaps, "cmaps"), ("post", _glyph_names, "names"),
                   ("GSUB", _ligatures, "ligatures"))
        for tag, read, attribute in readers:
            if tag in tables:
                try:
                    setattr(program, attribute, read(tables[tag]))
                except (struct.error, IndexError):
                    pass  # a damaged table tells nothing; the others may still
        for key in ((0, 3), (0, 4), (0, 6), (3, 1), (3, 10)):  # Unicode subtables
            for code, gid in program.cmaps.get(key, {}).items():
                if not 0xE000 <= code <= 0xF8FF:  # private-use code points say nothing
                    program.unicode_of.setdefault(gid, chr(code))
        return program

    def glyph_for_code(self, code: int) -> int | None:
        """The glyph a simple (one byte) font's code selects through the symbol or Mac cmap."""
        for key, offset in (((3, 0), 0xF000), ((3, 0), 0), ((1, 0), 0)):
            if (gid := self.cmaps.get(key, {}).get(code + offset)) is not None:
                return gid
        return None

    def text(self, gid: int, depth: int = 0) -> str | None:
        found = self.unicode_of.get(gid)
        if found is None and gid in self.names:
            found = _name_text(self.names[gid])
        if found is None and depth == 0 and gid in self.ligatures:
            parts = [self.text(g, 1) for g in self.ligatures[gid]]
            found = "".join(p for p in parts if p) if all(parts) else None
        if found is None:
            return None
        return "".join(LIGATURES.get(c, c) for c in found)


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
                gid = _u16(self.cid_to_gid, 2 * code) if 2 * code + 2 <= len(
                    self.cid_to_gid) else None
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

    def text(self, page: int, font_name: str, code: int) -> str | None:
        """The text of the glyph with ``code`` in the font named ``font_name`` on ``page``."""
        key = (page, font_name, code)
        if key not in self._texts:
            font = self._font(page, font_name)
            self._texts[key] = font.text(code) if font is not None else None
        return self._texts[key]

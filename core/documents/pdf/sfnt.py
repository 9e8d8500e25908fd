"""What an embedded sfnt (TrueType / OpenType) font program says about its glyphs' text.

The font program's own Unicode cmap (reversed: glyph to the code point that selects it), its
glyph names (``post`` table: ``uni0041``, ``f_i``, Adobe Glyph List names) and its ligature
substitutions (``GSUB``: a ligature glyph is the text of the glyphs it joins). Ligature code
points (U+FB00..U+FB06) are written as their letters. Damaged tables tell nothing; the others
may still.
"""

from __future__ import annotations

import struct
import unicodedata
from dataclasses import dataclass, field

MAX_CMAP_CODES = 200_000  # a cmap maps at most this many codes (a broken one is cut short)
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

"""What an embedded sfnt (TrueType / OpenType) font program says about its glyphs' text.

The font program's own Unicode cmap (reversed: glyph to the code point that selects it), its
glyph names (``post`` table: ``uni0041``, ``f_i``, Adobe Glyph List names) and its ligature
substitutions (``GSUB``: a ligature glyph is the text of the glyphs it joins), read with
fontTools. Ligature code points (U+FB00..U+FB06) are written as their letters. Damaged tables
tell nothing; the others may still.
"""

from __future__ import annotations

import io
import logging
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fontTools.ttLib import TTFont

LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
LIGATURE_LOOKUP, EXTENSION_LOOKUP = 4, 7  # GSUB lookup types


def _gid(name: str) -> int:
    """The glyph id behind fontTools' name for it: with an empty glyph order (set in
    :func:`_open`) every glyph is named ``glyph`` and its id."""
    return int(name[5:])


def _open(data: bytes) -> TTFont | None:
    """The font program, its tables read on first use; glyphs known by their ids only (no glyph
    order from ``post`` or ``CFF ``, which would name them instead)."""
    from fontTools.ttLib import TTFont

    quiet = logging.getLogger("fontTools")  # its notes on odd fonts are not for the user's stderr
    if not quiet.handlers:
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False
    try:
        font = TTFont(io.BytesIO(data), lazy=True)
    except Exception:  # a table directory fontTools cannot read, in whatever way: no tables
        return None
    font.setGlyphOrder([])
    return font


def _cmaps(font: TTFont) -> dict[tuple[int, int], dict[int, int]]:
    """Code to glyph of every cmap subtable, keyed by (platform, encoding)."""
    return {(table.platformID, table.platEncID): {code: _gid(name)
                                                   for code, name in table.cmap.items()}
            for table in font["cmap"].tables}


def _glyph_names(font: TTFont) -> dict[int, str]:
    """Glyph names of a version 2 ``post`` table."""
    post = font["post"]
    if post.formatType != 2.0:
        return {}
    names = {gid: post.mapping.get(name, name) for gid, name in enumerate(post.glyphOrder)}
    return {gid: name for gid, name in names.items() if name}


def _ligature_subtables(font: TTFont) -> list[Any]:
    subtables = []
    for lookup in font["GSUB"].table.LookupList.Lookup:
        for subtable in lookup.SubTable:
            if lookup.LookupType == EXTENSION_LOOKUP:
                if subtable.ExtensionLookupType != LIGATURE_LOOKUP:
                    continue
                subtable = subtable.ExtSubTable
            elif lookup.LookupType != LIGATURE_LOOKUP:
                continue
            subtables.append(subtable)
    return subtables


def _ligatures(font: TTFont) -> dict[int, list[int]]:
    """Ligature glyph to the glyphs it joins, from every ligature lookup of the GSUB table."""
    out: dict[int, list[int]] = {}
    for subtable in _ligature_subtables(font):
        for first, ligatures in subtable.ligatures.items():
            for ligature in ligatures:
                out.setdefault(_gid(ligature.LigGlyph),
                               [_gid(first), *map(_gid, ligature.Component)])
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
        program = cls()
        font = _open(data)
        readers = (("cmap", _cmaps, "cmaps"), ("post", _glyph_names, "names"),
                   ("GSUB", _ligatures, "ligatures"))
        for tag, read, attribute in readers:
            if font is not None and tag in font:
                try:
                    setattr(program, attribute, read(font))
                except Exception:  # fontTools fails on a damaged table in many ways:
                    pass  # a damaged table tells nothing, the others may still
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

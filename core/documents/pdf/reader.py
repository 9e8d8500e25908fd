"""What pdfium reads from a page: every glyph as a character record, in the page's upright
display coordinates (points from the top-left corner, the page's ``/Rotate`` applied), the
coordinates pdfplumber uses, and what the page draws besides (:mod:`.drawing`).

pdfium reads a page's glyphs several times faster than pdfminer (all of a page's text in one
pass of native code), which keeps long PDFs inside the conversion worker's time limit.

Invariants of a character record (a dict, the shape pdfplumber's word extractor reads):
``x0 < x1`` and ``top < bottom`` span the glyph's advance and its font's ascent to descent;
``size`` is its font size on the page; ``fixed`` is True when its font is monospaced;
``space`` is its font's word space in font sizes (None when the font has none);
``upright`` is False for rotated text, and ``upward`` True when rotated text reads from the
bottom of the page to the top; ``origin`` is where the glyph is drawn in PDF user space;
``text`` is the Unicode text pdfium maps the glyph to, or None when the font has no map for it,
and then ``code`` is the glyph's character code in its font (for :mod:`.fonts`); ``shapes``
lists, for a right-to-left letter, the advance in points of each shape its font draws it with
and whether that shape joins the letter after it (for :func:`~.chars.seat_marks`). Generated
characters (the line breaks pdfium infers) are not records; a space it infers is a blank
record marked ``generated``: words come from the geometry.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any

from core.documents.pdf.direction import (
    combining,
    reading_first,
    right_to_left,
    shapes_of,
)
from core.documents.pdf.drawing import View, mark_doubled, page_view, read_drawing
from core.errors import ConversionError

SPACE_WIDTHS = (0.15, 0.6)  # font sizes: a word space outside these is not one (a missing glyph)
FIXED_PITCH = 1  # the font descriptor's flag for a monospaced font


def open_document(data: bytes, filename: str) -> Any:
    """The PDF opened in pdfium, or a one-sentence ConversionError a user can act on."""
    import pypdfium2
    import pypdfium2.raw as raw

    try:
        return pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as err:
        if raw.FPDF_GetLastError() == raw.FPDF_ERR_PASSWORD or "password" in str(err).lower():
            raise ConversionError(
                f"{filename} is password-protected; remove the password and upload it again."
            ) from err
        if _pages_pdfminer_finds(data) == 0:
            raise ConversionError(f"{filename} has no pages.") from err
        raise ConversionError(f"{filename} could not be read as PDF; it may be corrupt.") from err


def _pages_pdfminer_finds(data: bytes) -> int | None:
    """How many pages pdfminer's more lenient parser finds (None when it cannot read it
    either): a PDF pdfium refuses may just be an empty one."""
    import io

    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    try:
        return sum(1 for _ in PDFPage.create_pages(PDFDocument(PDFParser(io.BytesIO(data)))))
    except Exception:  # pdfminer raises many types; it could not read it
        return None


@dataclass
class PageReading:
    number: int
    width: float
    height: float
    chars: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    overprinted: int  # glyphs drawn a second time over themselves, left out of ``chars``


@dataclass(frozen=True)
class _Font:
    name: str  # the PDF's BaseFont, subset tag included
    handle: Any
    key: int  # the font's address
    descent: float  # below the baseline, in font sizes (positive)
    fixed: bool = False  # its descriptor says fixed pitch: a monospaced font, whatever its name


class _Fonts:
    """The font of each text object and the advance of each glyph, read once."""

    def __init__(self, raw: Any, textpage: Any) -> None:
        self.raw, self.textpage = raw, textpage
        self.by_object: dict[int, _Font] = {}
        self.advances: dict[tuple[int, int], float] = {}
        self.letter_shapes: dict[tuple[int, str], list[tuple[float, bool]]] = {}
        self.buffer = ctypes.create_string_buffer(256)
        # the text object of a glyph as a plain address: a cheap key to look its font up by
        prototype = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
        self._object_at = prototype(ctypes.cast(raw.FPDFText_GetTextObject, ctypes.c_void_p)
                                    .value or 0)
        self._textpage = ctypes.cast(textpage, ctypes.c_void_p)

    def font(self, index: int) -> _Font:
        key = self._object_at(self._textpage, index) or 0
        found = self.by_object.get(key)
        if found is None:
            raw = self.raw
            flags = ctypes.c_int()
            raw.FPDFText_GetFontInfo(self.textpage, index, self.buffer, len(self.buffer),
                                     ctypes.byref(flags))
            obj = raw.FPDFText_GetTextObject(self.textpage, index)
            handle = raw.FPDFTextObj_GetFont(obj) if key else None
            descent = ctypes.c_float()
            if not handle or not raw.FPDFFont_GetDescent(handle, ctypes.c_float(1.0),
                                                          ctypes.byref(descent)):
                descent.value = -0.2
            name = self.buffer.value.decode("latin-1", "replace")
            address = ctypes.cast(handle, ctypes.c_void_p).value or 0 if handle else 0
            fixed = bool(handle and raw.FPDFFont_GetFlags(handle) & FIXED_PITCH)
            found = _Font(name, handle, address, min(max(-descent.value, 0.0), 0.5), fixed)
            self.by_object[key] = found
        return found

    def space(self, font: _Font) -> float | None:
        """The font's own word space in font sizes, when it has a plausible one."""
        width = self.advance(font, 32) if font.handle else None
        return width if width is not None and SPACE_WIDTHS[0] <= width <= SPACE_WIDTHS[1] else None

    def shapes(self, font: _Font, letter: str) -> list[tuple[float, bool]]:
        """The advances, in font sizes, of the shapes (presentation forms) the font maps the
        right-to-left ``letter`` to, each with whether that shape joins the letter after it
        (an unmapped code gets the font's default width, which is not taken)."""
        key = (font.key, letter)
        if key not in self.letter_shapes:
            default = self.advance(font, 0xFFFF)
            self.letter_shapes[key] = [
                (width, joins) for shape, joins in shapes_of(letter)
                if (width := self.advance(font, ord(shape))) is not None and width != default]
        return self.letter_shapes[key]

    def advance(self, font: _Font, code: int) -> float | None:
        """The glyph's advance in font sizes, from the font's widths (None when unknown)."""
        key = (font.key, code)
        value = self.advances.get(key)
        if value is None:
            width = ctypes.c_float()
            ok = font.handle and self.raw.FPDFFont_GetGlyphWidth(
                font.handle, code, ctypes.c_float(1.0), ctypes.byref(width))
            value = self.advances[key] = width.value if ok and width.value > 0 else -1.0
        return value if value > 0 else None


def read_chars(page: Any, view: View) -> list[dict[str, Any]]:
    """The page's glyphs in drawing order, as character records. A space pdfium infers
    between words (or puts in place of a drawn space) is a blank record marked ``generated``
    right after the glyph before it: it separates words, and where the gap is too narrow for
    a word space the words are joined again (:func:`~.layout.rejoin_spaced`)."""
    import pypdfium2.raw as raw

    textpage = page.get_textpage()
    out: list[dict[str, Any]] = []
    rect, matrix = raw.FS_RECTF(), raw.FS_MATRIX()
    x, y = ctypes.c_double(), ctypes.c_double()
    rect_ref, matrix_ref, x_ref, y_ref = (ctypes.byref(v) for v in (rect, matrix, x, y))
    get_unicode, is_generated = raw.FPDFText_GetUnicode, raw.FPDFText_IsGenerated
    map_error, loose_box = raw.FPDFText_HasUnicodeMapError, raw.FPDFText_GetLooseCharBox
    get_matrix, font_size = raw.FPDFText_GetMatrix, raw.FPDFText_GetFontSize
    get_origin = raw.FPDFText_GetCharOrigin
    last_origin: tuple[float, float] | None = None
    group_start = 0  # where the glyph the last record belongs to starts in ``out``
    try:
        tp = textpage.raw
        fonts = _Fonts(raw, tp)
        for i in range(raw.FPDFText_CountChars(tp)):
            code = get_unicode(tp, i)
            if code in (32, 10, 13) and is_generated(tp, i) == 1:
                if code == 32 and out and out[-1]["text"] != " ":
                    last = out[-1]
                    out.append({**last, "text": " ", "code": None, "x0": last["x1"],
                                "generated": True})
                continue
            unmapped = map_error(tp, i) == 1
            if code == 2 and not unmapped:
                code = 0x2D  # pdfium's mark for a hyphen that ends a line
            elif not unmapped and (code < 32 or code in (0xFFFE, 0xFFFF)):
                continue  # control characters and pdfium's own markers
            get_matrix(tp, i, matrix_ref)
            get_origin(tp, i, x_ref, y_ref)
            origin = (x.value, y.value)
            dx, dy = view.direction(matrix.a, matrix.b)
            upright = dx > 0 and abs(dy) <= 0.1 * dx
            font = fonts.font(i)
            if upright:
                # pdfminer's box: the advance across, one font size high from the descent up
                points = font_size(tp, i)
                size = points * math.hypot(matrix.c, matrix.d)
                x0, baseline = view.point(*origin)
                bottom = baseline + font.descent * size
                top = bottom - size
                # pdfium finds an advance through the font's code for the letter: a shaped
                # script draws one letter with several glyphs (Arabic initial, medial, final
                # forms), so there the glyph's own box is read instead
                advance = (None if unmapped or right_to_left(chr(code))
                           else fonts.advance(font, code))
                mark = not unmapped and combining(chr(code))
                # a right-to-left letter's shapes, advances in points
                em = points * math.hypot(matrix.a, matrix.b)
                shapes = ([(width * em, joins) for width, joins in fonts.shapes(font, chr(code))]
                          if not unmapped and right_to_left(chr(code)) else [])
                group = [m for m in out[group_start:] if not combining(m["text"] or "")
                         ] if origin == last_origin else []
                if mark:
                    # seated on its letter later (:func:`~.chars.seat_marks`)
                    if not group:
                        group_start = len(out)
                    loose_box(tp, i, rect_ref)
                    x1 = view.box(rect.left, rect.bottom, rect.right, rect.top)[2]
                elif group:
                    # one glyph, several letters (a ligature "ffi"): its box shared out evenly,
                    # from the right when the letters are right-to-left and given in reading
                    # order (a lam-alef "لا")
                    loose_box(tp, i, rect_ref)
                    box_x0, _, box_x1, _ = view.box(rect.left, rect.bottom, rect.right, rect.top)
                    left, right = group[0]["x0"], max(box_x1, box_x0, group[0]["x1"])
                    step = (right - left) / (len(group) + 1)
                    slots = [(left + k * step, left + (k + 1) * step)
                             for k in range(len(group) + 1)]
                    if not unmapped and right_to_left(chr(code)) and reading_first(
                            "".join(m["text"] or "" for m in group) + chr(code)):
                        slots.reverse()
                    for member, (a, b) in zip(group, slots, strict=False):
                        member["x0"], member["x1"], member["shapes"] = a, b, []
                    shapes = []  # a share of a ligature's box tells no letter's shape
                    x0, x1 = slots[-1]
                else:
                    group_start = len(out)
                    if advance is not None:
                        x1 = x0 + advance * points * math.hypot(matrix.a, matrix.b)
                    else:
                        loose_box(tp, i, rect_ref)
                        x1 = view.box(rect.left, rect.bottom, rect.right, rect.top)[2]
                last_origin = origin
            else:
                loose_box(tp, i, rect_ref)
                x0, top, x1, bottom = view.box(rect.left, rect.bottom, rect.right, rect.top)
                size = x1 - x0 if abs(dx) < abs(dy) else bottom - top
                shapes = []
            if size <= 0 or x1 <= x0:
                continue  # a glyph with no extent is not text
            out.append({
                "shapes": shapes,
                "text": None if unmapped else chr(code),
                "code": code if unmapped else None,
                "fontname": font.name, "fixed": font.fixed, "space": fonts.space(font),
                "x0": x0, "x1": x1, "top": top, "bottom": bottom, "doctop": top,
                "size": size, "upright": upright, "upward": not upright and dy < 0,
                "origin": origin,
            })
    finally:
        textpage.close()
    return out


def read_page(page: Any, number: int) -> PageReading:
    view = page_view(page)
    chars = read_chars(page, view)
    drawing = read_drawing(page, view)
    overprinted = mark_doubled(chars, drawing)
    return PageReading(number, view.width, view.height, chars, drawing.edges, overprinted)

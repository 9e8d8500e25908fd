"""What pdfium reads from a page: every glyph as a character record and every drawn rule or
filled box as a table edge, in the page's upright display coordinates (points from the top-left
corner, the page's ``/Rotate`` applied), the coordinates pdfplumber uses.

pdfium reads a page's glyphs several times faster than pdfminer (all of a page's text in one
pass of native code), which keeps long PDFs inside the conversion worker's time limit.

Invariants of a character record (a dict, the shape pdfplumber's word extractor reads):
``x0 < x1`` and ``top < bottom`` span the glyph's advance and its font's ascent to descent;
``size`` is its font size on the page; ``fixed`` is True when its font is monospaced;
``space`` is its font's word space in font sizes (None when the font has none);
``upright`` is False for rotated text, and ``upward`` True when rotated text reads from the
bottom of the page to the top; ``origin`` is where the glyph is drawn in PDF user space;
``text`` is the Unicode text pdfium maps the glyph to, or None when the font has no map for it,
and then ``code`` is the glyph's character code in its font (for :mod:`.fonts`). Generated
characters (the line breaks pdfium infers) are not records; a space it infers is a blank
record marked ``generated``: words come from the geometry.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any

from core.documents.pdf.direction import reading_first, right_to_left
from core.errors import ConversionError

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
SPACE_WIDTHS = (0.15, 0.6)  # font sizes: a word space outside these is not one (a missing glyph)
FIXED_PITCH = 1  # the font descriptor's flag for a monospaced font
MAX_FORM_DEPTH = 8  # forms inside forms: deeper nesting is neither read nor searched for fonts


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


def _multiply(m: Matrix, n: Matrix) -> Matrix:
    """``m`` then ``n``."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s, e * p + f * r + t,
            e * q + f * s + u)


@dataclass(frozen=True)
class _View:
    """From PDF user space to the upright page a reader sees."""

    left: float
    bottom: float
    right: float
    top: float
    rotation: int  # 0, 90, 180, 270 (clockwise)

    @property
    def width(self) -> float:
        return self.top - self.bottom if self.rotation in (90, 270) else self.right - self.left

    @property
    def height(self) -> float:
        return self.right - self.left if self.rotation in (90, 270) else self.top - self.bottom

    def point(self, x: float, y: float) -> tuple[float, float]:
        """(x from the left edge, distance from the top edge) of a user-space point."""
        if self.rotation == 90:
            return y - self.bottom, x - self.left
        if self.rotation == 180:
            return self.right - x, y - self.bottom
        if self.rotation == 270:
            return self.top - y, self.right - x
        return x - self.left, self.top - y

    def box(self, x0: float, y0: float, x1: float, y1: float
            ) -> tuple[float, float, float, float]:
        """(x0, top, x1, bottom) of a user-space rectangle."""
        ax, ay = self.point(x0, y0)
        bx, by = self.point(x1, y1)
        return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)

    def direction(self, a: float, b: float) -> tuple[float, float]:
        """A user-space direction (a, b) as seen on the upright page (y downwards)."""
        return {90: (b, a), 180: (-a, b), 270: (-b, -a)}.get(self.rotation, (a, -b))


@dataclass
class PageReading:
    number: int
    width: float
    height: float
    chars: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    overprinted: int  # glyphs drawn a second time over themselves, left out of ``chars``


def _view(page: Any) -> _View:
    # the box pdfium draws: its crop box within its media box, inherited from the page tree
    # (``get_cropbox`` reads only the page's own entry and falls back to US Letter)
    left, bottom, right, top = page.get_bbox()
    return _View(left, bottom, right, top, page.get_rotation() % 360)


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


def read_chars(page: Any, view: _View) -> list[dict[str, Any]]:
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
                group = out[group_start:] if origin == last_origin else []
                if group:
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
                        member["x0"], member["x1"] = a, b
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
            if size <= 0 or x1 <= x0:
                continue  # a glyph with no extent is not text
            out.append({
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


def _edge(x0: float, top: float, x1: float, bottom: float, kind: str) -> dict[str, Any]:
    return {"object_type": kind, "x0": x0, "x1": x1, "top": top, "bottom": bottom,
            "doctop": top, "width": x1 - x0, "height": bottom - top,
            "orientation": "v" if x0 == x1 else ("h" if top == bottom else None)}


def _subpath_edges(points: list[tuple[float, float]]) -> list[dict[str, Any]]:
    """A rectangle's four sides, or each straight stretch between consecutive points."""
    corners = points[:-1] if len(points) == 5 and points[0] == points[-1] else points
    xs, ys = {round(x, 3) for x, _ in corners}, {round(y, 3) for _, y in corners}
    if len(corners) == 4 and len(xs) <= 2 and len(ys) <= 2:
        x0, x1 = min(x for x, _ in corners), max(x for x, _ in corners)
        top, bottom = min(y for _, y in corners), max(y for _, y in corners)
        return [_edge(x0, top, x1, top, "rect_edge"), _edge(x0, bottom, x1, bottom, "rect_edge"),
                _edge(x0, top, x0, bottom, "rect_edge"), _edge(x1, top, x1, bottom, "rect_edge")]
    edges = []
    for (ax, ay), (bx, by) in zip(points, points[1:], strict=False):
        edges.append(_edge(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), "curve_edge"))
    return edges


def _path_edges(raw: Any, obj: Any, to_page: Matrix, view: _View) -> list[dict[str, Any]]:
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    if not raw.FPDFPath_GetDrawMode(obj, ctypes.byref(fill), ctypes.byref(stroke)) or (
            not fill.value and not stroke.value):
        return []  # a path neither filled nor stroked draws nothing
    a, b, c, d, e, f = to_page
    x, y = ctypes.c_float(), ctypes.c_float()
    subpaths: list[list[tuple[float, float]]] = []
    for i in range(raw.FPDFPath_CountSegments(obj)):
        segment = raw.FPDFPath_GetPathSegment(obj, i)
        raw.FPDFPathSegment_GetPoint(segment, ctypes.byref(x), ctypes.byref(y))
        point = view.point(a * x.value + c * y.value + e, b * x.value + d * y.value + f)
        if raw.FPDFPathSegment_GetType(segment) == raw.FPDF_SEGMENT_MOVETO or not subpaths:
            subpaths.append([point])
        else:
            subpaths[-1].append(point)
        if raw.FPDFPathSegment_GetClose(segment) and subpaths[-1][0] != point:
            subpaths[-1].append(subpaths[-1][0])
    return [edge for points in subpaths if len(points) > 1 for edge in _subpath_edges(points)]


def _matrix(raw: Any, obj: Any) -> Matrix:
    m = raw.FS_MATRIX()
    if not raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
        return IDENTITY
    return (m.a, m.b, m.c, m.d, m.e, m.f)


Box = tuple[float, float, float, float]  # x0, top, x1, bottom on the upright page


def _bounds(raw: Any, obj: Any, outer: Matrix, view: _View) -> Box:
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    raw.FPDFPageObj_GetBounds(obj, *(ctypes.byref(v) for v in (left, bottom, right, top)))
    a, b, c, d, e, f = outer
    corners = [view.point(a * x + c * y + e, b * x + d * y + f)
               for x in (left.value, right.value) for y in (bottom.value, top.value)]
    return (min(p[0] for p in corners), min(p[1] for p in corners),
            max(p[0] for p in corners), max(p[1] for p in corners))


def _twin(box: Box, seen: dict[tuple[int, int], list[Box]]) -> Box | None:
    """The earlier text object of the same extent drawn at (nearly) the same spot, if any: this
    one is the second stroke of fake bold or shadow text, which pdfium leaves out of the
    page's text."""
    x0, top, x1, bottom = box
    height = max(bottom - top, 0.1)
    key = (int(x0 // 4), int(top // 4))
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for o in seen.get((key[0] + dx, key[1] + dy), ()):
                if (abs(o[0] - x0) <= 0.25 * height and abs(o[1] - top) <= 0.25 * height
                        and abs((o[2] - o[0]) - (x1 - x0)) <= 0.1 * height
                        and abs((o[3] - o[1]) - height) <= 0.1 * height):
                    return o
    seen.setdefault(key, []).append(box)
    return None


@dataclass
class _Drawing:
    edges: list[dict[str, Any]]
    doubled: list[Box]  # text drawn again over itself (the later copies)
    bolded: list[Box]  # of those, the ones drawn a little off the first: fake bold


def read_drawing(page: Any, view: _View) -> _Drawing:
    """The sides of every filled or stroked rectangle and every straight stroke on the page
    (what pdfplumber's table finder takes as cell borders), and the text drawn over itself;
    forms included."""
    import pypdfium2.raw as raw

    drawing = _Drawing([], [], [])
    seen: dict[tuple[int, int], list[Box]] = {}

    def walk(count: int, get: Any, outer: Matrix, depth: int) -> None:
        for i in range(count):
            obj = get(i)
            kind = raw.FPDFPageObj_GetType(obj)
            if kind == raw.FPDF_PAGEOBJ_PATH:
                drawing.edges.extend(
                    _path_edges(raw, obj, _multiply(_matrix(raw, obj), outer), view))
            elif kind == raw.FPDF_PAGEOBJ_TEXT:
                box = _bounds(raw, obj, outer, view)
                if (first := _twin(box, seen)) is not None:
                    drawing.doubled.append(box)
                    if max(abs(a - b) for a, b in zip(box, first, strict=True)) > 0.05:
                        drawing.bolded.append(box)
            elif kind == raw.FPDF_PAGEOBJ_FORM and depth < MAX_FORM_DEPTH:
                inner = _multiply(_matrix(raw, obj), outer)
                walk(raw.FPDFFormObj_CountObjects(obj),
                     lambda j, form=obj: raw.FPDFFormObj_GetObject(form, j), inner, depth + 1)

    walk(raw.FPDFPage_CountObjects(page.raw), lambda j: raw.FPDFPage_GetObject(page.raw, j),
         IDENTITY, 0)
    return drawing


def _inside(char: dict[str, Any], boxes: list[Box]) -> bool:
    cx, cy = (char["x0"] + char["x1"]) / 2, (char["top"] + char["bottom"]) / 2
    return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in boxes)


def _mark_doubled(chars: list[dict[str, Any]], drawing: _Drawing) -> int:
    """Marks the glyphs of fake bold text; how many glyphs were drawn twice."""
    if not drawing.doubled:
        return 0
    doubled = 0
    for char in chars:
        if char["text"] != " " and _inside(char, drawing.doubled):
            doubled += 1
            if drawing.bolded and _inside(char, drawing.bolded):
                char["fake_bold"] = True
    return doubled


def read_page(page: Any, number: int) -> PageReading:
    view = _view(page)
    chars = read_chars(page, view)
    drawing = read_drawing(page, view)
    overprinted = _mark_doubled(chars, drawing)
    return PageReading(number, view.width, view.height, chars, drawing.edges, overprinted)

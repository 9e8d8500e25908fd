"""What a page draws besides its glyphs, in the page's upright display coordinates (points
from the top-left corner, the page's ``/Rotate`` applied, the coordinates pdfplumber uses):
every drawn rule or filled box as a table edge (what pdfplumber's table finder takes as cell
borders), and text drawn a second time over itself (fake bold, shadow text), forms included.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
MAX_FORM_DEPTH = 8  # forms inside forms: deeper nesting is neither read nor searched for fonts


def _multiply(m: Matrix, n: Matrix) -> Matrix:
    """``m`` then ``n``."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s, e * p + f * r + t,
            e * q + f * s + u)


@dataclass(frozen=True)
class View:
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


def page_view(page: Any) -> View:
    # the box pdfium draws: its crop box within its media box, inherited from the page tree
    # (``get_cropbox`` reads only the page's own entry and falls back to US Letter)
    left, bottom, right, top = page.get_bbox()
    return View(left, bottom, right, top, page.get_rotation() % 360)


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


def _path_edges(raw: Any, obj: Any, to_page: Matrix, view: View) -> list[dict[str, Any]]:
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


def _bounds(raw: Any, obj: Any, outer: Matrix, view: View) -> Box:
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


def read_drawing(page: Any, view: View) -> _Drawing:
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


def mark_doubled(chars: list[dict[str, Any]], drawing: _Drawing) -> int:
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



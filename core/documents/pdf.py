"""PDF: docling's full pipeline when its layout models are on disk, else an offline route.

The offline route reads the text layer with pdfplumber: lines with their font sizes, headings
where the size is clearly above the body size (one level per distinct larger size), ruled
tables from ``page.find_tables()`` (their text is kept out of the paragraphs), page numbers on
every block. It needs no model and no network; the note it leaves tells the user so.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.documents.docling_doc import convert_with_docling
from core.documents.model import ConvertedText
from core.documents.spans import TextBuilder, rows_to_markdown
from core.errors import ConversionError

LAYOUT_MODEL_REPO = "docling-project/docling-layout-heron"
DOCLING_NOTE = "Converted with docling's full PDF pipeline (layout and table-structure models)."
OFFLINE_NOTE = (
    "Converted with the offline PDF route (pdfplumber): headings are inferred from font sizes "
    "and only ruled tables are found, because docling's PDF layout models are not installed."
)
PAGE_NUMBER = re.compile(r"^(page\s+)?\d{1,4}(\s*(of|/)\s*\d{1,4})?$", re.IGNORECASE)
BULLET = re.compile(r"^([•●▪◦‣\-–*]|\d{1,3}[.)])\s+")
HEADING_MIN_STEP = 1.0  # points above the body size before a size counts as a heading size


def docling_pdf_models_present() -> bool:
    """True when docling's PDF layout model is already on disk (never downloads)."""
    folder = LAYOUT_MODEL_REPO.replace("/", "--")
    candidates = []
    if artifacts := os.environ.get("DOCLING_ARTIFACTS_PATH"):
        candidates.append(Path(artifacts) / folder)
    hf_home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
    hub = Path(os.environ.get("HF_HUB_CACHE", hf_home / "hub"))
    candidates += [hub / f"models--{folder}" / "snapshots", Path.home() / ".cache/docling/models"
                   / folder]
    return any(p.is_dir() and any(p.iterdir()) for p in candidates)


@dataclass
class _Line:
    text: str
    size: float
    top: float
    bottom: float
    page: int


@dataclass
class _Table:
    rows: list[list[str]]
    top: float
    page: int


@dataclass
class _Pages:
    items: list[_Line | _Table] = field(default_factory=list)
    count: int = 0


def _inside(obj: dict[str, Any], bbox: tuple[float, float, float, float]) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return bbox[0] <= x <= bbox[2] and bbox[1] <= y <= bbox[3]


def _read_page(page: Any, number: int) -> list[_Line | _Table]:
    tables = page.find_tables()
    boxes = [t.bbox for t in tables]
    items: list[_Line | _Table] = [
        _Table([[" ".join((c or "").split()) for c in row] for row in t.extract()], t.bbox[1],
               number)
        for t in tables
    ]
    outside = page.filter(lambda o: "x0" not in o or not any(_inside(o, b) for b in boxes))
    margin = page.height * 0.1
    for line in outside.extract_text_lines(return_chars=True, strip=True):
        text = " ".join(line["text"].split())
        at_edge = line["top"] < margin or line["bottom"] > page.height - margin
        if not text or (at_edge and PAGE_NUMBER.match(text)):
            continue
        sizes = sorted(round(c["size"] * 2) / 2 for c in line["chars"] if c["text"].strip())
        size = sizes[len(sizes) // 2] if sizes else 0.0
        items.append(_Line(text, size, line["top"], line["bottom"], number))
    return sorted(items, key=lambda i: i.top)


def _open_pages(data: bytes, filename: str) -> _Pages:
    import pdfplumber

    pages = _Pages()
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            pages.count = len(pdf.pages)
            for number, page in enumerate(pdf.pages, start=1):
                pages.items += _read_page(page, number)
    except Exception as err:  # pdfminer raises many types; the user needs one sentence
        chain = f"{err!r} {err.__cause__!r} {err.__context__!r}".lower()
        if "password" in chain or "encrypt" in chain:
            raise ConversionError(
                f"{filename} is password-protected; remove the password and upload it again."
            ) from err
        raise ConversionError(f"{filename} could not be read as PDF; it may be corrupt.") from err
    return pages


def _heading_levels(lines: list[_Line]) -> tuple[float, dict[float, int]]:
    """Body size (the size carrying most characters) and a level per clearly larger size."""
    weight: Counter[float] = Counter()
    for line in lines:
        weight[line.size] += len(line.text)
    body = weight.most_common(1)[0][0]
    larger = sorted((s for s in weight if s >= body + HEADING_MIN_STEP), reverse=True)
    return body, {size: min(i + 1, 6) for i, size in enumerate(larger)}


def _write(pages: _Pages) -> ConvertedText:
    lines = [i for i in pages.items if isinstance(i, _Line)]
    body, levels = _heading_levels(lines) if lines else (0.0, {})
    builder = TextBuilder()
    para: list[_Line] = []  # the paragraph (or list item) being gathered
    heading: list[_Line] = []  # a heading that may run over several lines

    def flush() -> None:
        if heading:
            builder.heading(" ".join(h.text for h in heading), levels[heading[0].size],
                            heading[0].page)
            heading.clear()
        if para:
            text, page = " ".join(p.text for p in para), para[0].page
            if match := BULLET.match(para[0].text):
                builder.list_item(text[match.end():], page)
            elif not builder.trailing_caption(text, page):
                builder.paragraph(text, page)
            para.clear()

    items = pages.items
    for n, item in enumerate(items):
        if isinstance(item, _Table):
            flush()
            builder.table(rows_to_markdown(item.rows), item.rows, item.page)
            continue
        previous = items[n - 1] if n else None
        near = (isinstance(previous, _Line) and previous.page == item.page
                and item.top - previous.bottom < max(body, item.size) * 0.8)
        if item.size in levels and len(item.text) <= 150:
            if not (heading and near and heading[-1].size == item.size):
                flush()
            heading.append(item)
            continue
        if heading or not near or BULLET.match(item.text):
            flush()
        para.append(item)
    flush()
    return builder.result("pdf-offline", pages=pages.count, notes=[OFFLINE_NOTE])


def convert_pdf_offline(data: bytes, filename: str) -> ConvertedText:
    pages = _open_pages(data, filename)
    if pages.count == 0:
        raise ConversionError(f"{filename} has no pages.")
    if not pages.items:
        raise ConversionError(
            f"{filename} has no text layer (it looks like a scanned image), and OCR is not "
            "available offline."
        )
    return _write(pages)


def convert_pdf(data: bytes, filename: str) -> ConvertedText:
    if docling_pdf_models_present():
        try:
            return convert_with_docling(data, filename, "pdf").with_notes([DOCLING_NOTE])
        except ConversionError:
            pass  # the offline route below gives its own, more specific, message
    return convert_pdf_offline(data, filename)

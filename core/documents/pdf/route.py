"""The offline PDF route, step by step, and the choice between it and docling's pipeline.

1. glyphs and drawn rules of each page read with pdfium (:mod:`.reader`), glyphs without a
   Unicode map read from their fonts (:mod:`.fonts`), characters cleaned (:mod:`.chars`) and
   grouped into words;
2. ruled tables taken out of the words (:mod:`.tables`), and tables ruled only across
   (:mod:`.booktabs`);
3. running headers, footers and page numbers found across pages and taken out (:mod:`.running`);
4. each page read in column order (:mod:`.layout`), tables in place, footnotes marked
   (:mod:`.notes`);
5. unruled tables found among the lines (:mod:`.tables`);
6. lines gathered into headings, paragraphs, list items and written with exact spans
   (:mod:`.writer`, :mod:`.headings`).
"""

from __future__ import annotations

import functools
import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.documents.docling_doc import convert_with_docling
from core.documents.hygiene import Hygiene
from core.documents.model import ConvertedText, PageInfo, PdfQuality
from core.documents.pdf.booktabs import rule_framed_tables
from core.documents.pdf.chars import CharFacts, Word, clean_chars, words_of
from core.documents.pdf.direction import (
    has_right_to_left,
    presentation_forms,
    right_to_left_share,
)
from core.documents.pdf.fonts import GlyphTexts
from core.documents.pdf.layout import Line, read_page_lines
from core.documents.pdf.notes import mark_notes
from core.documents.pdf.reader import open_document, read_page
from core.documents.pdf.running import find_running, line_number_gutter
from core.documents.pdf.tables import TableBlock, ruled_tables, unruled_tables
from core.documents.pdf.writer import write
from core.errors import ConversionError
from core.progress import ProgressFn, Tracker

PAGE_BATCH = 25  # pages read or laid out between two progress reports
REOPEN_PAGES = 200  # pages read from one opening of the document: its parsed objects freed
LAYOUT_MODEL_REPO = "docling-project/docling-layout-heron"
DOCLING_NOTE = "Converted with docling's full PDF pipeline (layout and table-structure models)."
OFFLINE_NOTE = (
    "Converted with the offline PDF route (pdfium and pdfplumber): columns, headings and tables "
    "are inferred from the page layout and fonts, because docling's PDF layout models are not "
    "installed."
)


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
class _Page:
    number: int
    width: float
    height: float
    words: list[Word]
    tables: list[TableBlock]
    line_numbers: list[int]


def _glyph_text(glyphs: GlyphTexts, page: int, char: dict[str, Any]) -> str | None:
    return glyphs.text(page, char["fontname"], char["code"]) or char.get("guess")


def _cleaned(words: list[Word], hygiene: Hygiene) -> list[Word]:
    """The words with their text cleaned (:mod:`core.documents.hygiene`) as they are read, so
    the spans of the lines written from them are exact."""
    for word in words:
        word.text = hygiene.clean(word.text)
    return [w for w in words if w.text.strip()]


class _Steps:
    """Progress in pages: each page read and each page laid out is a step, reported every
    :data:`PAGE_BATCH` pages (each report starts a new time limit in the conversion worker),
    and writing the text is the last."""

    def __init__(self, progress: ProgressFn | None, pages: int) -> None:
        self.pages = pages
        self.tracker = Tracker(progress, 2 * pages + 1)

    def page(self, number: int, laid_out: bool) -> None:
        if number % PAGE_BATCH == 0 or number == self.pages:
            verb = "Laid out" if laid_out else "Read"
            self.tracker.step(number + self.pages * laid_out,
                              f"{verb} page {number:,} of {self.pages:,}")

    def writing(self) -> None:
        self.tracker.step(2 * self.pages, "Writing the text")


def _read_pages(data: bytes, filename: str, facts: CharFacts, hygiene: Hygiene,
                steps: _Steps) -> list[_Page]:
    glyphs = GlyphTexts(data)
    pages: list[_Page] = []
    document: Any = None
    try:
        for number in range(1, steps.pages + 1):
            if (number - 1) % REOPEN_PAGES == 0:
                # pdfium keeps what it parsed (fonts, images) while the document is open
                if document is not None:
                    document.close()
                document = open_document(data, filename)
            page = document[number - 1]
            try:
                reading = read_page(page, number)
            finally:
                page.close()
            facts.overprinted += reading.overprinted
            glyphs.take_codes(number, reading.chars)
            chars = clean_chars(reading.chars, functools.partial(_glyph_text, glyphs, number),
                                facts)
            line_numbers, words = line_number_gutter(_cleaned(words_of(chars), hygiene))
            tables, words = ruled_tables(reading.edges, words, number) if words else ([], words)
            framed, words = (rule_framed_tables(reading.edges, words, number) if words
                             else ([], words))
            tables += framed
            pages.append(_Page(number, reading.width, reading.height, words, tables,
                               line_numbers))
            glyphs.forget(number)
            steps.page(number, laid_out=False)
    except ConversionError:
        raise
    except Exception as err:
        raise ConversionError(f"{filename} could not be read as PDF; it may be corrupt.") from err
    finally:
        if document is not None:
            document.close()
    return pages


def _table_stand_in(index: int, table: TableBlock, size: float) -> Word:
    return Word(text="", x0=table.x0, x1=table.x1, top=table.top, bottom=table.bottom, size=size,
                bold=0.0, chars=0, table=index)


def convert_pdf_offline(data: bytes, filename: str, progress: ProgressFn | None = None
                        ) -> ConvertedText:
    """The PDF's text, blocks, sections and tables read by the offline route; ``progress``
    hears of every :data:`PAGE_BATCH` pages read and laid out."""
    facts = CharFacts()
    hygiene = Hygiene()
    document = open_document(data, filename)
    steps = _Steps(progress, len(document))
    document.close()
    pages = _read_pages(data, filename, facts, hygiene, steps)
    if not pages:
        raise ConversionError(f"{filename} has no pages.")
    if not any(p.words or p.tables for p in pages) and facts.dropped:
        raise ConversionError(
            f"{filename} has a text layer, but its fonts map none of its {facts.dropped:,} "
            "glyphs to letters (no Unicode map and no readable font program), and OCR is not "
            "available offline.")
    if not any(p.words or p.tables for p in pages):
        raise ConversionError(
            f"{filename} has no text layer (it looks like a scanned image), and OCR is not "
            "available offline."
        )
    running = find_running([(p.words, p.height) for p in pages])
    running_clean = Hygiene()  # the running lines are not in the text: not counted there
    items: list[Line | TableBlock] = []
    infos: list[PageInfo] = []
    ruled = unruled = multi = most = 0
    for page, removed in zip(pages, running, strict=True):
        size = statistics.median([w.size for w in page.words]) if page.words else 10.0
        stand_ins = [_table_stand_in(i, t, size) for i, t in enumerate(page.tables)]
        layout = read_page_lines(page.words + stand_ins, page.number)
        for i in mark_notes(layout.lines):
            layout.lines[i].note = True
        for line in layout.lines:
            table = next((w.table for w in line.words if w.table is not None), None)
            if table is not None:
                items.append(page.tables[table])
                rest = [w for w in line.words if w.table is None]
                if rest:
                    items.append(Line(rest, line.page, line.column))
            else:
                items.append(line)
        ruled += len(page.tables)
        multi += layout.columns > 1
        most = max(most, layout.columns)
        infos.append(PageInfo(number=page.number, width=page.width, height=page.height,
                              columns=layout.columns,
                              running=[running_clean.clean(r) for r in removed],
                              line_numbers=page.line_numbers))
        steps.page(page.number, laid_out=True)
    merged = unruled_tables(items)
    unruled = sum(isinstance(i, TableBlock) for i in merged) - ruled
    words = [w for p in pages for w in p.words]
    quality = PdfQuality(
        unmappable_recovered=facts.recovered, unmappable_dropped=facts.dropped,
        overprinted_removed=facts.overprinted, multi_column_pages=multi, most_columns=most,
        running_removed=sum(len(r) for r in running), tables_ruled=ruled, tables_unruled=unruled,
        right_to_left_share=right_to_left_share("".join(w.text for w in words)),
        right_to_left_lines=sum(isinstance(i, Line) and has_right_to_left(i.text)
                                for i in items),
        presentation_forms=sum(presentation_forms(w.text) for w in words))
    steps.writing()
    return write(merged, infos, quality, [OFFLINE_NOTE, *hygiene.notes()])


def convert_pdf(data: bytes, filename: str, progress: ProgressFn | None = None
                ) -> ConvertedText:
    if docling_pdf_models_present():
        try:
            return convert_with_docling(data, filename, "pdf").with_notes([DOCLING_NOTE])
        except ConversionError:
            pass  # the offline route below gives its own, more specific, message
    return convert_pdf_offline(data, filename, progress)

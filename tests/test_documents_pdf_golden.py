"""The offline PDF route on real PDFs: what it reads from each is kept as a golden file, so any
change to the text, sections or tables shows as a diff.

After a deliberate change, look at the diff, then write the golden files again:

    .venv/bin/python -m tests.test_documents_pdf_golden --regenerate
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from core.documents.model import ConvertedText
from core.documents.pdf import convert_pdf_offline
from corpora.pdf_score import doubled_glyph_words, unmapped

FOLDER = Path(__file__).resolve().parent / "golden" / "pdf"
# right-to-left PDFs printed by Chromium, kept beside their HTML and reference text
RTL = Path(__file__).resolve().parent / "fixtures" / "pdf" / "rtl"
# book pages, letter-spaced and justified text, a paper's table: printed by Chromium
READING = Path(__file__).resolve().parent / "fixtures" / "pdf" / "reading"
# books with a cover, contents, chapters under running headers: made by corpora.pdf_books
BOOKS = Path(__file__).resolve().parent / "fixtures" / "pdf" / "books"
# Korean, Arabic with its vowel marks, seven scripts side by side, footnotes beside two
# columns: printed by Chromium
SCRIPTS = Path(__file__).resolve().parent / "fixtures" / "pdf" / "scripts"
NOTES = Path(__file__).resolve().parent / "fixtures" / "pdf" / "notes"
SOURCES = {p.name: p for folder in (FOLDER, RTL, READING, BOOKS, SCRIPTS, NOTES)
           for p in folder.glob("*.pdf")}
PDFS = sorted(SOURCES)


def golden_text(converted: ConvertedText) -> str:
    """The text, then one line per section, per table, per page and per stretch of front
    matter."""
    lines = [converted.text, "", "<!-- sections -->"]
    lines += [f"{'  ' * (s.level - 1)}{s.level} {s.title}" for s in converted.sections]
    lines.append("<!-- tables -->")
    lines += [f"page {t.page}: {len(t.rows)} rows x {len(t.rows[0])} columns; caption: "
              f"{t.caption}" for t in converted.tables]
    lines.append("<!-- pages -->")
    lines += [f"page {p.number}: {p.columns} columns; running: {p.running}"
              + (f"; line numbers {p.line_numbers[0]}-{p.line_numbers[-1]}"
                 if p.line_numbers else "") + (f"; role: {p.role}" if p.role else "")
              for p in converted.page_info]
    lines.append("<!-- front matter -->")
    lines += [f"{m.role}: {converted.text[m.start:m.end][:60]!r}" for m in converted.front_matter]
    return "\n".join(lines) + "\n"


def golden_path(name: str) -> Path:
    return FOLDER / f"{Path(name).stem}.golden.md"


@pytest.mark.parametrize("name", PDFS)
def test_real_pdf_reads_as_its_golden_file(name):
    converted = convert_pdf_offline(SOURCES[name].read_bytes(), name)
    assert unmapped(converted.text) == 0
    assert doubled_glyph_words(converted.text) == []
    for span in [*converted.blocks, *converted.sections, *converted.tables]:
        assert 0 <= span.start <= span.end <= len(converted.text)
    for table in converted.tables:
        assert converted.text[table.start:table.end] == table.markdown
        assert len(table.rows) >= 2 and len(table.rows[0]) >= 2
    for section in converted.sections:
        assert converted.text[section.heading_start:section.heading_end] == section.title
    expected = golden_path(name).read_text(encoding="utf-8")
    assert golden_text(converted) == expected, (
        f"{name} reads differently; if that is intended, run "
        "python -m tests.test_documents_pdf_golden --regenerate")


def regenerate() -> None:
    for name in PDFS:
        converted = convert_pdf_offline(SOURCES[name].read_bytes(), name)
        text = golden_text(converted)
        golden_path(name).write_text(text, encoding="utf-8")
        print(f"{golden_path(name).name}: {len(text):,} characters")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit(re.sub(r"\n +", "\n", __doc__ or ""))
    regenerate()

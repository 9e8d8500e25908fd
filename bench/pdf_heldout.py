"""PDFs made like real-world ones, with their reference conversions, to test the offline PDF
route on material it was not developed on.

    .venv/bin/python -m bench.pdf_heldout OUT_DIR

writes ``<name>.pdf`` and ``<name>.md`` (the reference: headings as ``#`` lines, paragraphs,
tables as pipe rows; no running headers, footers or page numbers) for each layout:

- ``two-column``: a report in two justified columns, numbered headings (1, 1.1) whose fonts
  differ only by a little, a heading wrapped over two lines, running header and footer with page
  numbers;
- ``fake-bold``: single column, headings made bold by drawing them twice 0.35 pt apart
  (overprint), a ruled table with a caption, bullet lists;
- ``no-unicode-map``: a TrueType font with its ToUnicode map taken out (pdfminer reads
  ``(cid:N)`` for every glyph), numbered headings, running footer;
- ``browser-columns``: HTML printed by headless Chromium, CSS columns, a table, browser header
  and footer lines (skipped when Chromium or Playwright is missing);
- ``browser-ligatures``: HTML printed by headless Chromium (its text shaping draws "ff", "fi",
  "ffl" as ligature glyphs) with every ToUnicode map taken out: the text is only in the
  embedded fonts' cmaps and ligature tables (skipped without Chromium);
- ``print-driver``: a Type0 font with the Identity-H encoding and no ToUnicode map, as some print
  drivers write it: the embedded subset keeps its glyph names but has no cmap; ligatures
  ("fi", "fl") and bullets ("•", "▪") are glyphs of their own;
- ``three-column``: a newsletter in three columns under a full-width title band;
- ``field-guide``, ``annual-report``: books with a cover (title, author list, publisher line),
  a contents page with dot leaders and page numbers, numbered chapters with running headers
  naming them, and an index or a list of figures (:mod:`corpora.pdf_books`);
- ``korean``, ``arabic-marks``, ``scripts``: Korean, Arabic with its vowel marks and Latin
  words inside, seven scripts side by side, printed by Chromium (:mod:`corpora.pdf_scripts`;
  they need a font with Hangul, Debian's fonts-nanum);
- ``footnotes-columns``: two columns, footnotes at the foot of the left one beside the right
  one's text, a sentence going on from one column to the next (:mod:`corpora.pdf_notes`).
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

from bench.quick import add_quick
from corpora.pdf_books import annual_report, field_guide
from corpora.pdf_browser import browser_columns, browser_ligatures
from corpora.pdf_layouts import fake_bold, no_unicode_map, print_driver, three_column, two_column
from corpora.pdf_notes import footnotes_columns
from corpora.pdf_scripts import arabic_marks, korean, scripts

MAKERS = {"two-column": two_column, "fake-bold": fake_bold, "no-unicode-map": no_unicode_map,
          "three-column": three_column, "browser-columns": browser_columns,
          "browser-ligatures": browser_ligatures, "print-driver": print_driver,
          "field-guide": field_guide, "annual-report": annual_report,
          "korean": korean, "arabic-marks": arabic_marks, "scripts": scripts,
          "footnotes-columns": footnotes_columns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path("bench/out/heldout-pdfs"))
    add_quick(parser)
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    makers = {n: MAKERS[n] for n in ("two-column", "no-unicode-map")} if args.quick else MAKERS
    for name, maker in makers.items():
        made = maker(random.Random(name))
        if made is None:
            print(f"{name}: skipped (Chromium or Playwright missing)")
            continue
        data, doc = made
        (out / f"{name}.pdf").write_bytes(data)
        (out / f"{name}.md").write_text(re.sub(r"\n{3,}", "\n\n", doc.markdown()))
        print(f"{name}: {len(data):,} bytes")


if __name__ == "__main__":
    main()

"""A PDF with footnotes beside two columns, printed by headless Chromium from text written
here, with its reference (:class:`~corpora.pdf_layouts.Doc`): each page has two justified
columns; the left one ends with footnotes in small print while the right one's text runs on
beside them, and a sentence goes on from the foot of the left column to the top of the right
one. The reference reads each footnote after the paragraph it interrupts.
"""

from __future__ import annotations

import html
import random

from corpora.pdf_browser import print_html
from corpora.pdf_layouts import SENTENCES, Doc

NOTES = [
    "Figures for mains length are taken from the asset register of March.",
    "Both interruptions followed bursts on trunk mains during the frost.",
    "The trial streets were chosen by the billing team with the parish councils.",
]
STYLE = """
@page{size:A4;margin:16mm}
body{font-family:'DejaVu Serif';font-size:10pt;margin:0;width:178mm}
h1{font-size:16pt;text-align:center;margin:0 0 6mm 0}
.cols{display:grid;grid-template-columns:1fr 1fr;column-gap:8mm;height:235mm}
.col{position:relative;height:235mm;text-align:justify}
#left .body{height:205mm;overflow:hidden}
.body p{margin:0 0 6pt 0}
.notes{position:absolute;bottom:0;left:0;right:0;font-size:7.5pt;line-height:1.25}
.notes hr{width:40%;margin:0 0 2pt 0;border:0;border-top:0.5pt solid #000}
.notes p{margin:0 0 2pt 0}
sup{font-size:6pt;line-height:0}
"""
# the words the left column has no room for go on at the top of the right one (the page is
# laid out on screen as it prints: its width is set, its fonts loaded first)
OVERFLOW = """async () => {
await document.fonts.ready;
const left = document.querySelector('#left .body');
const right = document.querySelector('#right .body');
const limit = left.getBoundingClientRect().bottom;
const moved = [];
for (const p of [...left.querySelectorAll('p')]) {
  const over = [...p.querySelectorAll('span')].filter(
    w => w.getBoundingClientRect().bottom > limit + 0.5);
  if (over.length === p.querySelectorAll('span').length) { moved.push(p); continue; }
  if (over.length) {
    const rest = document.createElement('p');
    over.forEach(w => rest.appendChild(w));
    moved.push(rest);
  }
}
moved.reverse().forEach(p => right.prepend(p));
}"""


def _words(text: str, marks: dict[str, int]) -> str:
    """The paragraph as one span per word (so the overflow can be found word by word), a
    footnote mark after the sentences ``marks`` names."""
    out = []
    for word in text.split(" "):
        note = next((n for s, n in marks.items() if s.endswith(word) and word.endswith(".")),
                    None)
        mark = f"<sup>{note}</sup>" if note is not None else ""
        out.append(f"<span>{html.escape(word)}{mark} </span>")
    return "".join(out)


def footnotes_columns(rng: random.Random) -> tuple[bytes, Doc] | None:
    """One page: a title, two columns, three footnotes at the foot of the left column."""
    sentences = rng.sample(SENTENCES, len(SENTENCES)) + rng.sample(SENTENCES, 27)
    paragraphs, start = [], 0
    for n in [7, 9, 6, 8, 7, 8, 12]:  # enough to fill both columns
        paragraphs.append(" ".join(sentences[start:start + n]))
        start += n
    # a note on a sentence of each of the first three paragraphs
    marked = {next(s for s in SENTENCES if s in p and s.endswith(".")): n
              for n, p in enumerate(paragraphs[:3], start=1)}
    doc = Doc()
    doc.heading(1, "Water in the Northern Valley")
    for paragraph in paragraphs:
        text = paragraph
        for sentence, n in marked.items():
            text = text.replace(sentence, f"{sentence[:-1]}.{n}")
        doc.para(text)
    for n, note in enumerate(NOTES, start=1):
        doc.para(f"{n} {note}")
    body = "".join(f"<p>{_words(p, {s: n for s, n in marked.items() if s in p})}</p>"
                   for p in paragraphs)
    notes = "".join(f"<p><sup>{n}</sup> {html.escape(note)}</p>"
                    for n, note in enumerate(NOTES, start=1))
    page = (f"<html><head><meta charset='utf-8'><style>{STYLE}</style></head><body>"
            f"<h1>Water in the Northern Valley</h1><div class='cols'>"
            f"<div class='col' id='left'><div class='body'>{body}</div>"
            f"<div class='notes'><hr>{notes}</div></div>"
            f"<div class='col' id='right'><div class='body'></div></div></div></body></html>")
    data = print_html(page, OVERFLOW, margin={"top": "0", "bottom": "0", "left": "0",
                                               "right": "0"})
    return None if data is None else (data, doc)

"""Held-out PDFs printed by headless Chromium from HTML (skipped, ``None``, when Chromium or
Playwright is missing): CSS columns with a table and browser header and footer lines, and text
drawn with ligature glyphs whose ToUnicode maps are taken out."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from corpora.pdf_layouts import Doc, outline, strip_unicode_maps

CHROMIUM = Path("/usr/bin/chromium")
MARGINS = {"top": "20mm", "bottom": "20mm", "left": "20mm", "right": "20mm"}


def print_html(html: str, script: str | None = None, **options: Any) -> bytes | None:
    """``html`` printed to PDF by headless Chromium (A4, 20 mm margins unless ``options``
    say otherwise: Playwright's ``page.pdf`` options), after running ``script`` (JavaScript
    that may lay the page out further); None when Chromium or Playwright is missing."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not CHROMIUM.exists():
        return None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM),
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.set_content(html)
        if script is not None:
            page.evaluate(script)
        data: bytes = page.pdf(**{"format": "A4", "margin": MARGINS, **options})
        browser.close()
    return data


def browser_ligatures(rng: random.Random) -> tuple[bytes, Doc] | None:
    doc = outline(rng, 2, wrapped=False)
    words = ["Office staff flagged difficulties with the official filing system.",
             "Affluent suppliers offered fine fittings for the offices.",
             "Offline workflows were shuffled; efficiency suffered briefly."]
    for i, sentence in enumerate(words):
        doc.parts.insert(2 + 2 * i, ("p", sentence))
    bullets = ["Fifty offices refitted", "Staff briefed on the new filing flow"]
    for i, b in enumerate(bullets):
        doc.parts.insert(3 + i, ("li", b))
    html = ["<html><head><style>body{font-family:'DejaVu Serif';font-size:10.5pt}"
            "ul{list-style-type:'\\2022  '}h1{font-size:18pt}h2{font-size:14pt}"
            "h3{font-size:12pt}</style></head><body>"]
    in_list = False
    for kind, payload in doc.parts:
        if kind == "li" and not in_list:
            html.append("<ul>")
            in_list = True
        elif kind != "li" and in_list:
            html.append("</ul>")
            in_list = False
        if kind == "h":
            level, text = payload  # type: ignore[misc]
            html.append(f"<h{level}>{text}</h{level}>")
        elif kind == "li":
            html.append(f"<li>{payload}</li>")
        else:
            html.append(f"<p>{payload}</p>")
    html.append("</body></html>")
    data = print_html("".join(html))
    if data is None:
        return None
    return strip_unicode_maps(data), doc


def browser_columns(rng: random.Random) -> tuple[bytes, Doc] | None:
    doc = outline(rng, 4)
    rows = [["Reservoir", "Capacity (Ml)", "Level in June", "Level in November"],
            ["Hollins", "4,200", "61%", "88%"], ["Scar Top", "2,950", "55%", "91%"],
            ["Brindle", "1,100", "48%", "79%"]]
    doc.parts.insert(3, ("t", (rows, "Table 2: Reservoir levels")))
    html = ["<html><head><style>body{font-family:serif;font-size:10.5pt}"
            "main{columns:2;column-gap:1.2cm;text-align:justify}h1{text-align:center}"
            "h2{font-size:13pt}h3{font-size:11pt}table{border-collapse:collapse}"
            "td,th{border:1px solid #444;padding:2px 4px}</style></head><body>"]
    first = True
    for kind, payload in doc.parts:
        if kind == "h":
            level, text = payload  # type: ignore[misc]
            html.append(f"<h{level}>{text}</h{level}>")
            if first:
                html.append("<main>")
                first = False
        elif kind == "t":
            rows_, caption = payload  # type: ignore[misc]
            body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows_)
            html.append(f"<p>{caption}</p><table>{body}</table>")
        else:
            html.append(f"<p>{payload}</p>")
    html.append("</main></body></html>")
    data = print_html("".join(html), display_header_footer=True,
                      header_template='<div style="font-size:8px;width:100%;'
                      'text-align:center">Northern Water annual review</div>',
                      footer_template='<div style="font-size:8px;width:100%;text-align:'
                      'center">Page <span class="pageNumber"></span> of <span class='
                      '"totalPages"></span></div>',
                      margin={"top": "20mm", "bottom": "20mm", "left": "15mm", "right": "15mm"})
    return None if data is None else (data, doc)

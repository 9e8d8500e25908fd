"""The shell of a report: one HTML file that needs nothing but itself.

Sections are HTML fragments their builders wrote with every untrusted text escaped
(:func:`esc`); the shell adds the style (system fonts only), the filter script of the
per-question table, Plotly's JavaScript once when a section holds a chart, and a footer that
states the file's own size. Nothing is fetched: no font, stylesheet, script or image URL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape

MAX_BYTES = 10_000_000  # a report of the largest question set must stay below this
LIBRARY_ID = "plotly-library"  # the id of the one inlined Plotly script
SIZE_SLOT = "<!--size-->"

STYLE = """
:root{--ink:#1f2328;--muted:#5f6670;--line:#e3e6eb;--soft:#f6f8fa;--accent:#1f3a93;
--good:#1a7f37;--bad:#b42318;--mark:#ffe066}
*{box-sizing:border-box}
body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,
sans-serif;color:var(--ink);background:#fff}
main{max-width:1180px;margin:0 auto;padding:28px 32px 60px}
header h1{font-size:1.7rem;margin:0 0 4px;letter-spacing:-.01em}
header p{margin:0;color:var(--muted)}
nav{margin:14px 0 8px;display:flex;flex-wrap:wrap;gap:6px 16px;font-size:.9rem}
nav a{color:var(--accent);text-decoration:none}
section{margin-top:34px}
h2{font-size:1.2rem;margin:0 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:18px 0 6px}
.note{color:var(--muted);font-size:.88rem;margin:6px 0}
.verdict{background:#eef4ff;border-left:4px solid var(--accent);padding:10px 14px;margin:8px 0;
border-radius:4px}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:6px 0}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ci{color:var(--muted);font-size:.82rem}
dl.inputs{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:0}
dl.inputs dt{color:var(--muted)}
dl.inputs dd{margin:0}
.chart{border:1px solid var(--line);border-radius:6px;padding:6px;margin:10px 0}
.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0 12px}
.filters button{font:inherit;font-size:.88rem;border:1px solid var(--line);background:#fff;
border-radius:14px;padding:3px 12px;cursor:pointer}
.filters button[aria-pressed=true]{background:var(--accent);border-color:var(--accent);color:#fff}
.filters input{font:inherit;font-size:.88rem;padding:3px 8px;border:1px solid var(--line);
border-radius:6px;min-width:22em}
details.q{border:1px solid var(--line);border-radius:6px;margin:6px 0;background:#fff}
details.q>summary{cursor:pointer;padding:8px 12px;display:flex;gap:12px;align-items:baseline;
list-style:none}
details.q>summary::-webkit-details-marker{display:none}
details.q>summary::before{content:"\\25B8";color:var(--muted)}
details.q[open]>summary::before{content:"\\25BE"}
details.q[open]>summary{border-bottom:1px solid var(--line);background:var(--soft)}
.qn{color:var(--muted);font-variant-numeric:tabular-nums;min-width:2.5em}
.qt{flex:1}
.badges{display:flex;gap:6px;flex-wrap:wrap;justify-content:flex-end}
.badge{font-size:.78rem;border-radius:10px;padding:1px 8px;white-space:nowrap;
background:var(--soft);border:1px solid var(--line)}
.badge.yes{color:var(--good);border-color:#b7e1c1;background:#effaf2}
.badge.no{color:var(--bad);border-color:#f3c2bd;background:#fdf1f0}
.body{padding:10px 14px}
.sides{display:grid;gap:12px;grid-template-columns:repeat(auto-fit,minmax(300px,1fr))}
.side h4{margin:4px 0 6px;font-size:.9rem}
.hit{border:1px solid var(--line);border-radius:5px;margin:0 0 8px;font-size:.85rem}
.hit .meta{padding:3px 8px;background:var(--soft);color:var(--muted);font-size:.78rem}
.hit.touch{border-color:#e8c547}
.text{white-space:pre-wrap;word-wrap:break-word;padding:6px 8px;margin:0;max-height:24em;
overflow:auto;font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
mark{background:var(--mark);color:inherit;border-radius:2px}
.ref{background:#fffbe6;border:1px solid #f0dc8a;border-radius:5px;padding:4px 8px;margin:0 0 10px}
.answer{white-space:pre-wrap;border:1px solid var(--line);border-radius:5px;padding:6px 8px;
font-size:.88rem;margin:0 0 6px}
.grades{font-size:.8rem;color:var(--muted)}
footer{margin-top:40px;padding-top:10px;border-top:1px solid var(--line);color:var(--muted);
font-size:.82rem}
@media print{details.q{break-inside:avoid}.filters{display:none}}
"""

# Filter the per-question rows by their state (and by words typed); no network request.
FILTER_SCRIPT = """
document.querySelectorAll('.filters').forEach(function (bar) {
  var rows = document.querySelectorAll(bar.dataset.rows), state = 'all', words = '';
  function apply() {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = (state === 'all' || row.dataset.state === state) &&
        (!words || row.textContent.toLowerCase().indexOf(words) >= 0);
      row.hidden = !ok; if (ok) shown++;
    });
    bar.querySelector('.count').textContent = shown + ' of ' + rows.length + ' shown';
  }
  bar.querySelectorAll('button').forEach(function (button) {
    button.addEventListener('click', function () {
      state = button.dataset.state;
      bar.querySelectorAll('button').forEach(function (b) {
        b.setAttribute('aria-pressed', String(b === button)); });
      apply();
    });
  });
  bar.querySelector('input').addEventListener('input', function (event) {
    words = event.target.value.trim().toLowerCase(); apply();
  });
  apply();
});
// An opened question scrolls each chunk to the reference marked in it.
document.querySelectorAll('details.q').forEach(function (row) {
  row.addEventListener('toggle', function () {
    row.querySelectorAll('.text').forEach(function (text) {
      var mark = text.querySelector('mark');
      if (mark) text.scrollTop = mark.offsetTop - text.offsetTop - 40;
    });
  });
});
"""


def esc(text: object) -> str:
    """``text`` as HTML text or an attribute value: nothing in it can become markup."""
    return escape(str(text), quote=True)


@dataclass(frozen=True)
class Section:
    """One part of a report: an anchor, a heading and its body (HTML, already escaped)."""

    anchor: str
    title: str
    body: str


def definitions(items: Iterable[tuple[str, str]]) -> str:
    """A list of names and values (both plain text)."""
    return ('<dl class="inputs">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>"
                                            for k, v in items) + "</dl>")


def table(header: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = ()
          ) -> str:
    """A table of ``rows`` of HTML cells (escaped by the caller) under a plain-text header;
    the columns in ``numeric`` are right-aligned."""
    def cls(index: int) -> str:
        return ' class="num"' if index in numeric else ""

    head = "".join(f"<th{cls(i)}>{esc(h)}</th>" for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(f"<td{cls(i)}>{cell}</td>" for i, cell in enumerate(row))
                   + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def filters(rows_selector: str, states: Sequence[tuple[str, str]]) -> str:
    """The filter bar of a per-question list: one button per ``(state, label)``, all first,
    and a box to find words."""
    buttons = "".join(
        f'<button type="button" data-state="{esc(state)}" aria-pressed="{str(i == 0).lower()}">'
        f"{esc(label)}</button>"
        for i, (state, label) in enumerate([("all", "All"), *states]))
    return (f'<div class="filters" data-rows="{esc(rows_selector)}">{buttons}'
            '<input type="search" placeholder="Find words in questions and chunks"'
            ' aria-label="Find words"><span class="note count"></span></div>')


def question_row(state: str, number: int, question: str, where: str, badges: str,
                 body: str) -> str:
    """One question of a per-question list: a summary line (its number, text, ``where`` it
    is asked and the ``badges`` of each side) that opens to ``body`` (HTML)."""
    return (f'<details class="q" data-state="{esc(state)}"><summary><span class="qn">{number}'
            f'</span><span class="qt">{esc(question)}<br><span class="note">{esc(where)}</span>'
            f'</span><span class="badges">{badges}</span></summary><div class="body">{body}'
            "</div></details>")


def question_list(note: str, states: Sequence[tuple[str, str]], rows: Sequence[str]
                      ) -> Section:
    """The per-question list under its ``note`` (plain text) and its filter bar."""
    return Section("questions", "Per question", f'<p class="note">{esc(note)}</p>'
                   + filters("#questions details.q", states) + "".join(rows))


def human_size(size: int) -> str:
    """``842 KB``, ``4.9 MB``."""
    return f"{size / 1_000_000:.1f} MB" if size >= 1_000_000 else f"{max(1, size // 1000)} KB"


def render(title: str, subtitle: str, sections: Sequence[Section], *, charts: bool,
           plotly_js: str = "") -> bytes:
    """The whole file, UTF-8. With ``charts``, ``plotly_js`` (the library) is inlined once
    before the sections that draw with it. The footer states the file's size."""
    nav = "".join(f'<a href="#{esc(s.anchor)}">{esc(s.title)}</a>' for s in sections)
    body = "".join(f'<section id="{esc(s.anchor)}"><h2>{esc(s.title)}</h2>{s.body}</section>'
                   for s in sections)
    library = (f'<script id="{LIBRARY_ID}">{plotly_js}</script>' if charts else "")
    written = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>{library}<main>"
        f"<header><h1>{esc(title)}</h1><p>{esc(subtitle)}</p></header><nav>{nav}</nav>{body}"
        f"<footer>Written by ChunkLab on {written}. One self-contained file: it opens in any "
        f"browser without a network. Size: {SIZE_SLOT}.</footer></main>"
        f"<script>{FILTER_SCRIPT}</script></body></html>")
    size = len(page.encode("utf-8"))
    for _ in range(3):  # the statement of the size changes the size by a few bytes
        stated = page.replace(SIZE_SLOT, human_size(size))
        size = len(stated.encode("utf-8"))
    return stated.encode("utf-8")

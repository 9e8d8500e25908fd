"""Escaped HTML of a text with coloured spans (the one renderer every page draws text with), and
Markdown escaping for untrusted text shown through ``st.markdown``.

Spans may overlap (chunk overlap, a table inside a section): the text is cut at every span edge
and each piece is drawn with all the spans covering it — one colour, or stripes of several with
the class ``cl-overlap``. Everything that comes from users or LLMs (text, labels, tooltips) is
escaped here, so callers can pass it straight in.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What makes Markdown out of plain text (CommonMark, GFM and Streamlit's own directives): the
# characters that always can, and the ones that can only in some places.
MARKDOWN_SYNTAX = re.compile(
    r"[\\`*\[\]<$~|]"  # escapes, code, emphasis, links and images, HTML, LaTeX, tables…
    r"|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"  # emphasis with _ (never inside a word)
    r"|:(?=[\w/+-]+:)"  # :emoji: and :material/icon: directives
    r"|&(?=#?\w+;)"  # character references
    r"|^[ \t]*(?:[#>+=-]|\d+[.)])", re.MULTILINE  # headings, quotes, lists, rules
)
# GFM makes links of bare URLs and e-mail addresses after escapes are read, so an escape cannot
# stop it: an invisible word joiner inside "http://", "www." and before "@" does.
WORD_JOINER = "\u2060"
AUTOLINK = re.compile(r"(?i)(?:(?<=\bhttp)|(?<=\bhttps)|(?<=\bftp))(?=://)|(?<=\bwww)(?=\.)|(?=@)")

PALETTE = (
    "#cfe3ff", "#ffe1b3", "#d4f5d0", "#f9d0e4", "#e3d7ff",
    "#fff3a8", "#c9f1f0", "#ffd6cc", "#e0ecc4", "#dde3ea",
)


def palette(i: int) -> str:
    """The i-th colour of a light palette that keeps black text readable."""
    return PALETTE[i % len(PALETTE)]


@dataclass(frozen=True)
class HighlightSpan:
    start: int
    end: int
    color: str
    label: str = ""  # a small badge drawn where the span starts
    tooltip: str = ""  # shown on hover
    css_class: str = ""


STYLE = """<style>
.cl-text{white-space:pre-wrap;word-wrap:break-word;font-family:ui-monospace,SFMono-Regular,Menlo,
monospace;font-size:0.82rem;line-height:1.55;border:1px solid #e3e6eb;border-radius:6px;
padding:0.6rem 0.8rem;overflow-y:auto;background:#fff;color:#1f2328}
.cl-text mark{color:inherit;padding:0.05rem 0;border-radius:2px}
.cl-text mark.cl-overlap{outline:1px dashed #8a8f98}
.cl-text mark.cl-table{box-shadow:inset 3px 0 0 #e07a00}
.cl-text mark.cl-flag{outline:2px solid #d1242f;outline-offset:-1px}
.cl-text .cl-label{font-family:system-ui,sans-serif;font-size:0.68rem;font-weight:600;
background:#394150;color:#fff;border-radius:3px;padding:0 0.3rem;margin-right:0.2rem;
vertical-align:0.1rem;white-space:nowrap}
.cl-text .cl-more{display:block;color:#6b7280;font-style:italic;margin-top:0.5rem}
</style>"""


def _mark(piece: str, covering: list[HighlightSpan]) -> str:
    classes = " ".join(dict.fromkeys(s.css_class for s in covering if s.css_class))
    tooltip = " | ".join(dict.fromkeys(s.tooltip for s in covering if s.tooltip))
    if len(covering) == 1:
        background = covering[0].color
    else:
        classes = f"{classes} cl-overlap".strip()
        colors = [s.color for s in covering]
        stops = ", ".join(
            f"{c} {i * 8}px, {c} {(i + 1) * 8}px" for i, c in enumerate(colors)
        )
        background = f"repeating-linear-gradient(135deg, {stops})"
    attrs = f' style="background:{html.escape(background)}"'
    if classes:
        attrs += f' class="{html.escape(classes)}"'
    if tooltip:
        attrs += f' title="{html.escape(tooltip)}"'
    return f"<mark{attrs}>{html.escape(piece)}</mark>"


def highlight_html(
    text: str,
    spans: list[HighlightSpan],
    *,
    max_chars: int | None = None,
    height_px: int | None = 520,
) -> str:
    """HTML for ``text`` with ``spans`` highlighted; at most ``max_chars`` characters drawn."""
    shown = text if max_chars is None else text[:max_chars]
    limit = len(shown)
    live = sorted(
        (s for s in spans if s.start < s.end and s.start < limit),
        key=lambda s: (s.start, -s.end),
    )
    cuts = sorted({0, limit, *(s.start for s in live), *(min(s.end, limit) for s in live)})
    out: list[str] = []
    active: list[HighlightSpan] = []
    next_span = 0
    for left, right in zip(cuts, cuts[1:], strict=False):
        active = [s for s in active if s.end > left]
        while next_span < len(live) and live[next_span].start <= left:
            span = live[next_span]
            next_span += 1
            active.append(span)
            if span.label:
                out.append(f'<span class="cl-label">{html.escape(span.label)}</span>')
        piece = shown[left:right]
        out.append(_mark(piece, active) if active else html.escape(piece))
    if limit < len(text):
        out.append(f'<span class="cl-more">… {len(text) - limit:,} more characters</span>')
    box = f' style="max-height:{height_px}px"' if height_px else ""
    return f'{STYLE}<div class="cl-text"{box}>{"".join(out)}</div>'


def md_escape(text: str) -> str:
    """Text from a file, a file name, a user, a model or a server, made safe for any Streamlit
    call that renders Markdown (messages, captions, labels, progress text): every Markdown
    syntax character is backslash-escaped, so no image is fetched, no link, emphasis, heading,
    list or raw HTML is made (``<`` is escaped too), ``$`` is not read as LaTeX, ``:`` makes no
    Streamlit directive, a bare URL or e-mail address no link (:data:`AUTOLINK`); control
    characters (line breaks aside) are shown as escapes."""
    shown = CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
    return AUTOLINK.sub(WORD_JOINER, MARKDOWN_SYNTAX.sub(_escape_match, shown))


def _escape_match(match: re.Match[str]) -> str:
    text = match.group()
    stripped = text.lstrip(" \t")
    if stripped[:1].isdigit():  # "1." or "1)" at a line's start: escape what follows the number
        return f"{text[:-1]}\\{text[-1]}"
    return f"{text[: len(text) - len(stripped)]}\\{stripped}"


@dataclass(frozen=True)
class Bar:
    """A bar on one row of a strip chart: from ``start`` over ``size`` along the axis; ``pick``
    is what a click on it reports when drawn through :mod:`ui.clickable` ("" not clickable)."""

    row: str
    start: float
    size: float
    color: str
    tooltip: str = ""
    pick: str = ""


CHART_STYLE = """<style>
.cl-chart{font-family:system-ui,sans-serif;font-size:0.75rem;color:#394150;margin:0.3rem 0}
.cl-chart .cl-row{display:flex;align-items:center;height:1.7rem}
.cl-chart .cl-name{width:8rem;flex:none;text-align:right;padding-right:0.5rem;overflow:hidden;
text-overflow:ellipsis;white-space:nowrap}
.cl-chart .cl-lane{position:relative;flex:1;height:1.15rem;background:#f4f5f7;border-radius:2px}
.cl-chart .cl-bar{position:absolute;top:0;bottom:0;box-sizing:border-box;
border:1px solid rgba(57,65,80,.55)}
.cl-chart .cl-bar[data-pick]{cursor:pointer}
.cl-chart .cl-bar[data-pick]:hover{outline:2px solid #394150;z-index:1}
.cl-chart .cl-mark{position:absolute;top:-0.3rem;bottom:-0.3rem;border-left:2px dashed #394150}
.cl-chart .cl-axis{display:flex;justify-content:space-between;margin-left:8rem;color:#6b7280}
.cl-chart .cl-title{text-align:center;margin-left:8rem;color:#6b7280}
.cl-chart .cl-legend{display:flex;flex-wrap:wrap;gap:0.2rem 0.9rem;margin:0.3rem 0 0 8rem}
.cl-chart .cl-key{display:inline-block;width:0.7rem;height:0.7rem;border-radius:2px;
margin-right:0.25rem;vertical-align:-0.05rem}
.cl-chart .cl-bins{display:flex;align-items:flex-end;gap:2px;height:7rem;margin-left:8rem;
border-bottom:1px solid #9aa1ab}
.cl-chart .cl-bin{flex:1;min-width:2px}
</style>"""


def _pct(value: float, whole: float) -> str:
    return f"{100 * max(0.0, min(value, whole)) / whole:.3f}%"


def strip_html(rows: Sequence[str], bars: Sequence[Bar], length: float, *, axis: str,
               marks: Sequence[tuple[float, str]] = (),
               legend: Sequence[tuple[str, str]] = ()) -> str:
    """Rows of bars along one axis from 0 to ``length`` (sections along a document, a prompt's
    token budget), drawn as plain HTML: hover a bar or a mark for its tooltip. ``marks``: dashed
    lines at (position, tooltip); ``legend``: (label, colour)."""
    whole = max(float(length), 1.0)
    out = [CHART_STYLE, '<div class="cl-chart">']
    for row in rows:
        out.append(f'<div class="cl-row"><span class="cl-name" title="{html.escape(row)}">'
                   f'{html.escape(row)}</span>'
                   '<div class="cl-lane">')
        for bar in (b for b in bars if b.row == row):
            size = min(bar.size, whole - bar.start)
            pick = f' data-pick="{html.escape(bar.pick)}"' if bar.pick else ""
            out.append(f'<div class="cl-bar"{pick} title="{html.escape(bar.tooltip)}" style="left:'
                       f'{_pct(bar.start, whole)};width:{_pct(size, whole)};'
                       f'background:{html.escape(bar.color)}"></div>')
        for at, tooltip in marks:
            out.append(f'<div class="cl-mark" title="{html.escape(tooltip)}" '
                       f'style="left:{_pct(at, whole)}"></div>')
        out.append("</div></div>")
    ticks = [round(whole * k / 4) for k in range(5)]
    out.append('<div class="cl-axis">' + "".join(f"<span>{t:,}</span>" for t in ticks)
               + f'</div><div class="cl-title">{html.escape(axis)}</div>')
    if legend:
        out.append('<div class="cl-legend">' + "".join(
            f'<span><span class="cl-key" style="background:{html.escape(color)}"></span>'
            f"{html.escape(label)}</span>" for label, color in legend) + "</div>")
    return "".join(out) + "</div>"


def histogram_html(values: Sequence[int], color: str, *, axis: str, counted: str,
                   bins: int = 20) -> str:
    """A histogram of ``values`` in at most ``bins`` equal bins, as plain HTML; each bin's
    tooltip gives its range and how many ``counted`` fall in it."""
    if not values:
        return ""
    low, high = min(values), max(values)
    width = max(1, -(-(high - low + 1) // bins))
    counts = [0] * (-(-(high - low + 1) // width))
    for value in values:
        counts[(value - low) // width] += 1
    top = max(counts)
    out = [CHART_STYLE, '<div class="cl-chart"><div class="cl-bins">']
    for n, found in enumerate(counts):
        start = low + n * width
        out.append(f'<div class="cl-bin" title="{start:,}–{start + width - 1:,}: {found:,} '
                   f'{html.escape(counted)}" style="height:{_pct(found, top)};'
                   f'background:{html.escape(color)}"></div>')
    out.append(f'</div><div class="cl-axis"><span>{low:,}</span><span>{high:,}</span></div>'
               f'<div class="cl-title">{html.escape(axis)}</div></div>')
    return "".join(out)

"""An LLM's answer shown as Markdown, safely, with its citation markers as links to sources.

The model's text is untrusted: HTML is shown as text, its own links and images are disarmed
(brackets escaped) and ``$`` cannot start LaTeX; emphasis, lists and headings still render.
Each marker that cites a source becomes a link to that source's anchor on the page; a marker
with no source behind it is struck through (the page says which ones under the answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

from core.assembly.citations import CitationCheck
from ui.render import md_escape

UNSAFE = re.compile(r"([\[\]$<\\])")


def disarm(text: str) -> str:
    """Model text made safe to render as Markdown (no HTML, link, image or LaTeX)."""
    return UNSAFE.sub(lambda m: "&lt;" if m.group(1) == "<" else "\\" + m.group(1), text)


def answer_markdown(text: str, check: CitationCheck, anchor: Callable[[int], str]) -> str:
    """Markdown of ``text`` with every known marker a link to ``#anchor(number)``."""
    out: list[str] = []
    cursor = 0
    for hit in check.hits:
        out.append(disarm(text[cursor:hit.start]))
        shown = disarm(text[hit.start:hit.end])
        out.append(f"[{shown}](#{anchor(hit.number)})" if hit.known else f"~~{shown}~~")
        cursor = hit.end
    out.append(disarm(text[cursor:]))
    return "".join(out)


def show_answer(text: str, check: CitationCheck, anchor: Callable[[int], str]) -> None:
    """The answer rendered, then what the citation check found."""
    with st.container(border=True):
        st.markdown(answer_markdown(text, check, anchor))
    if check.unknown:
        st.error("Unknown markers (no source behind them, struck through above): "
                 + md_escape(" ".join(check.unknown)))
    if check.unused and check.hits:
        st.warning("Sources the answer never cites: " + md_escape(" ".join(check.unused)))
    if check.ok and check.used:
        st.success("Every marker points to a source, and every source is cited; each marker "
                   "links to its source.")
    if not check.hits:
        st.warning("The answer cites no source.")
    for repeat in check.repeats:
        times = md_escape(f"{repeat.times:,}")
        st.warning(f"The answer says “{md_escape(repeat.sentence)}” {times} times: a "
                   "small model loops like this when its sources do not hold what was asked. "
                   "Check that the prompt's sources answer every part of the question.")

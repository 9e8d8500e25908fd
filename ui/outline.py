"""The Sections tab's outline: a document's headings as an indented tree (level, title, size,
pages), each entry a click that opens its section below the tree — its text, and its place on
the page for a paginated original.

Titles come from users' files: the tree is plain HTML built here with every title escaped, and
drawn through :mod:`ui.clickable` so a click reports the entry's number.
"""

from __future__ import annotations

import html

import streamlit as st

from core.documents.model import Document, Section
from core.operations.page_view import span_pages
from ui.clickable import clickable_html
from ui.page_view import show_on_page
from ui.render import HighlightSpan, highlight_html, md_escape, palette
from ui.resources import html_by_content
from ui.wording import count

OPEN = "documents_section_open_"  # + doc id: the number of the section opened below the tree
SECTION_CHARS = 6_000  # characters of an opened section drawn (the Text view has them all)
INDENT_REM = 1.4  # per level
MATTER_NAMES = {"cover": "cover", "contents": "contents", "figures": "list of figures",
                "index": "index"}

STYLE = """<style>
.cl-outline{font-family:system-ui,sans-serif;font-size:0.9rem;color:#1f2328;margin:0.2rem 0;
max-height:520px;overflow-y:auto;border:1px solid #e3e6eb;border-radius:6px;padding:0.3rem 0}
.cl-outline [role=treeitem]{display:flex;align-items:baseline;gap:0.55rem;padding:0.18rem 0.6rem;
cursor:pointer;border-left:3px solid transparent}
.cl-outline [role=treeitem]:hover{background:#f4f5f7}
.cl-outline [aria-selected=true]{background:#eef4ff;border-left-color:#394150}
.cl-outline .cl-level{font-size:0.68rem;font-weight:600;border-radius:3px;padding:0 0.3rem;
color:#394150;flex:none}
.cl-outline .cl-title{flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.cl-outline .cl-top{font-weight:600}
.cl-outline .cl-facts{color:#6b7280;font-size:0.78rem;white-space:nowrap;flex:none}
.cl-outline .cl-matter{color:#8a5a00;font-size:0.72rem;border:1px solid #e0c48a;border-radius:3px;
padding:0 0.25rem;flex:none}
</style>"""


def _pages(document: Document, section: Section) -> str:
    where = span_pages(document, [(section.start, section.end)])
    return f" · {where.short()}" if where is not None else ""


def outline_html(document: Document, opened: int | None) -> str:
    """The tree of ``document``'s sections, the ``opened`` one marked; each entry reports its
    number when clicked."""
    rows = [STYLE, '<div class="cl-outline" role="tree" aria-label="Sections">']
    for n, section in enumerate(document.sections):
        matter = document.matter_of(section.heading_start, section.heading_end)
        tag = (f'<span class="cl-matter" title="set apart from retrieval">'
               f"{MATTER_NAMES[matter]}</span>" if matter else "")
        top = " cl-top" if section.level == 1 else ""
        rows.append(
            f'<div role="treeitem" aria-level="{section.level}" '
            f'aria-selected="{"true" if n == opened else "false"}" data-pick="{n}" '
            f'style="padding-left:{0.6 + INDENT_REM * (section.level - 1):.1f}rem">'
            f'<span class="cl-level" style="background:{palette(section.level - 1)}">'
            f"H{section.level}</span>"
            f'<span class="cl-title{top}" title="{html.escape(section.title)}">'
            f"{html.escape(section.title)}</span>{tag}"
            f'<span class="cl-facts">{count(section.end - section.start, "character")}'
            f"{html.escape(_pages(document, section))}</span></div>")
    rows.append("</div>")
    return "".join(rows)


def section_outline(document: Document) -> None:
    """The outline, and the section a click opened: its heading path, its text with its title
    marked, and the "Show on page" control of a paginated original."""
    key = OPEN + document.doc_id
    sections = document.sections
    opened = st.session_state.get(key)
    if not isinstance(opened, int) or not 0 <= opened < len(sections):
        opened = None

    def pick(value: str) -> None:
        if value.isdigit() and int(value) < len(sections):
            st.session_state[key] = int(value)

    tree = html_by_content("section outline", (document.doc_id, opened),
                           lambda: outline_html(document, opened))
    clickable_html(tree, key=f"documents_outline_{document.doc_id}", on_pick=pick)
    if opened is None:
        st.caption("Click a section to open its text" + (
            " and its place on the page." if document.page_info or document.pages else "."))
        return
    section = sections[opened]
    st.markdown(f"**{md_escape(section.title)}** · level {section.level} · "
                f"{count(section.end - section.start, 'character')}"
                f"{md_escape(_pages(document, section))}")
    path = document.heading_path(section.heading_start)
    if len(path) > 1:
        st.caption(md_escape(" › ".join(path)))
    show_on_page(document, [(section.start, section.end)], key="documents_section_page")
    title = HighlightSpan(section.heading_start - section.start,
                          section.heading_end - section.start, palette(section.level - 1),
                          f"H{section.level}")
    st.html(highlight_html(document.text[section.start:section.end], [title],
                           max_chars=SECTION_CHARS, height_px=420))

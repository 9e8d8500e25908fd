"""Span bookkeeping shared by the converters.

:class:`TextBuilder` writes a document's text piece by piece and records the exact span of
every piece as it goes, so ``text[start:end]`` is that element's text by construction.
:func:`sections_from_headings` turns located headings into nested sections; the Markdown route
uses it on the file's own text, the others on the text they wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.documents.hygiene import Hygiene
from core.documents.matter import find_front_matter
from core.documents.model import Block, BlockKind, ConvertedText, Route, Section, Table

# "Table 3: Deductibles", "Tab. 2 – Limits", "Table IV. Exclusions"
CAPTION_PATTERN = re.compile(r"^\s*(table|tab\.)\s*[0-9ivx]+\b\s*[:.\-–—]?", re.IGNORECASE)


def looks_like_table_caption(text: str) -> bool:
    return len(text) <= 300 and bool(CAPTION_PATTERN.match(text))


@dataclass(frozen=True)
class Heading:
    """A located heading: title span, the offset where its section starts, its level."""

    level: int
    title_start: int
    title_end: int
    section_start: int


def sections_from_headings(text: str, headings: list[Heading]) -> list[Section]:
    """Each heading opens a section that runs to the next heading of the same or a higher level
    (or the end of the text); ``parent`` is the nearest enclosing section's title."""
    ordered = sorted(headings, key=lambda h: h.section_start)
    fields: list[dict[str, Any]] = []
    open_sections: list[dict[str, Any]] = []  # enclosing sections, outermost first
    for heading in ordered:
        while open_sections and open_sections[-1]["level"] >= heading.level:
            open_sections.pop()["end"] = heading.section_start
        entry = {
            "start": heading.section_start,
            "end": len(text),
            "title": text[heading.title_start : heading.title_end],
            "level": heading.level,
            "parent": open_sections[-1]["title"] if open_sections else None,
            "heading_start": heading.title_start,
            "heading_end": heading.title_end,
        }
        fields.append(entry)
        open_sections.append(entry)
    return [Section(**entry) for entry in fields]


@dataclass
class TextBuilder:
    """Writes a document's text as Markdown-like blocks separated by blank lines and records the
    exact span of every block, heading and table while writing. Every piece given is cleaned
    (:class:`~core.documents.hygiene.Hygiene`) before its span is measured."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    blocks: list[Block] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)
    hygiene: Hygiene = field(default_factory=Hygiene)
    _last_kind: str | None = None

    def _write(self, piece: str, kind: str) -> int:
        """Append ``piece`` after the right separator; return the offset where it starts."""
        if self.parts:
            sep = "\n" if kind == self._last_kind == "list_item" else "\n\n"
            self.parts.append(sep)
            self.length += len(sep)
        start = self.length
        self.parts.append(piece)
        self.length += len(piece)
        self._last_kind = kind
        return start

    def _block(self, kind: BlockKind, start: int, end: int, page: int | None, **extra: Any) -> None:
        self.blocks.append(Block(kind=kind, start=start, end=end, page=page, **extra))

    def heading(self, title: str, level: int, page: int | None = None, *, title_kind: bool = False
                ) -> None:
        title = " ".join(self.hygiene.clean(title).split())
        if not title:
            return
        level = max(1, min(level, 6))
        marker = "#" * level + " "
        line_start = self._write(marker + title, "heading")
        start = line_start + len(marker)
        end = start + len(title)
        self._block("title" if title_kind else "heading", start, end, page, level=level)
        self.headings.append(Heading(level, start, end, line_start))

    def paragraph(self, text: str, page: int | None = None, kind: BlockKind = "paragraph") -> None:
        text = self.hygiene.clean(text).strip()
        if text:
            start = self._write(text, kind)
            self._block(kind, start, start + len(text), page)

    def list_item(self, text: str, page: int | None = None, *, marker: str = "-",
                  indent: int = 0) -> None:
        """``- text`` (or ``1. text``), indented two spaces per nesting level."""
        text = " ".join(self.hygiene.clean(text).split())
        if text:
            prefix = "  " * indent + marker + " "
            start = self._write(prefix + text, "list_item") + len(prefix)
            self._block("list_item", start, start + len(text), page)

    def code(self, text: str, page: int | None = None) -> None:
        text = self.hygiene.clean(text).strip("\n")
        if text.strip():
            start = self._write(f"```\n{text}\n```", "code") + 4
            self._block("code", start, start + len(text), page)

    def table(self, markdown: str, rows: list[list[str]], page: int | None = None,
              caption: str | None = None) -> None:
        """A table as Markdown, preceded by its caption when it has one."""
        markdown = self.hygiene.clean(markdown).strip("\n")
        if not markdown.strip():
            return
        scratch = Hygiene()  # the cells are counted once, in the Markdown
        rows = [[scratch.clean(cell) for cell in row] for row in rows]
        entry: dict[str, Any] = {"rows": rows, "page": page, "caption": None}
        caption = " ".join(self.hygiene.clean(caption or "").split())
        if not caption and (leading := self._caption_just_written()):
            entry.update(caption=self.text[leading.start : leading.end],
                         caption_start=leading.start, caption_end=leading.end)
        elif caption:
            cap_start = self._write(caption, "caption")
            self._block("caption", cap_start, cap_start + len(caption), page)
            entry.update(caption=caption, caption_start=cap_start,
                         caption_end=cap_start + len(caption))
        start = self._write(markdown, "table")
        self._block("table", start, start + len(markdown), page)
        entry.update(start=start, end=start + len(markdown), markdown=markdown)
        self.tables.append(entry)

    def _caption_just_written(self) -> Block | None:
        """The block just written, turned into a caption, if it reads like a table caption and
        no table owns it yet."""
        last = self.blocks[-1] if self.blocks else None
        if (last is None or last.kind not in ("paragraph", "caption")
                or any(t.get("caption_start") == last.start for t in self.tables)
                or not looks_like_table_caption(self.text[last.start : last.end])):
            return None
        self.blocks[-1] = last.model_copy(update={"kind": "caption"})
        return last

    def trailing_caption(self, text: str, page: int | None = None) -> bool:
        """Write ``text`` as the caption of the table just written, if it reads like one."""
        cleaning = Hygiene()  # counted only when written here
        text = " ".join(cleaning.clean(text).split())
        last = self.tables[-1] if self.tables else None
        if (self._last_kind != "table" or last is None or last["caption"]
                or not looks_like_table_caption(text)):
            return False
        self.hygiene.add(cleaning)
        start = self._write(text, "caption")
        self._block("caption", start, start + len(text), page)
        last.update(caption=text, caption_start=start, caption_end=start + len(text))
        return True

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def result(self, route: Route, pages: int | None = None,
               notes: list[str] | None = None) -> ConvertedText:
        """The text written so far with its blocks, sections, tables and front matter."""
        text = self.text
        return ConvertedText(
            route=route, text=text, blocks=self.blocks,
            sections=sections_from_headings(text, self.headings),
            tables=[Table(**entry) for entry in self.tables], pages=pages,
            notes=[*(notes or []), *self.hygiene.notes()],
            front_matter=find_front_matter(text, self.blocks),
        )


def rows_to_markdown(rows: list[list[str]]) -> str:
    """A pipe table of ``rows`` (the first row is the header): pipes in cells escaped, runs of
    whitespace folded, columns padded to a common width (up to 30 characters) for reading."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    cells = [[" ".join((c or "").split()).replace("|", "\\|") for c in row]
             + [""] * (width - len(row)) for row in rows]
    widths = [min(max(3, *(len(row[i]) for row in cells)), 30) for i in range(width)]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
             for row in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)

"""Markdown: the file's own text, character for character, with its structure located inside it.

markdown-it-py (CommonMark + pipe tables) finds headings (ATX and setext), paragraphs, list
items, code and tables; every token carries the source line range (``.map``), which we turn
into character spans of the untouched text.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from core.documents.matter import find_front_matter
from core.documents.model import Block, BlockKind, ConvertedText, Table
from core.documents.spans import Heading, looks_like_table_caption, sections_from_headings

LINE_BREAK = re.compile(r"\r\n?|\n")  # the line breaks markdown-it counts


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


class _Lines:
    """Character offsets of source lines, numbered the way markdown-it numbers them."""

    def __init__(self, text: str) -> None:
        self.text = text
        breaks = list(LINE_BREAK.finditer(text))
        self.starts = [0, *(m.end() for m in breaks)]
        self.ends = [*(m.start() for m in breaks), len(text)]  # line end before its break

    def line(self, i: int) -> str:
        return self.text[self.starts[i] : self.ends[i]]

    def content_span(self, first: int, last: int, first_content: str = "") -> tuple[int, int]:
        """Span from the first content character of line ``first`` to the last non-blank
        character of line ``last`` (inclusive). ``first_content`` (markdown-it's text of the
        first line, markers removed) locates the start behind list/quote markers."""
        while first < last and not self.line(first).strip():
            first += 1
        while last > first and not self.line(last).strip():
            last -= 1
        line = self.line(first)
        head = first_content.split("\n", 1)[0].rstrip()
        if head and line.rstrip().endswith(head):
            offset = len(line.rstrip()) - len(head)
        else:
            offset = len(line) - len(line.lstrip())
        last_line = self.line(last)
        return self.starts[first] + offset, self.starts[last] + len(last_line.rstrip())


def _heading(lines: _Lines, token: Token, inline: Token) -> Heading | None:
    first, end_line = token.map or (0, 0)
    level = int(token.tag[1])
    if token.markup.startswith("#"):  # ATX: "## Title ##"
        line = lines.line(first)
        after_marker = line.find(token.markup) + len(token.markup)
        found = line.find(inline.content, after_marker) if inline.content else -1
        if found < 0:
            return None
        start = lines.starts[first] + found
        return Heading(level, start, start + len(inline.content), lines.starts[first])
    start, end = lines.content_span(first, end_line - 2, inline.content)  # setext: skip underline
    return Heading(level, start, end, lines.starts[first]) if end > start else None


def _table_rows(tokens: list[Token], i: int) -> tuple[list[list[str]], int]:
    """Rows of the table opening at ``tokens[i]``; returns them and the index of table_close."""
    rows: list[list[str]] = []
    while tokens[i].type != "table_close":
        token = tokens[i]
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows:
            rows[-1].append(token.content.replace("\\|", "|"))
        i += 1
    return rows, i


def _mark_captions(blocks: list[Block], tables: list[dict[str, Any]], text: str) -> list[Block]:
    """A caption-like paragraph right before (or else right after) a table is its caption."""
    order = {(b.start, b.kind): i for i, b in enumerate(blocks)}
    for table in tables:
        at = order[(table["start"], "table")]
        for near in (at - 1, at + 1):
            if 0 <= near < len(blocks) and blocks[near].kind == "paragraph":
                caption = text[blocks[near].start : blocks[near].end]
                if looks_like_table_caption(caption):
                    blocks[near] = blocks[near].model_copy(update={"kind": "caption"})
                    table.update(caption=caption, caption_start=blocks[near].start,
                                 caption_end=blocks[near].end)
                    break
    return blocks


def convert_markdown(text: str) -> ConvertedText:
    lines = _Lines(text)
    tokens = _parser().parse(text)
    blocks: list[Block] = []
    headings: list[Heading] = []
    tables: list[dict[str, Any]] = []
    containers: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.nesting == 1:
            containers.append(token.type.removesuffix("_open"))
        elif token.nesting == -1:
            containers.pop()
        if token.type == "heading_open":
            heading = _heading(lines, token, tokens[i + 1])
            if heading:
                headings.append(heading)
                blocks.append(Block(kind="heading", start=heading.title_start,
                                    end=heading.title_end, level=heading.level))
        elif token.type == "paragraph_open" and token.map:
            kind: BlockKind = "list_item" if "list_item" in containers else "paragraph"
            start, end = lines.content_span(token.map[0], token.map[1] - 1, tokens[i + 1].content)
            if end > start:
                blocks.append(Block(kind=kind, start=start, end=end))
        elif token.type in ("fence", "code_block") and token.map and token.content.strip():
            first = token.map[0] + (1 if token.type == "fence" else 0)
            last = first + token.content.rstrip("\n").count("\n")
            start, end = lines.content_span(first, last)
            blocks.append(Block(kind="code", start=start, end=end))
        elif token.type == "table_open" and token.map:
            start, end = lines.content_span(token.map[0], token.map[1] - 1)
            rows, i = _table_rows(tokens, i)
            blocks.append(Block(kind="table", start=start, end=end))
            tables.append({"start": start, "end": end, "markdown": text[start:end],
                           "rows": rows, "caption": None})
            continue
        i += 1
    blocks = _mark_captions(blocks, tables, text)
    return ConvertedText(
        route="markdown", text=text, blocks=blocks,
        sections=sections_from_headings(text, headings), tables=[Table(**t) for t in tables],
        front_matter=find_front_matter(text, blocks),
    )

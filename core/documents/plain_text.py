"""TXT: the decoded file text, character for character; each paragraph is a block."""

from __future__ import annotations

import re

from core.documents.model import Block, ConvertedText

# A paragraph is a run of non-blank lines; any line ending (\n, \r\n, \r) counts.
PARAGRAPH = re.compile(r"[^\r\n]*\S[^\r\n]*(?:(?:\r\n|\r|\n)[^\r\n]*\S[^\r\n]*)*")


def paragraph_blocks(text: str) -> list[Block]:
    """One paragraph block per run of non-blank lines, trimmed of surrounding whitespace."""
    blocks = []
    for match in PARAGRAPH.finditer(text):
        chunk = match.group()
        start = match.start() + (len(chunk) - len(chunk.lstrip()))
        end = match.end() - (len(chunk) - len(chunk.rstrip()))
        blocks.append(Block(kind="paragraph", start=start, end=end))
    return blocks


def convert_text(text: str) -> ConvertedText:
    return ConvertedText(route="text", text=text, blocks=paragraph_blocks(text))

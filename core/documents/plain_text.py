"""TXT: the decoded file text, character for character; each paragraph is a block, and so is
each speaker turn of a transcript written without blank lines between turns."""

from __future__ import annotations

import re
from bisect import bisect_left

from core.documents.matter import find_front_matter
from core.documents.model import Block, ConvertedText

# A paragraph is a run of non-blank lines; any line ending (\n, \r\n, \r) counts. A match starts
# at the run's first visible character; its end still holds the last line's trailing blanks.
PARAGRAPH = re.compile(r"\S[^\r\n]*(?:(?:\r\n|\r|\n)[^\S\r\n]*\S[^\r\n]*)*")
# The same where no line ends in \r: ``.`` stops only at \n, which the engine runs faster.
PARAGRAPH_LF = re.compile(r"\S.*(?:\n[^\S\n]*\S.*)*")

# How a line that opens a speaker turn starts: "Priya: …", "[00:12:05] Dr. Lee: …", "10:04 Tom: …".
TURN = r"(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?[ \t]*)?[A-Z][\w.'’ -]{0,40}:[ \t]"
# Turns after a line break: a pattern that opens with a literal is searched faster than "^".
TURN_AFTER_NEWLINE = re.compile("\n" + TURN)


def _trimmed(text: str, start: int, end: int) -> Block | None:
    piece = text[start:end]
    if not piece.strip():
        return None
    return Block(kind="paragraph", start=start + len(piece) - len(piece.lstrip()),
                 end=end - (len(piece) - len(piece.rstrip())))


def speaker_turns(text: str) -> list[int]:
    """Where lines that open a speaker turn start (a line starts after ``\\n``, as ``^`` does)."""
    first = [0] if re.match(TURN, text) else []
    return first + [m.start() + 1 for m in TURN_AFTER_NEWLINE.finditer(text)]


def paragraph_blocks(text: str) -> list[Block]:
    """One paragraph block per run of non-blank lines, trimmed of surrounding whitespace; a run
    in which two or more lines open a speaker turn is one block per turn."""
    blocks: list[Block] = []
    turns = speaker_turns(text)
    first = 0  # the first turn not before the current paragraph
    for match in (PARAGRAPH if "\r" in text else PARAGRAPH_LF).finditer(text):
        start, end = match.span()
        first = bisect_left(turns, start, first)
        after = bisect_left(turns, end, first)
        if after - first >= 2:
            cuts = [start, *turns[first:after], end]
            blocks += filter(None, (_trimmed(text, a, b) for a, b in zip(cuts, cuts[1:],
                                                                           strict=False)))
        else:
            if text[end - 1].isspace():  # rare: trailing blanks on the last line
                end = start + len(text[start:end].rstrip())
            blocks.append(Block(kind="paragraph", start=start, end=end))
        first = after
    return blocks


def convert_text(text: str) -> ConvertedText:
    blocks = paragraph_blocks(text)
    return ConvertedText(route="text", text=text, blocks=blocks,
                         front_matter=find_front_matter(text, blocks))

"""Lines and tables in reading order, written as the document's text with exact spans.

Lines gather into blocks: a heading (its wrapped lines, and a number alone on the line before
it), a list item (a bullet and its indented continuation lines), a paragraph (lines close
together in one column, broken at a wider gap, a first-line indent or a short line that ends a
sentence), a table, a footnote (after the paragraph it interrupts). A cover's lines are
paragraphs, never headings; each entry of a contents or index page is a line of its own. A
paragraph cut by a column or page break (its text does not end a sentence and the next column
goes on in lower case) is one paragraph. Lines join with a space, a word hyphenated over a line
break is joined again, a dash after a letter or digit joins the number on the next line without
a space ("737–" "9" is "737–9"), and Chinese and Japanese text joins without spaces (Korean
with them).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from core.documents.matter import ENDS_IN_PAGE, marked_start, merge
from core.documents.model import (
    Block,
    ConvertedText,
    FrontMatter,
    LineBox,
    MatterRole,
    PageInfo,
    PdfQuality,
    TextSpan,
)
from core.documents.pdf.chapters import chapter_names, names_chapter
from core.documents.pdf.chars import Word
from core.documents.pdf.direction import right_to_left_line
from core.documents.pdf.headings import (
    NUMBER_ONLY,
    HeadingRules,
    numbering_depth,
    reads_as_sentence,
    style_of,
)
from core.documents.pdf.layout import Line, spaced_between
from core.documents.pdf.matter import page_roles
from core.documents.pdf.notes import opens_note
from core.documents.pdf.outline import assign_levels
from core.documents.pdf.tables import TableBlock
from core.documents.spans import TextBuilder, rows_to_markdown
from core.text.sentences import ends_sentence

BULLET = re.compile(r"^([•●▪◦‣∙·○■□➢➤►▸→✓✔\-–—*]|\d{1,3}[.)]|[a-z][.)])\s+(?=[\w(\"'“‘])")
HYPHENATED = re.compile(r"[^\W\d_][-\u00ad]$")
DASH_END = re.compile(r"\w[-\u2010\u2011\u2013\u2014]$")
PARAGRAPH_GAP = 0.8  # font sizes between two lines of one paragraph, at most (single spaced)
MIN_SPACING_GAPS = 5  # lines a column needs before its own usual spacing counts
RUN_IN_WORDS = 8  # a bold run-in heading has at most this many words
JUSTIFIED_WIDTH = 10  # font sizes: lines at least this long that end together are justified
SHORT_LINE = 0.3  # a line ending this share of the column's width short of its right edge


@dataclass
class _Block:
    kind: str  # heading, paragraph, list_item, table
    lines: list[Line] = field(default_factory=list)
    table: TableBlock | None = None
    prefix: list[Line] = field(default_factory=list)  # a heading's number line

    @property
    def page(self) -> int:
        return self.table.page if self.table else (self.prefix or self.lines)[0].page


def join_lines(texts: list[str]) -> str:
    return joined_lines(texts)[0]


def joined_lines(texts: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The lines as one text, and the span each line's text takes in it."""
    out = ""
    spans: list[tuple[int, int]] = []
    for text in texts:
        if not out:
            pass
        elif HYPHENATED.search(out) and text[:1].islower():
            out = out[:-1]
            spans[-1] = (spans[-1][0], min(spans[-1][1], len(out)))
        elif DASH_END.search(out) and text[:1].isdigit():
            pass  # a range or an identifier broken at its dash: "737–" "9", "FAA–" "2020"
        elif spaced_between(out, text):
            out += " "
        spans.append((len(out), len(out) + len(text)))
        out += text
    return out, spans


def _bullet(line: Line) -> re.Match[str] | None:
    first = line.words[0]
    if first.symbol and len(first.text) == 1 and len(line.words) > 1:
        return re.match(r"^\S+\s+", line.text)
    return BULLET.match(line.text)


class _Gatherer:
    """Blocks from lines, one line at a time."""

    def __init__(self, rules: HeadingRules, margins: dict[tuple[int, str], tuple[float, float]],
                 spacing: dict[tuple[int, str], float], roles: dict[int, MatterRole],
                 chapters: frozenset[str]) -> None:
        self.rules = rules
        self.roles = roles
        self.chapters = chapters
        self.margins = margins
        self.spacing = spacing
        self.blocks: list[_Block] = []
        self.notes: list[Line] = []  # footnotes waiting for the paragraph they interrupt to end

    def _last(self) -> _Block | None:
        return self.blocks[-1] if self.blocks else None

    def _near(self, above: Line, line: Line, factor: float = 1.0) -> bool:
        return (above.page == line.page and above.column == line.column
                and -0.5 * line.size <= line.top - above.bottom <= factor * max(above.size,
                                                                                line.size))

    def add_table(self, table: TableBlock) -> None:
        self.flush_notes()
        self.blocks.append(_Block("table", table=table))

    def flush_notes(self, at: int | None = None) -> None:
        """The waiting footnotes as blocks of their own (one per note mark), at ``at`` (the
        index of the block that ended their paragraph) or last."""
        found: list[_Block] = []
        for line in self.notes:
            if found and not opens_note(line):
                found[-1].lines.append(line)
            else:
                found.append(_Block("paragraph", [line]))
        self.notes = []
        at = len(self.blocks) if at is None else at
        self.blocks[at:at] = found

    def add(self, line: Line) -> None:
        """The line into the block it continues or a new one; a footnote waits until the
        paragraph it interrupts has ended."""
        if line.note:
            self.notes.append(line)
            return
        before, last = len(self.blocks), self._last()
        self._add(line)
        if self.notes and (len(self.blocks) != before or self._last() is not last):
            # a new block began: the notes go before it (where the prefix of a heading was
            # taken into it, before the heading)
            self.flush_notes(before if before and self.blocks[before - 1] is last
                             else before - 1)

    def _add(self, line: Line) -> None:
        last = self._last()
        prev = last.lines[-1] if last and last.lines else None
        role = self.roles.get(line.page)
        if role in ("contents", "figures", "index") and (
                (prev is not None and prev.page == line.page) or ENDS_IN_PAGE.search(line.text)):
            # a contents or index page: its title may be a heading, every entry is a line
            self.blocks.append(_Block("paragraph", [line]))
            return
        if role == "cover":
            # a cover's title, author list and publisher: lines, never headings; a line set
            # like the one above it and close under it goes on with it
            if (last and last.kind == "paragraph" and prev is not None
                    and style_of(prev) == style_of(line) and self._near(prev, line, 0.9)):
                last.lines.append(line)
            else:
                self.blocks.append(_Block("paragraph", [line]))
            return
        if self.rules.is_heading(line) or (names_chapter(line.text, self.chapters)
                                           and line.size >= self.rules.body):
            if (last and last.kind == "heading" and prev is not None
                    and style_of(prev) == style_of(line) and self._near(prev, line, 0.9)
                    and numbering_depth(line.text) is None
                    and len(" ".join(x.text for x in last.lines)) < 200):
                last.lines.append(line)
                return
            block = _Block("heading", [line])
            if (last and last.kind == "paragraph" and len(last.lines) == 1
                    and NUMBER_ONLY.match(last.lines[0].text) and prev is not None
                    and self._near(prev, line, 3.0)):
                self.blocks.pop()
                block.prefix = last.lines
            self.blocks.append(block)
            return
        if _bullet(line):
            self.blocks.append(_Block("list_item", [line]))
            return
        if last and prev is not None and last.kind in ("paragraph", "list_item"):
            if self._continues(last, prev, line):
                last.lines.append(line)
                return
        heading, rest = _run_in(line)
        if heading is not None and rest is not None:
            self.blocks += [_Block("heading", [heading]), _Block("paragraph", [rest])]
            return
        self.blocks.append(_Block("paragraph", [line]))

    def _continues(self, block: _Block, prev: Line, line: Line) -> bool:
        size = max(w.size for w in line.words)
        if abs(max(w.size for w in prev.words) - size) > 1.0:
            return False
        ended = ends_sentence(prev.text, clause=True)
        if prev.page != line.page or prev.column != line.column:
            # a column or page break inside a sentence
            # (it goes on in lower case, or in a script without capitals)
            letter = line.text[:1]
            return (block.kind == "paragraph" and not ended and letter.isalpha()
                    and not letter.isupper())
        if not self._near(prev, line, self.spacing.get((line.page, line.column), PARAGRAPH_GAP)):
            return False
        # measured along the reading direction: from the right edge in a right-to-left line
        rtl = right_to_left_line(line.text)
        at = _Reading(rtl)
        left, right = at.margins(*self.margins[(line.page, line.column)])
        prev_start, prev_end = at.extent(prev)
        start = at.extent(line)[0]
        first = at.words(line)[0]
        # the line broke early when the next line's first word would have fitted on it
        gaps = [b.x0 - a.x1 for a, b in zip(prev.words, prev.words[1:], strict=False)]
        space = min(statistics.median(gaps), 0.6 * size) if gaps else 0.3 * size
        room = right - (prev_end + space + (first.x1 - first.x0))
        early = room > 0.5 * size
        # a line that stops well short of the column, though the next word would fit: a
        # deliberate break (address lines, a caption), even without a full stop
        # (lines centred one under the other are one block of centred text, a title, a caption)
        centred = (abs(prev.x0 + prev.x1 - line.x0 - line.x1) < 2 * size
                   and min(prev_start, start) - left > size)
        # lines justified to one edge narrower than the column (a text box, a narrow
        # paragraph beside a figure) end where the block's other lines end
        end = at.extent(line)[1]
        justified = (-0.5 * size <= prev_start - start <= 6 * size
                     and prev_end - prev_start > JUSTIFIED_WIDTH * size
                     and _wordy(prev.text) and _wordy(line.text)
                     and any(abs(e - prev_end) < 0.5 for e in
                             [end, *(at.extent(ln)[1] for ln in block.lines[:-1])]))
        short = (early and prev_end < right - SHORT_LINE * (right - left) and not centred
                 and not justified)
        if block.kind == "list_item":
            opening = at.words(block.lines[0])
            text_x = at.extent(Line(opening[1:2], line.page))[0] if len(opening) > 1 else (
                at.extent(block.lines[0])[0])
            return start >= text_x - 0.5 * size or not early
        # a first-line indent starts a paragraph; in double-spaced text (transcripts, pleadings)
        # an indent after a full line that goes on mid-sentence is a hanging indent instead
        hanging = (line.page, line.column) in self.spacing and not ended and room <= size
        indented = (size <= start - left <= 6 * size and prev_start - left < 0.5 * size
                    and not hanging)
        run_in = ended and first.bold >= 0.9 and at.words(prev)[-1].bold < 0.5
        return not (indented or run_in or (ended and early) or short)


def _wordy(text: str) -> bool:
    """Most of the line is letters (running text, not a rule of dashes or a row of figures)."""
    return sum(c.isalpha() for c in text) >= 0.6 * sum(not c.isspace() for c in text)


def _run_in(line: Line) -> tuple[Line | None, Line | None]:
    """A bold run-in heading opening a paragraph ("Boots Self-Locking Nut. The nut…"): the
    heading's words and the rest of the line, or (None, None)."""
    words = line.words
    bold = next((k for k, w in enumerate(words) if w.bold < 0.9), len(words))
    if (not 2 <= bold <= RUN_IN_WORDS or len(words) - bold < 2 or words[bold].bold >= 0.5
            or any(w.mono for w in words[:bold]) or right_to_left_line(line.text)):
        return None, None
    heading = Line(words[:bold], line.page, line.column)
    text = heading.text
    if sum(c.isalpha() for c in text) < 4 or not (text[0].isupper()
                                                   or numbering_depth(text) is not None):
        return None, None
    return heading, Line(words[bold:], line.page, line.column)


@dataclass(frozen=True)
class _Reading:
    """Positions along a line's reading direction: x from the left edge, or, for a
    right-to-left line, the distance from the right edge (negated x)."""

    rtl: bool

    def margins(self, left: float, right: float) -> tuple[float, float]:
        return (-right, -left) if self.rtl else (left, right)

    def extent(self, line: Line) -> tuple[float, float]:
        """Where the line starts and ends, read in its direction."""
        return (-line.x1, -line.x0) if self.rtl else (line.x0, line.x1)

    def words(self, line: Line) -> list[Word]:
        return line.words[::-1] if self.rtl else line.words


def _spacing(lines: list[Line]) -> dict[tuple[int, str], float]:
    """For each column of each page, the gap (in font sizes) above which a line starts a new
    paragraph: :data:`PARAGRAPH_GAP`, or more where the lines are set double spaced (a
    transcript, a pleading) and three gaps in four are already that wide."""
    gaps: dict[tuple[int, str], list[float]] = {}
    for above, line in zip(lines, lines[1:], strict=False):
        if above.page == line.page and above.column == line.column and line.size > 0:
            gap = (line.top - above.bottom) / line.size
            if -0.5 <= gap <= 3.0:
                gaps.setdefault((line.page, line.column), []).append(gap)
    spacing = {}
    for key, found in gaps.items():
        if len(found) >= MIN_SPACING_GAPS:
            usual = sorted(found)[len(found) // 4]  # most gaps: a line's, not a paragraph's
            if usual + 0.4 > PARAGRAPH_GAP:
                spacing[key] = usual + 0.4
    return spacing


def _margins(lines: list[Line]) -> dict[tuple[int, str], tuple[float, float]]:
    found: dict[tuple[int, str], tuple[float, float]] = {}
    for line in lines:
        key = (line.page, line.column)
        left, right = found.get(key, (line.x0, line.x1))
        found[key] = (min(left, line.x0), max(right, line.x1))
    return found


def _heading_text(block: _Block) -> str:
    return join_lines([ln.text for ln in block.prefix + block.lines])


def write(items: list[Line | TableBlock], pages: list[PageInfo], quality: PdfQuality,
          notes: list[str]) -> ConvertedText:
    """The text, blocks, sections and tables of the document read as ``items``."""
    lines = [i for i in items if isinstance(i, Line)]
    roles = page_roles(lines, len(pages))
    pages = [p.model_copy(update={"role": roles.get(p.number)}) for p in pages]
    quality = quality.model_copy(update={"pages_set_apart": len(roles)})
    rules = HeadingRules.learn(lines)
    chapters = chapter_names([p.running for p in pages])
    gatherer = _Gatherer(rules, _margins(lines), _spacing(lines), roles, chapters)
    for item in items:
        if isinstance(item, TableBlock):
            gatherer.add_table(item)
        else:
            gatherer.add(item)
    gatherer.flush_notes()
    blocks = gatherer.blocks
    for block in blocks:
        if block.kind == "heading" and reads_as_sentence(_heading_text(block)):
            block.kind, block.lines, block.prefix = "paragraph", block.prefix + block.lines, []
    headings = [b for b in blocks if b.kind == "heading"]
    titles = [_heading_text(b) for b in headings]
    named = frozenset(k for k, title in enumerate(titles) if names_chapter(title, chapters))
    levels = dict(zip(map(id, headings), assign_levels(
        [(style_of(b.lines[0]), t) for b, t in zip(headings, titles, strict=True)], named),
        strict=True))
    builder = TextBuilder()
    boxes: list[LineBox] = []
    for block in blocks:
        written = len(builder.blocks)
        if block.table is not None:
            builder.table(rows_to_markdown(block.table.rows), block.table.rows, block.page)
        elif block.kind == "heading":
            builder.heading(_heading_text(block), levels[id(block)], block.page)
        elif block.kind == "list_item":
            text = join_lines([ln.text for ln in block.lines])
            match = _bullet(block.lines[0])
            builder.list_item(text[match.end():] if match else text, block.page)
        else:
            text = join_lines([ln.text for ln in block.lines])
            if not builder.trailing_caption(text, block.page):
                builder.paragraph(text, block.page)
        if len(builder.blocks) > written:
            boxes += _boxes(block, builder.blocks[-1])
    result = builder.result("pdf-offline", pages=len(pages), notes=notes)
    front = merge(result.front_matter, _page_matter(result.text, builder.blocks, roles))
    return result.model_copy(update={"page_info": pages, "quality": quality, "boxes": boxes,
                                     "front_matter": front})


def _page_matter(text: str, blocks: list[Block], roles: dict[int, MatterRole]
                 ) -> list[FrontMatter]:
    """The text read from each page with a role (a heading's marker in), as front matter."""
    spans: dict[int, tuple[int, int]] = {}
    for block in blocks:
        if block.page in roles:
            begin = marked_start(text, block.start)
            start, end = spans.get(block.page, (begin, block.end))
            spans[block.page] = (min(start, begin), max(end, block.end))
    return [FrontMatter(role=roles[page], start=start, end=end)
            for page, (start, end) in sorted(spans.items())]


def _boxes(block: _Block, span: TextSpan) -> list[LineBox]:
    """Where each line of ``block`` stands on its page and the span of the text it became
    (the block written at ``span``; its bullet, when it had one, left out)."""
    if block.table is not None:
        t = block.table
        return [LineBox(page=t.page, x0=t.x0, top=t.top, x1=t.x1, bottom=t.bottom,
                        start=span.start, end=span.end)]
    lines = block.prefix + block.lines
    text, spans = joined_lines([ln.text for ln in lines])
    shift = len(text) - (span.end - span.start)  # a bullet taken off the front
    out = []
    for line, (start, end) in zip(lines, spans, strict=True):
        start, end = max(start - shift, 0), end - shift
        if end > 0:
            out.append(LineBox(page=line.page, x0=round(line.x0, 2), top=round(line.top, 2),
                               x1=round(line.x1, 2), bottom=round(line.bottom, 2),
                               start=span.start + start, end=span.start + end))
    return out

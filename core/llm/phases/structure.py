"""Phase 1, structure analysis: the document's sections, as the model reads them.

The model reads the document (windowed when it exceeds the context) and answers one TSV line per
section: ``title level start end parent_title``, with anchor numbers (or, in offsets mode,
character offsets snapped to the nearest block start). A malformed answer fails the phase at once:
no second request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from core.documents.model import Document
from core.llm import anchors
from core.llm.anchors import Mode
from core.llm.cache import digest
from core.llm.client import AnswerCutError
from core.llm.errors import TSVError
from core.llm.phase import Phase, PhaseContext, window_budget
from core.llm.replies.checks import Line, folded, integer, max_answer_chars, too_many
from core.llm.replies.reader import Columns, tsv_lines
from core.llm.replies.repairs import Repairs, reject_or_repair, tolerantly
from core.llm.settings import LLMSettings
from core.llm.trial import PhaseInput, PhaseView, need
from core.prompts.template import PromptTemplate

ROOT = "ROOT"
DEFAULT_SNAP_TOLERANCE = 200
ROW_TOKENS = 30  # a section line: a title of a few words, three numbers and the parent
MAX_SECTIONS_PER_BLOCK = 3  # one per level: a block may start a chapter, section and subsection
# The most text one structure request carries, whatever the context allows: a 1.5B model given
# 4,000+ tokens echoed the document back instead of listing its sections, while windows of about
# 1,000 tokens were answered as asked.
MAX_WINDOW_TOKENS = 1500
HEADINGS = ("title", "heading")
COLUMNS = {
    "anchors": ("title", "level", "start_anchor", "end_anchor", "parent_title"),
    "offsets": ("title", "level", "start_char", "end_char", "parent_title"),
}
LABEL = "phase 1 (structure analysis)"


@dataclass(frozen=True)
class StructureRow:
    title: str
    level: int
    start: int  # anchor number or character offset, as the mode says
    end: int  # anchors: last block, inclusive; offsets: exclusive
    parent: str | None  # None for ROOT
    line_number: int
    line: str


@dataclass(frozen=True)
class LLMSection:
    """A section as the model sees it, mapped to offsets in ``Document.text``."""

    title: str
    level: int
    start: int
    end: int
    parent: str | None
    said_start: int  # what the model wrote: an anchor number or a character offset
    snap_distance: int  # characters the start moved to land on a block start (0 for anchors)


@dataclass(frozen=True)
class StructureResult:
    mode: Mode
    sections: list[LLMSection]
    template_version: str
    fallback: bool = False  # the document's own sections, because the model's answer failed

    def path(self, position: int) -> list[str]:
        """Titles of the sections containing ``position``, top level first."""
        inside = [s for s in self.sections if s.start <= position < s.end]
        return [s.title for s in sorted(inside, key=lambda s: (s.level, s.start))]


@dataclass(frozen=True)
class StructureWindow:
    """One request: a window of the document and what its answer is checked against."""

    document: Document
    mode: Mode
    blocks: list[anchors.AnchorBlock]  # the blocks shown, all of the document's blocks
    shown: list[anchors.AnchorBlock]  # the blocks of this window
    end: int  # where the window's text ends
    known_titles: frozenset[str] = frozenset()  # titles of earlier windows (parents may name them)
    snap_tolerance: int = DEFAULT_SNAP_TOLERANCE
    repairs: Repairs | None = field(default=None, compare=False)  # None: strict parsing

    @property
    def begin(self) -> int:
        return self.shown[0].start

    @property
    def text(self) -> str:
        if self.mode == "anchors":
            return anchors.render(self.document, self.shown, self.end)
        return self.document.text[self.begin : self.end]


def answer_columns(mode: Mode) -> Columns:
    """A section line's columns; the level and the two positions are integers."""
    return Columns(COLUMNS[mode], numeric=(1, 2, 3))


def _levels(document: Document) -> dict[str, int]:
    """The document's section levels (1-3) by folded title."""
    return {folded(s.title): min(max(s.level, 1), 3) for s in document.sections}


def _heading_text(document: Document, start: int, end: int) -> str:
    return document.text[start:end].lstrip("#").strip()


def placed_by_title(rows: list[StructureRow], shown: list[anchors.AnchorBlock],
                    document: Document, repairs: Repairs, label: str = LABEL,
                    ) -> list[StructureRow]:
    """Tolerant: rows whose title is a heading shown in the window start at that heading.

    Small models copy a heading's words faithfully but miscount block numbers (a real answer
    numbered its sections 1, 2, 3 … whatever their blocks). A row whose start block is not the
    heading its title names moves there (the nearest such heading when a title repeats), and
    the ends of moved rows are read again from the starts: a section ends before the next one
    of its level or above, or at the window's last block.
    """
    headings: dict[str, list[int]] = {}
    for block in shown:
        if block.kind in HEADINGS:
            title = folded(_heading_text(document, block.start, block.end))
            headings.setdefault(title, []).append(block.number)
    moved: set[int] = set()
    placed: list[StructureRow] = []
    seen = {(folded(row.title), row.start) for row in rows}
    for row in rows:
        numbers = headings.get(folded(row.title))
        if numbers and row.start not in numbers:
            start = min(numbers, key=lambda n: abs(n - row.start))
            if (folded(row.title), start) in seen:  # the same section, listed right elsewhere
                repairs.add("repeat_dropped", label, row.line_number, row.line,
                            f"the section {row.title!r} at {start} was listed before")
                continue
            seen.add((folded(row.title), start))
            repairs.add("anchor_from_title", label, row.line_number, row.line,
                        f"start anchor {row.start} read as {start}, the heading {row.title!r}")
            row = replace(row, start=start)
            moved.add(len(placed))
        placed.append(row)
    if not moved:
        return placed
    order = sorted(range(len(placed)), key=lambda k: placed[k].start)
    last = shown[-1].number
    for i, k in enumerate(order):
        if k in moved:
            after = next((placed[j].start for j in order[i + 1:]
                          if placed[j].level <= placed[k].level
                          and placed[j].start > placed[k].start), last + 1)
            placed[k] = replace(placed[k], end=max(placed[k].start, after - 1))
    return [placed[k] for k in order]


def _titles(document: Document) -> dict[str, str]:
    """The document's headings by their folded form, for tolerant title matching."""
    found = {folded(s.title): s.title for s in document.sections}
    for block in document.blocks:
        if block.kind in HEADINGS:
            title = _heading_text(document, block.start, block.end)
            found.setdefault(folded(title), title)
    return found


_TITLE_MARKUP = re.compile(r"^(?:#{1,6}\s*|\d{1,3}[.)]\s+|[-*+\u2022]\s+)|^\*\*|\*\*$")


def _match(title: str, known: dict[str, str], repairs: Repairs | None, label: str,
           line: Line) -> str:
    """``title`` as the document (or an earlier row) spells it, when tolerant and it differs
    only by case, whitespace or markup around it (``## ``, ``**``, a list number)."""
    if repairs is None:
        return title
    spelled = known.get(folded(title))
    if spelled is None:
        spelled = known.get(folded(_TITLE_MARKUP.sub("", title).strip()), title)
    if spelled != title:
        repairs.add("title_matched", label, line.number, line.text, f"{title!r} → {spelled!r}")
    return spelled


def _fixed(label: str, value: int, allowed: range, what: str, line: Line,
           repairs: Repairs | None) -> int:
    """Tolerant: ``value`` moved into ``allowed``, recorded (strict checks it before)."""
    if value in allowed or repairs is None:
        return value
    moved = min(max(value, allowed.start), allowed.stop - 1)
    repairs.add("value_fixed", label, line.number, line.text, f"{what} {value} read as {moved}")
    return moved


def parse_structure(
    text: str, mode: Mode = "anchors", *, label: str = LABEL,
    known_titles: frozenset[str] = frozenset(), repairs: Repairs | None = None,
    headings: dict[str, str] | None = None, max_rows: int | None = None,
    max_chars: int | None = None, levels: dict[str, int] | None = None,
) -> list[StructureRow]:
    """``title level start end parent_title`` per section, starts ascending, no section twice.

    Tolerant (``repairs`` given): titles and parents that differ from a heading (``headings``,
    folded → as written) or an earlier title only by case, whitespace or list numbering take its
    spelling; rows out of order are sorted, a row given twice is kept once, a level outside 1-3
    or an end before the start is moved to the nearest valid value (a heading's own level from
    ``levels``, folded title → level, when the row names one), and a parent that names no title
    becomes ROOT — each recorded.
    """
    columns = COLUMNS[mode]
    sections: list[StructureRow] = []
    titles = set(known_titles)
    spellings = {**(headings or {}), **{folded(t): t for t in known_titles}}
    seen: set[tuple[str, int]] = set()
    unordered: Line | None = None
    lines = tsv_lines(label, text, answer_columns(mode), repairs,
                      max_rows=max_rows, max_chars=max_chars)
    for line in lines:
        title, level_s, start_s, end_s, parent = line.cells
        if not title:
            reject_or_repair(repairs, "rows_dropped",
                             TSVError.on(label, "the title is empty", line),
                             "a section without title")
            continue
        level = integer(label, level_s, "level", line)
        own = (levels or {}).get(folded(title))
        if level not in (1, 2, 3) and own is not None and repairs is not None:
            repairs.add("value_fixed", label, line.number, line.text,
                        f"level {level} read as {own}, the level of the heading it names")
            level = own
        if level not in (1, 2, 3) and (repairs is None or not 0 <= level <= 4):
            reject_or_repair(repairs, "rows_dropped", TSVError.on(
                label, f"level must be 1, 2 or 3, got {level}", line),
                f"level {level}: the columns are not what they should be")
            continue
        if repairs is not None and not any(ch.isalpha() for ch in title):
            repairs.add("rows_dropped", label, line.number, line.text,
                        f"the title {title!r} has no words")
            continue
        level = _fixed(label, level, range(1, 4), "level", line, repairs)
        start = integer(label, start_s, columns[2], line)
        end = integer(label, end_s, columns[3], line)
        if end < start or (mode == "offsets" and end == start):
            relation = "<=" if mode == "anchors" else "<"
            reject_or_repair(None if mode == "offsets" else repairs, "value_fixed", TSVError.on(
                label, f"{columns[2]} must be {relation} {columns[3]}", line),
                f"end anchor {end} before start anchor {start} read as {start}")
            end = start
        if sections and start < sections[-1].start:
            if repairs is None:  # tolerant: sorted at the end, recorded once
                raise TSVError.on(label, f"sections must be in ascending order ({start} comes "
                                  f"after {sections[-1].start})", line)
            unordered = unordered or line
        title = _match(title, spellings, repairs, label, line)
        if (folded(title), start) in seen:
            reject_or_repair(repairs, "repeat_dropped", TSVError.on(
                label, f"the section {title!r} at {start} is listed twice", line),
                f"the section {title!r} at {start} was listed before")
            continue
        seen.add((folded(title), start))
        if parent != ROOT:
            parent = _match(parent, spellings, repairs, label, line)
        if parent != ROOT and parent not in titles and repairs is None:
            raise TSVError.on(label, f"parent_title {parent!r} is neither ROOT nor an earlier "
                              "title", line)
        titles.add(title)
        spellings.setdefault(folded(title), title)
        sections.append(StructureRow(title, level, start, end,
                                     None if parent == ROOT else parent, line.number, line.text))
    if repairs is None:
        return sections
    if not sections:
        raise TSVError.on(label, "no line names a section", lines[-1])
    too_many(label, sections, max_rows, lines[-1])
    for k, row in enumerate(sections):  # tolerant: a parent may be named before it is listed
        if row.parent is not None and row.parent not in titles:
            repairs.add("value_fixed", label, row.line_number, row.line,
                        f"parent {row.parent!r} names no section: read as ROOT")
            sections[k] = replace(row, parent=None)
    if unordered is not None:
        repairs.add("reordered", label, unordered.number, unordered.text, "sections sorted")
        sections.sort(key=lambda row: row.start)
    return sections


def document_sections(document: Document) -> list[LLMSection]:
    """The document's own sections (from its conversion) in the shape of the model's."""
    return [LLMSection(s.title, s.level, s.start, s.end, s.parent, s.start, 0)
            for s in document.sections]


def section_row(section: LLMSection, mode: Mode) -> dict[str, object]:
    """A section as a table row; where the model's position was moved only in offsets mode."""
    row: dict[str, object] = {"title": section.title, "level": section.level,
                              "start": section.start, "end": section.end,
                              "parent": section.parent or ""}
    if mode == "offsets":
        row["moved (chars)"] = section.snap_distance
    return row


class StructurePhase(Phase[StructureWindow, list[LLMSection]]):
    name = "structure_analysis"
    label = LABEL
    template = "structure_analysis"
    offsets_template = "structure_analysis_offsets"
    retries = 0
    temperature = 0.0
    falls_back = True
    text_placeholder = "document_text"
    stop = ("\n[", "END OF DOCUMENT")  # a section line never starts with a block marker

    def values(self, request: StructureWindow) -> dict[str, str]:
        return {"document_name": request.document.source_name, "document_text": request.text,
                "first_anchor": str(request.shown[0].number),
                "last_anchor": str(request.shown[-1].number)}

    def columns(self, request: StructureWindow) -> Columns:
        return answer_columns(request.mode)

    def answer_cap(self, request: StructureWindow) -> int:
        """A line per heading shown and one per four other blocks (text without headings),
        :data:`ROW_TOKENS` each: a model echoing the document stops early."""
        headings = sum(block.kind in HEADINGS for block in request.shown)
        others = len(request.shown) - headings
        return ROW_TOKENS * (headings + -(-others // 4) + 2)

    def subject(self, request: StructureWindow) -> str:
        return (f"{request.document.source_name} blocks {request.shown[0].number}-"
                f"{request.shown[-1].number}")

    def cache_content(self, request: StructureWindow) -> dict[str, object]:
        return {"text": digest(request.text), "window_start": request.begin}

    def parse(self, answer: str, request: StructureWindow) -> list[LLMSection]:
        return tolerantly(request.repairs, lambda repairs: self._parse(answer, request, repairs))

    def _parse(self, answer: str, request: StructureWindow,
               repairs: Repairs | None) -> list[LLMSection]:
        document, label = request.document, self.label
        rows = parse_structure(
            answer, request.mode, label=label, known_titles=request.known_titles,
            repairs=repairs, headings=_titles(document) if repairs is not None else None,
            max_rows=MAX_SECTIONS_PER_BLOCK * len(request.shown),
            max_chars=max_answer_chars(request.text),
            levels=_levels(document) if repairs is not None else None,
        )
        found = []
        if request.mode == "anchors":
            if repairs is not None:
                rows = placed_by_title(rows, request.shown, document, repairs, label)
            anchor_map = anchors.AnchorMap(request.blocks)
            outside: list[TSVError] = []
            for row in rows:
                try:
                    start = anchors.check_anchor(label, row.start, request.shown, row,
                                                 "start_anchor", repairs)
                    end = anchors.check_anchor(label, row.end, request.shown, row,
                                               "end_anchor", repairs, ends=True)
                except TSVError as err:
                    if repairs is None or len(outside) + 1 == len(rows):
                        raise
                    outside.append(err)  # tolerant: a row outside the text is dropped
                    continue
                found.append(LLMSection(row.title, row.level, anchor_map.offset(start),
                                        anchor_map.end(end), row.parent, row.start, 0))
            if outside and repairs is not None:
                repairs.add("rows_dropped", label, outside[0].line_number,
                            outside[0].line or "", "; ".join(e.reason for e in outside[:3]))
            return found
        candidates = sorted({b.start for b in request.blocks} | {len(document.text)})
        length = len(request.text)
        for row in rows:
            if row.end > length:
                raise TSVError.at(label, f"end_char {row.end} lies beyond the text "
                                  f"({length} characters)", row)
            start, moved = anchors.snap(document, request.begin + row.start, candidates,
                                        request.snap_tolerance)
            stop, _ = anchors.snap(document, request.begin + row.end, candidates,
                                   request.snap_tolerance)
            found.append(LLMSection(row.title, row.level, start, max(stop, start + 1),
                                    row.parent, row.start, moved))
        return found

    def windows(self, document: Document, mode: Mode, budget: int,
                snap_tolerance: int = DEFAULT_SNAP_TOLERANCE) -> list[StructureWindow]:
        blocks = anchors.anchor_blocks(document)
        budget = min(budget, MAX_WINDOW_TOKENS)
        shown = anchors.windows(document, blocks, budget) if blocks else []
        return [
            StructureWindow(document, mode, blocks, window,
                            shown[i + 1][0].start if i + 1 < len(shown) else len(document.text),
                            snap_tolerance=snap_tolerance)
            for i, window in enumerate(shown)
        ]

    def run(self, context: PhaseContext, document: Document,
            snap_tolerance: int = DEFAULT_SNAP_TOLERANCE,
            repairs: Repairs | None = None) -> StructureResult:
        """The document's sections, window by window; a window that begins mid-section lets
        that section continue instead of starting it again. Tolerant (``repairs`` given): an
        answer that cannot be repaired, or one the server cut at its token limit, gives the
        document's own sections instead. A document of a single block (a CSV table) has
        nothing to find: its own sections, asked nothing (a model asked makes up an outline)."""
        template = context.template(self)
        mode = context.mode(self)
        if len(anchors.anchor_blocks(document)) <= 1:
            return StructureResult(mode, document_sections(document), template.version)
        sections: list[LLMSection] = []
        try:
            for window in self.windows(document, mode, context.budget(self), snap_tolerance):
                window = replace(window, known_titles=frozenset(s.title for s in sections),
                                 repairs=repairs)
                found = context.ask(self, window)
                if (sections and found and found[0].start == window.begin
                        and window.shown[0].kind not in HEADINGS):
                    found = found[1:]
                sections += found
        except (TSVError, AnswerCutError) as err:
            reject_or_repair(repairs, "structure_fallback", err)
            return StructureResult(mode, document_sections(document), template.version,
                                   fallback=True)
        return StructureResult(mode, sections, template.version)

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> StructureWindow:
        document = need(source.document, "a document")
        windows = self.windows(document, template.mode or "anchors",
                               window_budget(settings, template))
        return need(windows[0] if windows else None, "a document with text")

    def test(self, context: PhaseContext, source: PhaseInput) -> PhaseView:
        result = self.run(context, need(source.document, "a document"))
        return PhaseView(
            rows=[section_row(s, result.mode) for s in result.sections],
            items=[f"{'  ' * (s.level - 1)}{s.title} [{s.start}-{s.end})"
                   for s in result.sections],
            spans=[(s.start, s.end, s.title) for s in result.sections],
        )


STRUCTURE = StructurePhase()

"""Phase 2, boundary detection: where chunks start inside one section.

The model reads the section (windowed when it exceeds the context) and answers one TSV line per
chunk start: ``position boundary_type justification``; the first line is the section's start
(``DOCUMENT_START``), the last marks its end (``DOCUMENT_END``). Positions are anchor numbers, or
character offsets snapped to the nearest block or sentence start. A malformed answer fails the
phase at once: no second request.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from core.chunking.chunk import FIRST_TYPE, LAST_TYPE, boundary_name
from core.documents.model import Document
from core.llm import anchors
from core.llm.anchors import Mode
from core.llm.cache import digest
from core.llm.client import AnswerCutError
from core.llm.errors import TSVError
from core.llm.phase import Phase, PhaseContext, window_budget
from core.llm.phases.structure import DEFAULT_SNAP_TOLERANCE
from core.llm.replies.checks import Line, integer, max_answer_chars, too_many
from core.llm.replies.reader import Columns, tsv_lines
from core.llm.replies.repairs import Repairs, reject_or_repair, tolerantly
from core.llm.settings import LLMSettings
from core.llm.trial import PhaseInput, PhaseView, need
from core.prompts.template import PromptTemplate
from core.tokens import count_tokens

CHARS_PER_TOKEN = 4  # the size limit is also shown in characters
INNER_TYPES = {"SECTION_BREAK", "SEMANTIC_SHIFT", "SIZE_CONSTRAINT"}
COLUMNS = {
    "anchors": ("anchor", "boundary_type", "justification"),
    "offsets": ("position", "boundary_type", "justification"),
}
LABEL = "phase 2 (boundary detection)"
ROW_TOKENS = 40  # an answer line: anchor, type and a justification of a dozen words
SHORT_SHARE = 0.5  # a section up to this share of the chunk size is one chunk, not asked
FALLBACK_WHY = "The model's answer could not be used: split by the recursive splitter"


@dataclass(frozen=True)
class SectionSpan:
    """A stretch of the document to cut into chunks, with the title the prompt shows."""

    title: str
    start: int
    end: int


@dataclass(frozen=True)
class BoundaryRow:
    position: int  # anchor number or character offset
    boundary_type: str
    justification: str
    line_number: int
    line: str


@dataclass(frozen=True)
class Boundary:
    """Where a chunk starts, why, and how far the model's position had to move."""

    position: int
    boundary_type: str
    justification: str
    said: int
    snap_distance: int


@dataclass(frozen=True)
class BoundaryResult:
    title: str
    start: int
    end: int
    boundaries: list[Boundary] = field(default_factory=list)


@dataclass(frozen=True)
class BoundaryWindow:
    """One request: a window of a section and what its answer is checked against."""

    document: Document
    mode: Mode
    section: SectionSpan
    blocks: list[anchors.AnchorBlock]  # all of the document's blocks
    shown: list[anchors.AnchorBlock]  # the blocks of this window
    begin: int
    end: int
    max_tokens: int
    snap_tolerance: int = DEFAULT_SNAP_TOLERANCE
    repairs: Repairs | None = field(default=None, compare=False)  # None: strict parsing

    @property
    def text(self) -> str:
        if self.mode == "anchors":
            return anchors.render(self.document, self.shown, self.end)
        return self.document.text[self.begin : self.end]


def boundary_row(boundary: Boundary, mode: Mode) -> dict[str, object]:
    """A boundary as a table row; what the model said and how far it moved only in offsets
    mode (an anchor lands on its block exactly)."""
    row: dict[str, object] = {"position": boundary.position,
                              "kind": boundary_name(boundary.boundary_type),
                              "justification": boundary.justification}
    if mode == "offsets":
        row["model said"] = boundary.said
        row["moved (chars)"] = boundary.snap_distance
    return row


def answer_columns(mode: Mode) -> Columns:
    """A boundary line's columns: an integer position, a type, a free-text justification."""
    return Columns(COLUMNS[mode], numeric=(0,), free=2)


def _rank(line: Line) -> int:
    kind = line.cells[1]
    return 0 if kind == FIRST_TYPE else 2 if kind == LAST_TYPE else 1


def _in_order(label: str, lines: list[Line], repairs: Repairs | None) -> list[Line]:
    """Tolerant: DOCUMENT_START first, DOCUMENT_END last, the rest by position (recorded)."""
    if repairs is None:
        return lines
    ordered = sorted(lines, key=lambda line: (_rank(line), int(line.cells[0])))
    moved = next((a for a, b in zip(lines, ordered, strict=True) if a is not b), None)
    if moved is not None:
        repairs.add("reordered", label, moved.number, moved.text, "boundaries sorted")
    return ordered


def _kind(label: str, line: Line, repairs: Repairs) -> Line:
    """Tolerant: a boundary type in other case, or one not on the list, read as the nearest
    allowed one (an unknown inner type as a topic shift), recorded."""
    kind = line.cells[1]
    known = kind.strip().upper().replace(" ", "_")
    allowed = INNER_TYPES | {FIRST_TYPE, LAST_TYPE}
    if known not in allowed:
        known = ("SECTION_BREAK" if "SECTION" in known else
                 "SIZE_CONSTRAINT" if "SIZE" in known else
                 FIRST_TYPE if "START" in known or "BEGIN" in known else
                 LAST_TYPE if "END" in known else "SEMANTIC_SHIFT")
    if known != kind:
        repairs.add("value_fixed", label, line.number, line.text,
                    f"boundary type {kind!r} read as {known}")
        return Line(line.number, line.text, [line.cells[0], known, line.cells[2]])
    return line


def _tolerant_rows(label: str, lines: list[Line], repairs: Repairs) -> list[BoundaryRow]:
    """Tolerant: types fixed, rows sorted, a position given twice kept once (recorded). The
    first and last rows need not be DOCUMENT_START and DOCUMENT_END: the phase knows where the
    section starts and ends."""
    lines = _in_order(label, [_kind(label, line, repairs) for line in lines], repairs)
    rows: list[BoundaryRow] = []
    for line in lines:
        position_s, kind, justification = line.cells
        position = int(position_s)
        repeat = next((r for r in rows if r.position == position), None)
        if repeat is not None and not (kind == LAST_TYPE and repeat.boundary_type != LAST_TYPE):
            repairs.add("repeat_dropped", label, line.number, line.text,
                        f"position {position} was given before")
            continue
        rows.append(BoundaryRow(position, kind, justification, line.number, line.text))
    return rows


def parse_boundaries(text: str, mode: Mode = "anchors", *, label: str = LABEL,
                     repairs: Repairs | None = None, max_rows: int | None = None,
                     max_chars: int | None = None) -> list[BoundaryRow]:
    """``position boundary_type justification``, strictly ascending, first/last rules.
    Tolerant (``repairs`` given): see :func:`_tolerant_rows`."""
    columns = COLUMNS[mode]
    lines = tsv_lines(label, text, answer_columns(mode), repairs,
                      max_rows=max_rows, max_chars=max_chars)
    if repairs is not None:
        rows = _tolerant_rows(label, lines, repairs)
        too_many(label, rows, max_rows, lines[-1])
        return rows
    boundaries: list[BoundaryRow] = []
    for index, line in enumerate(lines):
        position_s, kind, justification = line.cells
        position = integer(label, position_s, columns[0], line)
        is_first, is_last = index == 0, index == len(lines) - 1
        if is_first and kind != FIRST_TYPE:
            raise TSVError.on(label, f"the first boundary must be {FIRST_TYPE}, got {kind!r}",
                              line)
        if not is_first and kind == LAST_TYPE and not is_last:
            raise TSVError.on(label, f"{LAST_TYPE} may only be the last boundary", line)
        if not is_first and kind != LAST_TYPE and kind not in INNER_TYPES:
            allowed = ", ".join(sorted(INNER_TYPES | {LAST_TYPE}))
            raise TSVError.on(label, f"boundary_type must be one of {allowed}, got {kind!r}",
                              line)
        if boundaries and position <= boundaries[-1].position:
            if not (kind == LAST_TYPE and position == boundaries[-1].position):
                raise TSVError.on(label, f"positions must be ascending ({position} follows "
                                  f"{boundaries[-1].position})", line)
        boundaries.append(BoundaryRow(position, kind, justification, line.number, line.text))
    if len(boundaries) < 2 or boundaries[-1].boundary_type != LAST_TYPE:
        raise TSVError.on(label, f"the last boundary must be {LAST_TYPE}", lines[-1])
    return boundaries


class BoundariesPhase(Phase[BoundaryWindow, list[Boundary]]):
    name = "boundary_detection"
    label = LABEL
    template = "boundary_detection"
    inputs = ("document", "section", "max_tokens")
    offsets_template = "boundary_detection_offsets"
    retries = 0
    temperature = 0.0
    falls_back = True
    text_placeholder = "section_text"
    stop = ("\n[", "END OF SECTION")  # a boundary line never starts with a block marker

    def columns(self, request: BoundaryWindow) -> Columns:
        return answer_columns(request.mode)

    def values(self, request: BoundaryWindow) -> dict[str, str]:
        text = request.text
        return {
            "section_title": request.section.title,
            "section_text": text,
            "section_start": str(request.begin),
            "text_length": str(len(text)),
            "max_tokens": str(request.max_tokens),
            "max_chars": str(request.max_tokens * CHARS_PER_TOKEN),
            "first_anchor": str(request.shown[0].number),
            "last_anchor": str(request.shown[-1].number),
        }

    def answer_cap(self, request: BoundaryWindow) -> int:
        """A line per block and the end marker, :data:`ROW_TOKENS` each."""
        return ROW_TOKENS * (len(request.shown) + 2)

    def subject(self, request: BoundaryWindow) -> str:
        return (f"{request.document.source_name} blocks {request.shown[0].number}-"
                f"{request.shown[-1].number}")

    def cache_content(self, request: BoundaryWindow) -> dict[str, object]:
        return {"section": digest(request.section.title, request.begin, request.text),
                "max_tokens": request.max_tokens}

    def parse(self, answer: str, request: BoundaryWindow) -> list[Boundary]:
        return tolerantly(request.repairs, lambda repairs: self._parse(answer, request, repairs))

    def _parse(self, answer: str, request: BoundaryWindow,
               repairs: Repairs | None) -> list[Boundary]:
        """The rows mapped to offsets; two rows that land on one place keep the first."""
        label, mode = self.label, request.mode
        begin, end, tolerance = request.begin, request.end, request.snap_tolerance
        anchor_map = anchors.AnchorMap(request.blocks)
        candidates = anchors.boundary_candidates(request.document, request.blocks, begin, end)
        rows = parse_boundaries(
            answer, mode, label=label, repairs=repairs,
            max_rows=len(request.shown) + 1 if mode == "anchors" else len(candidates) + 1,
            max_chars=max_answer_chars(request.text),
        )
        if repairs is not None:
            return self._tolerant(rows, request, repairs, candidates)
        result: list[Boundary] = []
        for index, row in enumerate(rows):
            said = row.position
            if mode == "anchors":
                said = anchors.check_anchor(label, said, request.shown, row, "anchor", repairs,
                                            ends=row.boundary_type == LAST_TYPE)
            if row.boundary_type == LAST_TYPE:
                if mode == "offsets" and not begin <= said <= end + tolerance:
                    raise TSVError.at(label, f"{LAST_TYPE} {said} lies outside the "
                                      f"section ({begin}-{end})", row)
                continue
            if mode == "anchors":
                first = request.shown[0].number
                if index == 0 and said != first:
                    raise TSVError.at(label, f"the first boundary must be the section's first "
                                      f"anchor {first}, got {said}", row)
                position, moved = (begin if index == 0 else anchor_map.offset(said)), 0
            else:
                if not begin - tolerance <= said <= end:
                    raise TSVError.at(label, f"position {said} lies outside the section "
                                      f"({begin}-{end})", row)
                if index == 0:
                    position, moved = begin, abs(said - begin)
                else:
                    position, moved = anchors.snap(request.document, said, candidates,
                                                   tolerance)
            if (result and position <= result[-1].position) or position >= end:
                continue
            result.append(Boundary(position, row.boundary_type, row.justification,
                                   row.position, moved))
        return result

    def _tolerant(self, rows: list[BoundaryRow], request: BoundaryWindow, repairs: Repairs,
                  candidates: list[int]) -> list[Boundary]:
        """The chunk starts the rows name inside the window: the window's start always first,
        rows naming a place outside the window dropped (recorded; all of them: an error), the
        end marker only read as the end."""
        label, begin, end = self.label, request.begin, request.end
        anchor_map = anchors.AnchorMap(request.blocks)
        first, last = request.shown[0].number, request.shown[-1].number
        head = rows[0].justification if rows[0].boundary_type == FIRST_TYPE else ""
        result = [Boundary(begin, FIRST_TYPE, head, first if request.mode == "anchors"
                           else begin, 0)]
        outside: list[BoundaryRow] = []
        for row in rows:
            if row.boundary_type == LAST_TYPE:
                continue
            if request.mode == "anchors":
                if not first <= row.position <= last:
                    outside.append(row)
                    continue
                position, moved = anchor_map.offset(row.position), 0
            else:
                if not begin - request.snap_tolerance <= row.position <= end:
                    outside.append(row)
                    continue
                position, moved = anchors.snap(request.document, row.position, candidates,
                                               request.snap_tolerance)
            if position <= result[-1].position or position >= end:
                continue
            kind = "SEMANTIC_SHIFT" if row.boundary_type == FIRST_TYPE else row.boundary_type
            result.append(Boundary(position, kind, row.justification, row.position, moved))
        if outside:
            places = ", ".join(str(r.position) for r in outside[:8])
            where = f"anchors {first}-{last}" if request.mode == "anchors" else f"{begin}-{end}"
            if len(outside) == sum(r.boundary_type != LAST_TYPE for r in rows):
                raise TSVError.at(label, f"no line names a place in this text ({where}); the "
                                  f"answer named {places}", outside[0])
            repairs.add("rows_dropped", label, outside[0].line_number, outside[0].line,
                        f"{places} outside this text ({where})")
        return result

    def windows(self, document: Document, section: SectionSpan, max_tokens: int, mode: Mode,
                budget: int, snap_tolerance: int = DEFAULT_SNAP_TOLERANCE) -> list[BoundaryWindow]:
        blocks = anchors.anchor_blocks(document)
        inside = anchors.blocks_between(blocks, section.start, section.end)
        shown = anchors.windows(document, inside, budget)
        return [
            BoundaryWindow(document, mode, section, blocks, window,
                           section.start if i == 0 else window[0].start,
                           shown[i + 1][0].start if i + 1 < len(shown) else section.end,
                           max_tokens, snap_tolerance)
            for i, window in enumerate(shown)
        ]

    def run(self, context: PhaseContext, document: Document, section: SectionSpan,
            max_tokens: int, snap_tolerance: int = DEFAULT_SNAP_TOLERANCE,
            repairs: Repairs | None = None, *, keep_short: bool = False) -> BoundaryResult:
        """Chunk starts inside ``section``; a section of a single block is one chunk, asked
        nothing, and so is (``keep_short``: chunking, not a test of the template) one that
        fills at most :data:`SHORT_SHARE` of a chunk: cutting it would only make chunks too
        small to stand alone. A window edge is a forced cut, marked SIZE_CONSTRAINT."""
        windows = [replace(w, repairs=repairs) for w in self.windows(
            document, section, max_tokens, context.mode(self), context.budget(self),
            snap_tolerance)]
        why = ("A single block" if sum(len(w.shown) for w in windows) <= 1 else
               "A short section: one chunk" if keep_short and count_tokens(
                   document.text[section.start : section.end]) <= max_tokens * SHORT_SHARE
               else None)
        if why is not None:
            only = Boundary(section.start, FIRST_TYPE, why, section.start, 0)
            return BoundaryResult(section.title, section.start, section.end, [only])
        boundaries: list[Boundary] = []
        for i, window in enumerate(windows):
            found = self._ask(context, window, repairs)
            if i > 0:
                head = found[0]
                found[0] = Boundary(head.position, "SIZE_CONSTRAINT",
                                    "The section is longer than the model's context window",
                                    head.said, head.snap_distance)
            boundaries += found
        return BoundaryResult(section.title, section.start, section.end, boundaries)

    def _ask(self, context: PhaseContext, window: BoundaryWindow,
             repairs: Repairs | None) -> list[Boundary]:
        """The window's chunk starts; tolerant, an answer that cannot be repaired (or was cut)
        leaves the window to the recursive splitter: one boundary at its start, recorded."""
        try:
            return context.ask(self, window)
        except (TSVError, AnswerCutError) as err:
            reject_or_repair(repairs, "boundary_fallback", err,
                             f"“{window.section.title}”: {err.reason}")
            return [Boundary(window.begin, FIRST_TYPE, FALLBACK_WHY, window.begin, 0)]

    def first_request(self, source: PhaseInput, template: PromptTemplate,
                      settings: LLMSettings) -> BoundaryWindow:
        document = need(source.document, "a document")
        section = need(source.section, "a section")
        windows = self.windows(document, SectionSpan(section.title, section.start, section.end),
                               source.max_tokens, template.mode or "anchors",
                               window_budget(settings, template))
        return need(windows[0] if windows else None, "a section with text")

    def test(self, context: PhaseContext, source: PhaseInput) -> PhaseView:
        document = need(source.document, "a document")
        section = need(source.section, "a section")
        found = self.run(context, document,
                         SectionSpan(section.title, section.start, section.end),
                         source.max_tokens)
        cuts = [b.position for b in found.boundaries] + [found.end]
        return PhaseView(
            rows=[boundary_row(b, context.mode(self)) for b in found.boundaries],
            items=[f"chunk starts at {b.position} ({b.boundary_type})" for b in found.boundaries],
            spans=[(start, stop, f"chunk {i + 1}")
                   for i, (start, stop) in enumerate(zip(cuts, cuts[1:], strict=False))],
        )


BOUNDARIES = BoundariesPhase()

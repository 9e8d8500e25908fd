"""The LLM phases of seed 000, one function each, every one taking its ``PromptTemplate``.

Phase 1 ``analyze_structure`` and phase 2 ``detect_boundaries`` fail fast on a malformed answer
(no retry); phase 3 ``chunk_metadata``, 3b ``contextual_prefix`` and ``table_summary`` ask once
more. Transient HTTP failures are the client's business. Each answer is validated by
:mod:`core.llm.tsv`, positions are mapped to exact offsets (anchors, or snapped characters), and
validated answers are cached (:mod:`core.llm.cache`). A template whose name ends in ``_offsets``
selects the seed's literal character-offset contract; every other template uses anchors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from core.documents.model import Document
from core.errors import TemplateError
from core.llm import anchors as anchor_mod
from core.llm.cache import LLMCache, digest
from core.llm.client import LLMClient, LLMError
from core.llm.tsv import (
    BoundaryRow,
    MetadataRow,
    Mode,
    TSVError,
    parse_boundaries,
    parse_metadata,
    parse_prefix,
    parse_structure,
    parse_table_summary,
)
from core.prompts.library import PromptTemplate
from core.tokens import count_tokens

T = TypeVar("T")
CONTENT_RETRIES = {"structure_analysis": 0, "boundary_detection": 0}  # others: one retry
PROMPT_MARGIN_TOKENS = 64
MIN_WINDOW_TOKENS = 256
DEFAULT_SNAP_TOLERANCE = 200
HEADINGS = ("title", "heading")
TEXT_PLACEHOLDER = {
    "structure_analysis": "document_text",
    "boundary_detection": "section_text",
    "chunk_metadata": "chunk_text",
    "contextual_prefix": "chunk_text",
    "table_summary": "table_markdown",
}


class Span(Protocol):
    title: str
    start: int
    end: int


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

    def path(self, position: int) -> list[str]:
        """Titles of the sections containing ``position``, top level first."""
        inside = [s for s in self.sections if s.start <= position < s.end]
        return [s.title for s in sorted(inside, key=lambda s: (s.level, s.start))]


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


def mode_of(template: PromptTemplate) -> Mode:
    return "offsets" if template.name.endswith("_offsets") else "anchors"


def _render(template: PromptTemplate, phase: str, values: dict[str, Any]) -> str:
    rendered = template.render(values)
    needed = TEXT_PLACEHOLDER.get(phase)
    if needed and needed in rendered.unused:
        raise TemplateError(
            f"Template {template.label} never uses {{{{{needed}}}}}, so the model would not see "
            "the text; add the placeholder."
        )
    return rendered.text


def ask(
    client: LLMClient,
    template: PromptTemplate,
    values: dict[str, Any],
    parse: Callable[[str], T],
    *,
    phase: str,
    cache: LLMCache | None,
    content: dict[str, Any],
) -> T:
    """Render, consult the cache, call the model, validate; retry content errors per phase."""
    prompt = _render(template, phase, values)
    settings = client.settings
    key = LLMCache.key(phase, template.version, settings.model, settings.temperature, **content)
    if cache is not None:
        cached = cache.get(key)
        if cached is not None:
            return parse(cached)
    last: TSVError | None = None
    for _ in range(CONTENT_RETRIES.get(phase, 1) + 1):
        response = client.complete(prompt, phase=phase, template_version=template.version)
        if cache is not None:
            cache.count_request(response.prompt_tokens, response.completion_tokens)
        try:
            value = parse(response.text)
        except TSVError as err:
            err.log_path = client.log.path
            last = err
            continue
        if cache is not None:
            cache.put(key, phase, response.text)
        return value
    assert last is not None
    raise last


def _window_budget(client: LLMClient, template: PromptTemplate) -> int:
    settings = client.settings
    budget = (
        settings.context_tokens
        - settings.max_tokens
        - count_tokens(template.text)
        - PROMPT_MARGIN_TOKENS
    )
    if budget < MIN_WINDOW_TOKENS:
        raise LLMError(
            f"the model's context ({settings.context_tokens} tokens) leaves no room for text "
            f"after the prompt and {settings.max_tokens} answer tokens; raise the context size "
            "or lower max tokens in Settings"
        )
    return budget


def _window_end(windows: list[list[anchor_mod.Unit]], i: int, end: int) -> int:
    return windows[i + 1][0].start if i + 1 < len(windows) else end


def _window_text(
    document: Document, window: list[anchor_mod.Unit], mode: Mode, begin: int, end: int
) -> str:
    """What the model reads: anchored blocks, or (offsets mode) the raw text."""
    if mode == "anchors":
        return anchor_mod.render(document, window, end)
    return document.text[begin:end]


def _check_anchor(phase: str, number: int, allowed: range, row: Any, what: str) -> None:
    if number not in allowed:
        raise TSVError.at(
            phase,
            f"{what} {number} is not an anchor of this text (anchors {allowed.start}-"
            f"{allowed.stop - 1})",
            row,
        )


# --- phase 1 -------------------------------------------------------------------------------
def analyze_structure(
    client: LLMClient,
    document: Document,
    template: PromptTemplate,
    *,
    cache: LLMCache | None = None,
    snap_tolerance: int = DEFAULT_SNAP_TOLERANCE,
) -> StructureResult:
    """Phase 1: the document's sections, windowed when the text exceeds the model's context."""
    phase = "structure_analysis"
    mode = mode_of(template)
    all_units = anchor_mod.units(document)
    if not all_units:
        return StructureResult(mode, [], template.version)
    windows = anchor_mod.windows(document, all_units, _window_budget(client, template))
    anchor_map = anchor_mod.AnchorMap(all_units)
    candidates = sorted({u.start for u in all_units} | {len(document.text)})
    sections: list[LLMSection] = []
    for i, window in enumerate(windows):
        end = _window_end(windows, i, len(document.text))
        begin = window[0].start
        text = _window_text(document, window, mode, begin, end)
        allowed = range(window[0].number, window[-1].number + 1)
        known = frozenset(s.title for s in sections)

        def parse(answer: str, allowed=allowed, known=known, begin=begin, end=end, text=text):
            rows = parse_structure(answer, mode, phase=phase, known_titles=known)
            found = []
            for row in rows:
                if mode == "anchors":
                    _check_anchor(phase, row.start, allowed, row, "start_anchor")
                    _check_anchor(phase, row.end, allowed, row, "end_anchor")
                    start = anchor_map.offset(row.start)
                    stop = anchor_map.end(row.end)
                    found.append(LLMSection(row.title, row.level, start, stop, row.parent,
                                            row.start, 0))
                    continue
                if row.end > len(text):
                    raise TSVError.at(phase, f"end_char {row.end} lies beyond the text "
                                   f"({len(text)} characters)", row)
                start, moved = anchor_mod.snap(document, begin + row.start, candidates,
                                               snap_tolerance)
                stop, _ = anchor_mod.snap(document, begin + row.end, candidates, snap_tolerance)
                found.append(LLMSection(row.title, row.level, start, max(stop, start + 1),
                                        row.parent, row.start, moved))
            return found

        values = {"document_name": document.source_name, "document_text": text}
        found = ask(client, template, values, parse, phase=phase, cache=cache,
                    content={"text": digest(text), "window_start": begin})
        if sections and found and found[0].start == begin and window[0].kind not in HEADINGS:
            found = found[1:]  # the window began mid-section: that section continues
        sections += found
    return StructureResult(mode, sections, template.version)


# --- phase 2 -------------------------------------------------------------------------------
def detect_boundaries(
    client: LLMClient,
    document: Document,
    section: Span,
    template: PromptTemplate,
    max_tokens: int,
    *,
    cache: LLMCache | None = None,
    snap_tolerance: int = DEFAULT_SNAP_TOLERANCE,
) -> BoundaryResult:
    """Phase 2: where chunks start inside ``section``; one request per window of the section.

    A section of a single block needs no question: it is one chunk.
    """
    phase = "boundary_detection"
    mode = mode_of(template)
    all_units = anchor_mod.units(document)
    inside = anchor_mod.units_between(all_units, section.start, section.end)
    first = Boundary(section.start, "DOCUMENT_START", "A single block", section.start, 0)
    if len(inside) <= 1:
        return BoundaryResult(section.title, section.start, section.end, [first])
    anchor_map = anchor_mod.AnchorMap(all_units)
    windows = anchor_mod.windows(document, inside, _window_budget(client, template))
    boundaries: list[Boundary] = []
    for i, window in enumerate(windows):
        begin = section.start if i == 0 else window[0].start
        end = _window_end(windows, i, section.end)
        candidates = anchor_mod.boundary_candidates(document, all_units, begin, end)
        allowed = range(window[0].number, window[-1].number + 1)
        text = _window_text(document, window, mode, begin, end)

        def parse(answer: str, allowed=allowed, begin=begin, end=end, candidates=candidates):
            return _map_boundaries(
                document, parse_boundaries(answer, mode, phase=phase), mode, allowed, begin, end,
                anchor_map, candidates, snap_tolerance,
            )

        values = {
            "section_title": section.title,
            "section_text": text,
            "section_start": begin,
            "text_length": len(text),
            "max_tokens": max_tokens,
            "max_chars": max_tokens * 4,
        }
        found = ask(client, template, values, parse, phase=phase, cache=cache,
                    content={"section": digest(section.title, begin, text),
                             "max_tokens": max_tokens})
        if i > 0:  # a window edge is a forced cut, not the model's section start
            head = found[0]
            found[0] = Boundary(head.position, "SIZE_CONSTRAINT",
                                "The section is longer than the model's context window",
                                head.said, head.snap_distance)
        boundaries += found
    return BoundaryResult(section.title, section.start, section.end, boundaries)


def _map_boundaries(
    document: Document,
    rows: list[BoundaryRow],
    mode: Mode,
    allowed: range,
    begin: int,
    end: int,
    anchor_map: anchor_mod.AnchorMap,
    candidates: list[int],
    tolerance: int,
) -> list[Boundary]:
    phase = "boundary_detection"
    result: list[Boundary] = []
    for index, row in enumerate(rows):
        if row.boundary_type == "DOCUMENT_END":
            if mode == "anchors":
                _check_anchor(phase, row.position, allowed, row, "anchor")
            elif not begin <= row.position <= end + tolerance:
                raise TSVError.at(phase, f"DOCUMENT_END {row.position} lies outside the section "
                               f"({begin}-{end})", row)
            continue
        if mode == "anchors":
            _check_anchor(phase, row.position, allowed, row, "anchor")
            if index == 0 and row.position != allowed.start:
                raise TSVError.at(phase, f"the first boundary must be the section's first anchor "
                               f"{allowed.start}, got {row.position}", row)
            position, moved = anchor_map.offset(row.position), 0
            if index == 0:
                position = begin
        else:
            if not begin - tolerance <= row.position <= end:
                raise TSVError.at(phase, f"position {row.position} lies outside the section "
                               f"({begin}-{end})", row)
            if index == 0:
                position, moved = begin, abs(row.position - begin)
            else:
                position, moved = anchor_mod.snap(document, row.position, candidates, tolerance)
        if result and position <= result[-1].position:
            continue  # two answers snapped to one place: keep the first
        if position >= end:
            continue
        result.append(Boundary(position, row.boundary_type, row.justification, row.position,
                               moved))
    return result


# --- phase 3, 3b and table summaries -------------------------------------------------------
def chunk_metadata(
    client: LLMClient,
    document: Document,
    chunk_text: str,
    template: PromptTemplate,
    *,
    chapter: str,
    section: str,
    cache: LLMCache | None = None,
) -> MetadataRow:
    values = {"document_id": document.source_name, "chapter_title": chapter,
              "section_title": section, "chunk_text": chunk_text}
    return ask(client, template, values, parse_metadata, phase="chunk_metadata", cache=cache,
               content={"chunk": digest(chunk_text, document.source_name, chapter, section)})


def contextual_prefix(
    client: LLMClient,
    document: Document,
    chunk_text: str,
    template: PromptTemplate,
    *,
    chapter: str,
    section: str,
    subsection: str | None,
    cache: LLMCache | None = None,
) -> str:
    values = {"document_id": document.source_name, "chapter_title": chapter,
              "section_title": section, "subsection_title": subsection or "no subsection",
              "chunk_text": chunk_text}
    return ask(client, template, values, parse_prefix, phase="contextual_prefix", cache=cache,
               content={"chunk": digest(chunk_text, document.source_name, chapter, section,
                                        subsection)})


def table_summary(
    client: LLMClient,
    document: Document,
    table_markdown: str,
    template: PromptTemplate,
    *,
    heading_path: list[str],
    caption: str | None,
    cache: LLMCache | None = None,
) -> str:
    path = " > ".join(heading_path) or document.source_name
    values = {"document_id": document.source_name, "heading_path": path,
              "table_caption": caption or "none", "table_markdown": table_markdown}
    return ask(client, template, values, parse_table_summary, phase="table_summary",
               cache=cache, content={"chunk": digest(table_markdown, document.source_name, path,
                                                     caption)})

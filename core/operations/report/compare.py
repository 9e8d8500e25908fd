"""The report of a comparison: what the Compare page shows of one document's chunkings, in one
file — the document, each configuration (strategy and settings), the figures table as the page
shows it (chunk counts, sizes, tables, starts, what the embedder reads) and each one's integrity
checks with the places they found."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.chunking.checks import Check
from core.documents.model import Document
from core.operations.chunk_review import FIGURE_DETAILS, ChunkReview, shown_figures
from core.operations.report.markup import Section, definitions, esc, render, table

PLACES_SHOWN = 20  # places listed per check; the count says how many there are in all


@dataclass(frozen=True)
class ComparedConfiguration:
    """One column of Compare: its label, the strategy and settings it chunks with, and its
    review — None with the ``problem`` (or an empty document) that left it without chunks."""

    label: str
    strategy: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    review: ChunkReview | None = None
    problem: str = ""


def _name(slot: int, config: ComparedConfiguration) -> str:
    return f"{slot + 1}. {config.label}"


def _settings(settings: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {json.dumps(v, ensure_ascii=False)}"
                     for k, v in sorted(settings.items())) or "defaults"


def _figures(configs: Sequence[ComparedConfiguration]) -> str:
    shown = {_name(slot, c): shown_figures(c.review)
             for slot, c in enumerate(configs) if c.review is not None}
    if not shown:
        return '<p class="note">No configuration has chunks to count.</p>'
    rows = list(next(iter(shown.values())))
    return table(["", *shown], [[esc(row), *(esc(column[row]) for column in shown.values())]
                                for row in rows], numeric=tuple(range(1, len(shown) + 1)))


def _places(check: Check) -> str:
    listed = "".join(f"<li>{esc(place.describe())}</li>"
                     for place in check.places[:PLACES_SHOWN])
    more = check.count - PLACES_SHOWN
    return (f'<ul class="note">{listed}</ul>'
            + (f'<p class="note">… and {more:,} more.</p>' if more > 0 else ""))


def _checks(slot: int, config: ComparedConfiguration) -> str:
    head = f"<h3>{esc(_name(slot, config))}</h3>"
    if config.review is None:
        return head + f'<p class="note">{esc(config.problem or "No chunks.")}</p>'
    found = [c for c in config.review.integrity.checks if c.count]
    if not found:
        return head + '<p class="badge yes">Every check passes.</p>'
    rows = [[f'<span class="badge {"no" if c.invariant else ""}">{esc(c.summary())}</span>',
             "broken promise" if c.invariant else "warning", _places(c)] for c in found]
    return head + table(["Check", "Kind", "Where"], rows)


def compare_report(document: Document, configs: Sequence[ComparedConfiguration]) -> bytes:
    """The whole report of ``configs`` compared on ``document``."""
    inputs = definitions([
        ("Document", document.source_name),
        ("Length", f"{len(document.text):,} characters, {len(document.sections):,} sections, "
                   f"{len(document.tables):,} tables"),
    ]) + table(["", "Configuration", "Strategy", "Settings", "Chunks"], [
        [str(slot + 1), esc(c.label), esc(c.strategy), esc(_settings(c.settings)),
         f"{c.review.stats.chunks:,}" if c.review else esc(c.problem or "none")]
        for slot, c in enumerate(configs)], numeric=(0, 4))
    sections = [
        Section("inputs", "Configurations", inputs),
        Section("figures", "Figures", _figures(configs) + definitions(FIGURE_DETAILS.items())),
        Section("checks", "Integrity checks",
                "".join(_checks(slot, c) for slot, c in enumerate(configs))),
    ]
    return render(f"Compare on {document.source_name}",
                  f"{len(configs)} configurations side by side", sections, charts=False)

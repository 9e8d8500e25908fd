"""What the Prompts page tries a phase on (:class:`PhaseInput`: a document and the piece the
phase reads, a conversation, or a question) and what the trial shows (:class:`PhaseView`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from core.assembly.citations import CitationCheck
from core.documents.model import Document, Section, Table, TextSpan
from core.errors import TemplateError

T = TypeVar("T")
DEFAULT_MAX_TOKENS = 512


@dataclass(frozen=True)
class Conversation:
    current_topic: str = ""
    context: str = ""
    message: str = ""


@dataclass(frozen=True)
class PhaseInput:
    """What a template is tried on in the Prompts page: a document and the piece the phase
    reads (a section, a chunk, a table), a conversation, or a question for the RAG answer."""

    document: Document | None = None
    section: Section | None = None
    chunk: TextSpan | None = None
    table: Table | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    conversation: Conversation = Conversation()
    question: str = ""
    locale: str | None = None
    references: int = 3


def need(value: T | None, what: str) -> T:
    """``value``, or the sentence telling the user which input to pick."""
    if value is None:
        raise TemplateError(f"Pick {what} under Input first.")
    return value


@dataclass(frozen=True)
class PhaseView:
    """A phase's result as the Prompts page shows it."""

    rows: list[dict[str, Any]] = field(default_factory=list)  # the parsed answer as a table
    items: list[str] = field(default_factory=list)  # one line per parsed item, for A/B diffs
    spans: list[tuple[int, int, str]] = field(default_factory=list)  # drawn on the document
    warning: str | None = None
    check: CitationCheck | None = None  # an answer's citation markers, checked
    references: list[str] = field(default_factory=list)  # sources a RAG answer was given:
    # a title line, then the passage


def marked(span: TextSpan | None, label: str) -> list[tuple[int, int, str]]:
    """The piece a test was about, to draw on the document."""
    return [] if span is None else [(span.start, span.end, label)]

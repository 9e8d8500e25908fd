"""The chapter, section and subsection titles a chunk's prompts show, from its heading path.

The one place this lookup lives: the pipeline passes the LLM's structure path (or the
document's), the Prompts page the document's.
"""

from __future__ import annotations

from dataclasses import dataclass

NO_SUBSECTION = "no subsection"


@dataclass(frozen=True)
class HeadingContext:
    chapter: str
    section: str
    subsection: str | None

    @classmethod
    def of(cls, path: list[str], document_name: str) -> HeadingContext:
        """Top-level heading (else the document's name), the next (else the chapter), the
        third (else none)."""
        chapter = path[0] if path else document_name
        section = path[1] if len(path) > 1 else chapter
        return cls(chapter, section, path[2] if len(path) > 2 else None)


@dataclass(frozen=True)
class ChunkRequest:
    """A chunk's text with what its prompts show around it (metadata and prefix phases)."""

    document_name: str
    text: str
    context: HeadingContext

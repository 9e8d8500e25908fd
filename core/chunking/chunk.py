"""The chunk model every strategy produces and every later stage reads.

Invariant: ``chunk.text == document.text[chunk.start:chunk.end]``. A part of a table split by
rows (every part but the first) carries the table's header lines in ``table_header``, outside
its span; :attr:`Chunk.display_text` is what to show and embed. What only the LLM strategy
knows about a chunk (why it starts where it does, its summary, its contextual prefix) is the
typed :class:`LLMAnnotations` part, absent for every other strategy.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.documents.model import MatterRole, PageBox

ChunkType = Literal["text", "table"]
_set = object.__setattr__  # what a frozen model's own ``__setattr__`` refuses


class MissingAnnotation(BaseModel):
    """An annotation the model was asked for and did not give: the chunk keeps its boundaries
    and goes without it."""

    model_config = ConfigDict(frozen=True)

    field: Literal["summary", "context_prefix"]
    error: str  # the sentence naming the phase and what went wrong


FIRST_TYPE = "DOCUMENT_START"  # the LLM's first boundary starts the section …
LAST_TYPE = "DOCUMENT_END"  # … its last marks the end (it starts no chunk)
BOUNDARY_NAMES = {  # what the user reads for each boundary type
    FIRST_TYPE: "document start",
    "SECTION_BREAK": "section break",
    "SEMANTIC_SHIFT": "topic shift",
    "SIZE_CONSTRAINT": "size limit",
    LAST_TYPE: "section end",
}


def boundary_name(kind: str) -> str:
    return BOUNDARY_NAMES.get(kind, kind.replace("_", " ").lower())


class LLMAnnotations(BaseModel):
    """What the LLM strategy adds to a chunk."""

    model_config = ConfigDict(frozen=True)

    boundary_type: str  # DOCUMENT_START, SECTION_BREAK, SEMANTIC_SHIFT or SIZE_CONSTRAINT
    justification: str
    summary: str | None = None  # the chunk's summary, or a table chunk's table summary
    context_prefix: str | None = None  # one sentence put in front of the text when embedding
    missing: tuple[MissingAnnotation, ...] = ()  # asked for, but the model's answer failed


class Chunk(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    doc_id: str
    strategy: str
    config: dict[str, Any]
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    chunk_type: ChunkType = "text"
    tokens: int
    heading_path: list[str] = []
    table_header: str | None = None  # header lines of a table part that does not hold them
    llm: LLMAnnotations | None = None
    pages: list[int] = []  # pages of the original the span was read from (1-based)
    boxes: list[PageBox] = []  # the lines' boxes on those pages (PDFs read offline)
    # mostly a cover, contents, a list of figures or an index (Document.matter_of): left out
    # of retrieval by default (core.retrieval.front_matter)
    front_matter: MatterRole | None = None

    @classmethod
    def trusted(cls, **values: Any) -> Chunk:
        """A chunk from every field's value, each already of its right type: no validation
        and none of ``model_construct``'s per-field alias and default lookups (speed: a
        quarter of the time a chunk took to make). What ``model_construct`` sets, set here."""
        chunk = cls.__new__(cls)
        _set(chunk, "__dict__", values)
        _set(chunk, "__pydantic_fields_set__", set(values))
        _set(chunk, "__pydantic_extra__", None)
        _set(chunk, "__pydantic_private__", None)
        return chunk

    @property
    def display_text(self) -> str:
        """The text as a reader (and the embedder) should see it: a table part's header in
        front of its rows; else the text itself."""
        return f"{self.table_header}\n{self.text}" if self.table_header else self.text

    @property
    def summary(self) -> str | None:
        """The LLM's summary of this chunk, when it has one."""
        return self.llm.summary if self.llm else None

    @property
    def context_prefix(self) -> str | None:
        """The LLM's contextual prefix of this chunk, when it has one."""
        return self.llm.context_prefix if self.llm else None

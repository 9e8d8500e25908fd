"""What a template is previewed and tested on, and the placeholder values that input gives.

The workbench runs a template on one piece of one document: the whole document (structure), a
section (boundaries), a chunk (metadata, prefix), a table (table summary), a short conversation
(topic) or a question with references (RAG). :func:`values_for` turns that piece into exactly the
placeholder values the LLM phases fill, so the preview shows the prompt the model would get.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.documents.model import Document, Section, Span, Table

DEFAULT_MAX_TOKENS = 512
CHARS_PER_TOKEN = 4
NO_SUBSECTION = "no subsection"


@dataclass(frozen=True)
class Conversation:
    current_topic: str = ""
    context: str = ""
    message: str = ""


@dataclass(frozen=True)
class PromptInput:
    document: Document | None = None
    section: Section | None = None
    chunk: Span | None = None
    table: Table | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    conversation: Conversation = Conversation()


def anchored_text(document: Document, start: int, end: int) -> str:
    """The text between ``start`` and ``end`` as numbered blocks (``[n] …``), as phases send it."""
    from core.llm import anchors  # the LLM phases' own numbering

    return anchors.render(document, anchors.units_between(anchors.units(document), start, end), end)


def titles_at(document: Document, position: int) -> tuple[str, str, str]:
    """Chapter, section and subsection titles around ``position`` (placeholders of phase 3)."""
    path = document.heading_path(position)
    chapter = path[0] if path else document.source_name
    section = path[1] if len(path) > 1 else chapter
    subsection = path[2] if len(path) > 2 else NO_SUBSECTION
    return chapter, section, subsection


def values_for(name: str, source: PromptInput) -> dict[str, str]:
    """Placeholder values for template ``name``; what the input lacks is simply not there."""
    values: dict[str, str] = {}
    doc = source.document
    if name == "topic_detection":
        from core.prompts.topic import topic_values

        talk = source.conversation
        return topic_values(talk.current_topic, talk.context, talk.message)
    if doc is None:
        return values
    values["document_name"] = doc.source_name
    values["document_id"] = doc.source_name
    if name == "structure_analysis":
        values["document_text"] = anchored_text(doc, 0, len(doc.text))
    elif name == "structure_analysis_offsets":
        values["document_text"] = doc.text
    if source.section is not None and name.startswith("boundary_detection"):
        section = source.section
        text = (doc.slice(section) if name.endswith("_offsets")
                else anchored_text(doc, section.start, section.end))
        values.update(
            section_title=section.title,
            section_start=str(section.start),
            text_length=str(len(text)),
            max_tokens=str(source.max_tokens),
            max_chars=str(source.max_tokens * CHARS_PER_TOKEN),
            section_text=text,
        )
    if source.chunk is not None and name in ("chunk_metadata", "contextual_prefix"):
        chapter, section_title, subsection = titles_at(doc, source.chunk.start)
        values.update(chapter_title=chapter, section_title=section_title,
                      subsection_title=subsection, chunk_text=doc.slice(source.chunk))
    if source.table is not None and name == "table_summary":
        table = source.table
        values.update(
            heading_path=" > ".join(doc.heading_path(table.start)) or doc.source_name,
            table_caption=table.caption or "none",
            table_markdown=table.markdown,
        )
    return values

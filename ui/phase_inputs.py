"""The inputs a prompt template is tried on, drawn from what its phase asks for
(:func:`core.operations.prompts.inputs.needs`): a document and a section, chunk or table of it,
a conversation, or a question for the RAG answer."""

from __future__ import annotations

import streamlit as st

from core.llm.trial import Conversation, PhaseInput
from core.operations.prompts import inputs
from core.prompts.rag_fields import locale_names
from core.prompts.template import PromptTemplate
from ui.render import md_escape
from ui.resources import answer_settings
from ui.state import pick_document

SAMPLE_CONVERSATION = Conversation(
    current_topic="home insurance deductibles",
    context="user: What is my deductible for water damage?\n"
    "assistant: The policy sets a deductible of 500 EUR per water damage claim.",
    message="And does the policy cover damage from a burst pipe in winter?",
)


def choose_input(working: PromptTemplate) -> PhaseInput:
    """The widgets for what the template's phase is tried on."""
    needs = inputs.needs(working)
    cols = st.columns([3, 3, 2])
    if "conversation" in needs:
        talk = SAMPLE_CONVERSATION
        return PhaseInput(conversation=Conversation(
            current_topic=cols[0].text_input("Current topic", talk.current_topic,
                                             key="pw_topic"),
            context=cols[1].text_area("Recent conversation", talk.context, key="pw_context",
                                      height=100),
            message=cols[2].text_area("Latest message", talk.message, key="pw_message",
                                      height=100),
        ))
    with cols[0]:
        document = pick_document(key="pw_doc", fits=needs.document_fits)
    if document is None:
        return PhaseInput()
    source = PhaseInput(document=document)
    if "section" in needs:
        sections = list(document.sections)
        if not sections:
            st.info("This document has no sections; use another document.")
            return source
        index = cols[1].selectbox(
            "Section", range(len(sections)), key="pw_section",
            index=inputs.default_section(document),
            format_func=lambda i: "  " * (sections[i].level - 1) + sections[i].title)
        source = PhaseInput(document=document, section=sections[index])
    if "max_tokens" in needs:
        max_tokens = cols[2].number_input("Max chunk tokens", 64, 8192, 512, 64,
                                          key="pw_max_tokens")
        source = PhaseInput(document=document, section=source.section,
                            max_tokens=int(max_tokens))
    if "chunk" in needs and source.section is not None:
        passages = inputs.passages(document, source.section)
        index = cols[2].selectbox(
            "Chunk", range(len(passages)), key="pw_chunk",
            format_func=lambda i: f"#{i + 1} · {document.slice(passages[i])[:40]}…")
        source = PhaseInput(document=document, section=source.section, chunk=passages[index])
    if "table" in needs:
        tables = list(document.tables)
        if not tables:
            st.info("This document has no tables; pick one that has (e.g. the policy).")
            return source
        index = cols[1].selectbox("Table", range(len(tables)), key="pw_table",
                                  format_func=lambda i: tables[i].caption or f"Table {i + 1}")
        source = PhaseInput(document=document, table=tables[index])
    if "question" in needs:
        source = question_input(working, source, cols)
    return source


def question_input(working: PromptTemplate, source: PhaseInput, cols: list) -> PhaseInput:
    """Locale, references and question for the RAG template (the answer model and temperature
    are set on the Settings page)."""
    answer = answer_settings()
    locales = [*locale_names(working.text), "ja-JP"]
    locale = cols[1].selectbox("Locale", locales, key="pw_locale",
                               index=locales.index(answer.locale) if answer.locale in locales
                               else 0)
    references = cols[2].slider("References", 0, 6, 3, key="pw_refs")
    question = st.text_input("Question (sent after the system prompt when testing)",
                             "What does the policy say about water damage?", key="pw_question")
    st.caption(md_escape(f"Answers use {answer.model or 'the connection model'} at "
                         f"temperature {answer.temperature:g} (Settings page)."))
    return PhaseInput(document=source.document, question=question, locale=locale,
                      references=int(references))

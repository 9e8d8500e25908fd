"""The one answer prompt as the pages edit and pick it: the prompt library's ``rag_system``
template, its variants (``default`` is the shipped text) and its fields of one locale as text
boxes (:mod:`core.prompts.rag_fields`)."""

from __future__ import annotations

from core.assembly.citations import MARKERS_READ
from core.prompts.library import DEFAULT, PromptLibrary
from core.prompts.locales import DEFAULT_LOCALE, TEMPLATE_NAME, locale_names
from core.prompts.rag_fields import FIELDS, RagField, field_values, with_field

__all__ = ["DEFAULT", "DEFAULT_LOCALE", "FIELDS", "MARKERS_READ", "TEMPLATE_NAME", "RagField",
           "answer_variants", "field_values", "locale_names", "with_field"]


def answer_variants(library: PromptLibrary) -> list[str]:
    """Every variant of the answer prompt an answer run can send, the shipped text first."""
    return [DEFAULT, *library.variants(TEMPLATE_NAME)]

"""Assembly: the RAG prompt from retrieval packs (numbered citations, token budget), and the
check of an answer's citation markers against it."""

from core.assembly.citations import CitationCheck, MarkerHit, check_citations
from core.assembly.model import (
    CITATION_STYLES,
    ESTIMATORS,
    STYLES,
    AssembledPrompt,
    Budget,
    Citation,
    CitationStyle,
    Estimator,
    PromptPair,
    Style,
    characters_label,
    page_label,
)
from core.assembly.prompt import AssemblyError, SystemPrompt, assemble_prompt, marker

__all__ = [
    "CITATION_STYLES", "ESTIMATORS", "STYLES", "AssembledPrompt", "AssemblyError", "Budget",
    "Citation", "CitationCheck", "CitationStyle", "Estimator", "MarkerHit", "PromptPair", "Style",
    "SystemPrompt", "assemble_prompt", "characters_label", "check_citations", "marker",
    "page_label",
]

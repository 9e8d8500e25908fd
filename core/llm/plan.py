"""How many model calls LLM chunking of some documents will make, and how long that takes at
the server's measured speed — told before the run starts.

The structure phase's windows are counted exactly (they depend on the text and the context
only). What comes after depends on the sections the model finds, so it is counted from the
document's own sections (its headings) as the model is likely to find them: a boundary call
per section longer than a short one (per window of a long one), and, with summaries, a call per
:data:`~core.llm.phases.metadata.GROUP_SIZE` chunks, one per table, and one per chunk when
prefixes are asked. The run corrects the time as it goes (:class:`core.progress.Tracker`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from core.documents.model import Document
from core.llm.client import TIKTOKEN_MARGIN
from core.llm.errors import LLMError
from core.llm.gate import gate_for
from core.llm.phase import MIN_WINDOW_TOKENS, Phase, window_budget
from core.llm.phases import BOUNDARIES, METADATA, STRUCTURE
from core.llm.phases.boundaries import SHORT_SHARE
from core.llm.phases.chunk_phase import DOCUMENT_WINDOW_TOKENS
from core.llm.phases.metadata import GROUP_SIZE
from core.llm.pipeline import LLMConfig
from core.llm.settings import LLMSettings
from core.llm.speed import Estimate, estimate
from core.prompts.library import PromptLibrary
from core.tokens import count_tokens

SECTION_ANSWER_TOKENS = 25  # a structure row: title, level, anchors, parent
BOUNDARY_ANSWER_TOKENS = 20  # a boundary row: anchor, kind, a few words of why
SUMMARY_ANSWER_TOKENS = 40  # a summary row: 10-25 words
TABLE_ANSWER_TOKENS = 60
PREFIX_ANSWER_TOKENS = 50


@dataclass
class _Calls:
    calls: int = 0
    prompt_tokens: int = 0
    answer_tokens: int = 0

    def add(self, calls: int, prompt_tokens: int, answer_tokens: int) -> None:
        self.calls += calls
        self.prompt_tokens += calls * prompt_tokens
        self.answer_tokens += calls * answer_tokens


@dataclass(frozen=True)
class ChunkingEstimate:
    calls: int
    time: Estimate

    def sentence(self) -> str:
        """"LLM chunking: about N model calls: about M min at this server's measured pace" or
        why no time is told."""
        return self.time.sentence(f"LLM chunking: about {self.calls:,} model "
                                  f"call{'s' * (self.calls != 1)}")


def _budget(phase: Phase[Any, Any], settings: LLMSettings, library: PromptLibrary,
            config: LLMConfig) -> tuple[int, int]:
    """(tokens of text one request of ``phase`` carries, tokens of its template)."""
    template = library.template(phase.template_name(config.mode))
    try:
        budget = window_budget(settings, template, answer_tokens=phase.answer_limit(settings),
                               ratio=TIKTOKEN_MARGIN)
    except LLMError:
        budget = MIN_WINDOW_TOKENS  # the run will say the context is too small
    return budget, count_tokens(template.text)


def chunking_estimate(documents: list[Document], config: LLMConfig, settings: LLMSettings,
                      library: PromptLibrary) -> ChunkingEstimate:
    """The model calls LLM chunking of ``documents`` with ``config`` makes, and their time at
    the speed measured for ``settings``' server and model (after the requests already at its
    gate); answers kept in the LLM cache are counted as calls too."""
    total = _Calls()
    structure, structure_template = _budget(STRUCTURE, settings, library, config)
    boundary, boundary_template = _budget(BOUNDARIES, settings, library, config)
    summary_template = _budget(METADATA, settings, library, config)[1]
    for document in documents:
        windows = STRUCTURE.windows(document, config.mode, structure)
        leaves = _leaf_sections(document)
        total.add(len(windows), structure_template + count_tokens(document.text) // max(
            len(windows), 1), SECTION_ANSWER_TOKENS * max(len(leaves) // max(len(windows), 1),
                                                          1))
        chunks = 0
        for tokens in leaves:
            chunks += max(1, math.ceil(tokens / config.size))
            if tokens > config.size * SHORT_SHARE:
                total.add(math.ceil(tokens / boundary), boundary_template + min(tokens, boundary),
                          BOUNDARY_ANSWER_TOKENS * max(1, math.ceil(tokens / config.size)))
        if not config.summaries:
            continue
        shown = min(count_tokens(document.text), DOCUMENT_WINDOW_TOKENS)
        total.add(math.ceil(chunks / GROUP_SIZE), summary_template + shown,
                  GROUP_SIZE * SUMMARY_ANSWER_TOKENS)
        total.add(len(document.tables), shown, TABLE_ANSWER_TOKENS)
        if config.context_prefix == "asked":
            total.add(chunks, shown, PREFIX_ANSWER_TOKENS)
    calls = max(total.calls, 1)
    time = estimate(settings.base_url, settings.model, total.calls, total.prompt_tokens / calls,
                    total.answer_tokens / calls, ahead=gate_for(settings.base_url).busy())
    return ChunkingEstimate(total.calls, time)


def _leaf_sections(document: Document) -> list[int]:
    """Tokens of each section that holds no other (the whole text when it has no headings)."""
    sections = document.sections
    leaves = [s for s in sections
              if not any(o is not s and s.start <= o.start and o.end <= s.end and
                         (o.start, o.end) != (s.start, s.end) for o in sections)]
    if not leaves:
        return [count_tokens(document.text)] if document.text.strip() else []
    return [count_tokens(document.text[s.start:s.end]) for s in leaves]

"""How many tokens the passages of one question may take by default: what the user's answer
model can take. Assemble keeps the best passages within it (``python -m core assemble`` without
``--headroom`` or ``--context-tokens``), and a tune's recommendation retrieves no more per
question on average.

The passages share the answer model's context with the system prompt and the headroom
Assemble keeps for the answer, and a prompt that fills the context is slow and costly on every
question; so the budget is the context less those, at most a quarter of the context, rounded
down to a hundred. Without a configured answer model it is :data:`FALLBACK_TOKENS`. ``--budget
none`` (or unticking the Tune page's box) lifts it for a tune.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.assembly.prompt import builtin_system_prompt
from core.llm.settings import LLMSettings, load_settings
from core.operations.assemble.run import AssemblyOptions
from core.tokens import count_tokens

FALLBACK_TOKENS = 2000
CONTEXT_SHARE = 4  # at most a quarter of the context
ROUND_TO = 100


@dataclass(frozen=True)
class TokenBudget:
    """The most tokens a question may retrieve on average (None: no limit), and where that
    figure comes from, in words."""

    tokens: int | None
    source: str

    def to_json(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "source": self.source}


def default_budget(settings: LLMSettings | None = None) -> TokenBudget:
    """The budget the configured answer model allows (``settings``: default the saved ones)."""
    settings = settings or load_settings()
    if not settings.configured:
        return TokenBudget(FALLBACK_TOKENS, f"no answer model is configured: "
                                            f"{FALLBACK_TOKENS:,} tokens")
    context = settings.context_tokens
    options = AssemblyOptions()
    system = count_tokens(builtin_system_prompt(options.style, options.citation_style))
    room = min(context - system - options.headroom, context // CONTEXT_SHARE)
    tokens = max(ROUND_TO, room // ROUND_TO * ROUND_TO)
    return TokenBudget(tokens, f"a quarter of the {context:,}-token context of the answer "
                               f"model {settings.model}, less the system prompt and headroom: "
                               f"{tokens:,} tokens")


def given_budget(tokens: int | None) -> TokenBudget:
    """A budget the user chose (None: none)."""
    if tokens is None:
        return TokenBudget(None, "no budget (lifted by the user)")
    return TokenBudget(tokens, f"set by the user: {tokens:,} tokens")

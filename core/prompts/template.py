"""One prompt template as the app uses it (:class:`PromptTemplate`): its text and version, its
placeholders and the answer format its phase parses. :mod:`core.prompts.library` keeps them."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.prompts.contracts import OutputContract
from core.prompts.substitution import Substitution, substitute

DEFAULT = "default"  # the variant name of the shipped template

Syntax = Literal["placeholders", "rag_json"]
Mode = Literal["anchors", "offsets"]  # how a structure/boundary template names positions


def text_version(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


class PromptTemplate(BaseModel):
    """One template as the app uses it: the default or a named variant."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    description: str
    phase: str  # the name of the LLM phase that sends this template
    mode: Mode | None = None  # set for the templates of the position-naming phases
    text: str
    version: str
    variant: str | None = None  # None: the shipped default
    placeholders: dict[str, str]  # name → one-line description
    contract: OutputContract
    syntax: Syntax = "placeholders"

    @property
    def label(self) -> str:
        return f"{self.name}@{self.variant or DEFAULT}"

    def render(self, values: Mapping[str, object]) -> Substitution:
        return substitute(self.text, values, self.placeholders)

    def with_text(self, text: str, variant: str | None = None) -> PromptTemplate:
        """The same template with edited text (e.g. unsaved editor content) and its version."""
        return self.model_copy(update={"text": text, "version": text_version(text),
                                       "variant": variant})

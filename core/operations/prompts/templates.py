"""The templates as the editor lists and checks them: in the order their phases run, each with
what is wrong with it (errors), what is probably not meant (warnings), or the sentence saying it
is fine."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.llm.phases import PHASES
from core.prompts.checks import check_template
from core.prompts.library import PromptLibrary
from core.prompts.template import PromptTemplate


def names_in_phase_order(library: PromptLibrary) -> list[str]:
    """Template names in the order their phases run (structure first), then by name."""
    order = list(PHASES)

    def rank(name: str) -> tuple[int, str]:
        phase = library.default(name).phase
        return (order.index(phase) if phase in order else len(order), name)

    return sorted(library.names(), key=rank)


@dataclass(frozen=True)
class Review:
    errors: list[str] = field(default_factory=list)  # the template cannot be used as it is
    warnings: list[str] = field(default_factory=list)  # it can, but probably not as meant
    passed: str = ""  # with neither: what was checked and found fine


def review(template: PromptTemplate) -> Review:
    """The editor's checks of ``template`` (:func:`~core.prompts.checks.check_template`), with
    the sentence a clean template earns: a RAG template's fields, else its placeholders."""
    checks = check_template(template)
    if checks.errors or checks.warnings:
        return Review(checks.errors, checks.warnings)
    return Review(passed="Every field of every locale is filled." if template.syntax == "rag_json"
                  else "Every placeholder is known and used.")

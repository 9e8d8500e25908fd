"""Every LLM phase, one module each, looked up by name (a template's ``phase`` names its own).

structure → boundaries → metadata, prefix and table summary make the LLM chunking pipeline;
topic detection, the RAG answer, the answer judge and the writing of (answerable and
unanswerable) test questions are asked on their own.
"""

from core.errors import TemplateError
from core.llm.phase import Phase
from core.llm.phases.answer import ANSWER
from core.llm.phases.boundaries import BOUNDARIES
from core.llm.phases.judge import JUDGE
from core.llm.phases.metadata import METADATA
from core.llm.phases.prefix import PREFIX
from core.llm.phases.question_generation import QUESTION_GENERATION
from core.llm.phases.structure import STRUCTURE
from core.llm.phases.table_summary import TABLE_SUMMARY
from core.llm.phases.topic import TOPIC
from core.llm.phases.unanswerable import UNANSWERABLE_QUESTION
from core.prompts.template import PromptTemplate

PHASES: dict[str, Phase] = {
    phase.name: phase
    for phase in (STRUCTURE, BOUNDARIES, METADATA, PREFIX, TABLE_SUMMARY, TOPIC, ANSWER,
                  QUESTION_GENERATION, UNANSWERABLE_QUESTION, JUDGE)
}


def phase_of(template: PromptTemplate) -> Phase:
    """The phase that sends ``template``."""
    if template.phase not in PHASES:
        raise TemplateError(f"Template {template.name!r} belongs to no phase that can run it.")
    return PHASES[template.phase]


__all__ = ["ANSWER", "BOUNDARIES", "JUDGE", "METADATA", "PHASES", "PREFIX", "STRUCTURE",
           "TABLE_SUMMARY", "TOPIC", "UNANSWERABLE_QUESTION", "phase_of"]

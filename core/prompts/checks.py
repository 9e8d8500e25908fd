"""What the template editor warns about: unknown or unused placeholders, a broken answer format."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.errors import ChunkLabError
from core.prompts.locales import parse_locales
from core.prompts.substitution import substitute
from core.prompts.template import PromptTemplate


@dataclass(frozen=True)
class Checks:
    errors: list[str] = field(default_factory=list)  # the template cannot be used as it is
    warnings: list[str] = field(default_factory=list)  # it can, but probably not as meant


def _mentions(text: str, word: str) -> bool:
    return word.lower() in text.lower()


def check_template(template: PromptTemplate) -> Checks:
    """What the editor warns about: unknown or unused placeholders, a broken answer format."""
    if not template.text.strip():
        return Checks(errors=["The template is empty."])
    if template.syntax == "rag_json":
        try:
            parse_locales(template.text)
        except ChunkLabError as err:
            return Checks(errors=[str(err)])
        return Checks()
    found = substitute(template.text, {}, template.placeholders)
    warnings = [
        f"{{{{{name}}}}} is not a placeholder of this template: it reaches the model as "
        f"written. Known: {', '.join(template.placeholders)}."
        for name in found.unknown
    ]
    warnings += [
        f"{{{{{name}}}}} is not used: the model will not see {template.placeholders[name][0]}"
        f"{template.placeholders[name][1:]}."
        for name in found.unused
    ]
    contract = template.contract
    names = contract.columns if contract.kind == "tsv" else contract.fields
    absent = [n for n in names if not _mentions(template.text, n)]
    if absent:
        what = "columns" if contract.kind == "tsv" else "JSON fields"
        warnings.append(
            f"The parser expects the {what} {', '.join(names)}, but the template never names "
            f"{', '.join(absent)}: the model may answer in another format."
        )
    return Checks(warnings=warnings)

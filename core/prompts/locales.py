"""The RAG answer's system prompt from a JSON template with locales.

The template is ``{"default": {...}, "ja": {...}, ...}`` (a ``{"rag": {...}}`` wrapper is
accepted too). A locale is merged deeply over ``default``; ``ja-JP`` resolves to ``ja-JP``, then
``ja``, then ``default``. The header's ``{role}``, ``{background}`` and ``{request}`` are filled
from the locale's fields by exact replacement: no ``str.format``, other braces stay as written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from core.errors import TemplateError

TEMPLATE_NAME = "rag_system"
DEFAULT_LOCALE = "default"
HEADER_FIELDS = ("role", "background", "request")
REQUIRED_TEXT = ("header", *HEADER_FIELDS, "format_instruction")
SECTION_KEYS = ("rules", "format", "reference")
REFERENCE_KEYS = ("lead", "footer", "empty")
HEADER_SLOT = re.compile(r"\{(" + "|".join(HEADER_FIELDS) + r")\}")


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` over ``base``: nested objects merge key by key; lists and values replace."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def resolve_locale(locale: str | None, available: list[str] | tuple[str, ...] | Any) -> str:
    """The best locale key: exact (``ja-JP``), then the language (``ja``), then ``default``.

    Accepts an Accept-Language value (``ja,en;q=0.9`` → its first entry) and ``ja_JP``.
    """
    keys = {str(k).lower(): str(k) for k in available}
    if locale:
        first = locale.split(",")[0].split(";")[0].strip().replace("_", "-").lower()
        for candidate in (first, first.split("-")[0]):
            if candidate and candidate in keys:
                return keys[candidate]
    return DEFAULT_LOCALE


def _require_text(where: str, value: Any, key: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise TemplateError(f'The RAG template {where} needs a non-empty text "{key}".')


def _validate_locale(name: str, entry: Mapping[str, Any]) -> None:
    where = f'locale "{name}"'
    for key in REQUIRED_TEXT:
        _require_text(where, entry.get(key), key)
    rules = entry.get("rules", [])
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise TemplateError(f'The RAG template {where} needs "rules" as a list of texts.')
    for group, keys in (("section_titles", SECTION_KEYS), ("reference", REFERENCE_KEYS)):
        value = entry.get(group)
        if not isinstance(value, Mapping):
            raise TemplateError(f'The RAG template {where} needs a "{group}" object.')
        for key in keys:
            _require_text(where, value.get(key), f"{group}.{key}")


def validate_locales(template: Mapping[str, Any]) -> dict[str, Any]:
    """The locale table, checked: every locale merged over default has every field."""
    if "rag" in template and isinstance(template["rag"], Mapping):
        template = template["rag"]
    if not isinstance(template.get(DEFAULT_LOCALE), Mapping):
        raise TemplateError('The RAG template needs a "default" locale object.')
    for name, entry in template.items():
        if not isinstance(entry, Mapping):
            raise TemplateError(f'The RAG template locale "{name}" is not a JSON object.')
        _validate_locale(name, deep_merge(template[DEFAULT_LOCALE], entry))
    return dict(template)


def parse_locales(text: str) -> dict[str, Any]:
    """Parse the editor's JSON text of the RAG template, with a sentence for each mistake."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise TemplateError(
            f"The RAG template is not valid JSON: {err.msg} at line {err.lineno}, "
            f"column {err.colno}."
        ) from None
    if not isinstance(data, dict):
        raise TemplateError("The RAG template must be a JSON object of locales.")
    return validate_locales(data)


def locale_prompt(template: Mapping[str, Any], locale: str | None) -> dict[str, Any]:
    """The resolved locale's fields, merged deeply over default."""
    template = validate_locales(template)
    key = resolve_locale(locale, list(template))
    return deep_merge(template[DEFAULT_LOCALE], template.get(key, {}))


def build_system_prompt(
    locale: str | None, references: list[str], template: Mapping[str, Any]
) -> str:
    """The system prompt: header, numbered rules, format, reference materials (or the empty text),
    from the locale table ``template``."""
    prompt = locale_prompt(template, locale)
    header = HEADER_SLOT.sub(lambda m: str(prompt[m.group(1)]), prompt["header"])
    titles, reference = prompt["section_titles"], prompt["reference"]
    parts = [header.strip()]
    if prompt.get("rules"):
        numbered = "\n".join(f"{i}. {rule}" for i, rule in enumerate(prompt["rules"], start=1))
        parts.append(f"{titles['rules']}\n{numbered}")
    parts.append(f"{titles['format']}\n{prompt['format_instruction']}")
    entries = [ref.strip() for ref in references if ref and ref.strip()]
    if entries:
        body = "\n\n".join([reference["lead"], *entries, reference["footer"]])
    else:
        body = reference["empty"]
    parts.append(f"{titles['reference']}\n{body}")
    return "\n\n".join(parts)


"""The RAG answer template edited as text: its fields (header, role, rules, format, reference
texts…) of one locale read from and written into the template's JSON locale table, so the
Prompts page shows text boxes, not JSON. A locale other than ``default`` keeps only what differs
from ``default`` (its fields fall back to it, :func:`core.prompts.locales.deep_merge`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.errors import TemplateError
from core.prompts.locales import DEFAULT_LOCALE, deep_merge, parse_locales


@dataclass(frozen=True)
class RagField:
    path: tuple[str, ...]  # where it sits in a locale's object
    label: str
    lines: bool = False  # a list of texts, one per line (the rules)
    long: bool = False  # a text box of several lines

    @property
    def key(self) -> str:
        return ".".join(self.path)


FIELDS = (
    RagField(("header",), "Header (uses {role}, {background} and {request})", long=True),
    RagField(("role",), "Role"),
    RagField(("background",), "Background"),
    RagField(("request",), "Request"),
    RagField(("rules",), "Rules, one per line (numbered in the prompt)", lines=True, long=True),
    RagField(("format_instruction",), "Format", long=True),
    RagField(("reference", "lead"), "Before the passages"),
    RagField(("reference", "footer"), "After the passages"),
    RagField(("reference", "empty"), "When there is no passage"),
    RagField(("section_titles", "rules"), "Title of the rules"),
    RagField(("section_titles", "format"), "Title of the format"),
    RagField(("section_titles", "reference"), "Title of the passages"),
)


def locale_names(text: str) -> list[str]:
    """The locales of an edited RAG template; just "default" while its JSON is broken."""
    try:
        return list(parse_locales(text))
    except TemplateError:
        return [DEFAULT_LOCALE]


def edited_locale(chosen: str | None, text: str) -> str:
    """The locale the fields show: the one chosen while the template still has it, else
    default."""
    return chosen if chosen in locale_names(text) else DEFAULT_LOCALE


def _get(entry: dict[str, Any], path: tuple[str, ...]) -> Any:
    for part in path:
        entry = entry.get(part, {}) if isinstance(entry, dict) else {}
    return entry


def field_values(text: str, locale: str) -> dict[str, str]:
    """Every field of ``locale`` (merged over default) as text; raises TemplateError for a
    template that does not parse."""
    table = parse_locales(text)
    merged = deep_merge(table[DEFAULT_LOCALE], table.get(locale, {}))
    out = {}
    for field in FIELDS:
        value = _get(merged, field.path)
        out[field.key] = "\n".join(value) if field.lines else str(value)
    return out


def with_field(text: str, locale: str, field: RagField, value: str) -> str:
    """The template's JSON with ``field`` of ``locale`` set to ``value`` (rules: one per
    non-empty line); the text unchanged when the field already says that."""
    table = parse_locales(text)
    new: Any = [line.strip() for line in value.splitlines() if line.strip()] if field.lines \
        else value
    entry = table.setdefault(locale, {})
    for part in field.path[:-1]:
        entry = entry.setdefault(part, {})
    if entry.get(field.path[-1]) == new:
        return text
    entry[field.path[-1]] = new
    return json.dumps(table, ensure_ascii=False, indent=2)

"""Prompt templates: the shipped defaults, the user's named variants, versions, export/import.

Defaults live beside this module in ``templates/<name>.json``; variants live under
``data_dir()/prompts/<name>/<variant>.json``. A template's ``version`` is the first 12 hex digits
of the sha256 of its text, so anything keyed on it (LLM cache, chunk sets) changes when the text
does. ``template(name)`` returns the *active* variant (the one the app uses), the default unless
the user activated a variant.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from core.config import data_dir
from core.errors import TemplateError
from core.files import write_json
from core.prompts.contracts import OutputContract
from core.prompts.locales import parse_locales
from core.prompts.template import DEFAULT, PromptTemplate, text_version

EXPORT_FORMAT = "chunklab-prompts"
EXPORT_VERSION = 1
MAX_TEMPLATE_CHARS = 100_000
VARIANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.\-]{0,59}")


@cache
def _default_specs() -> dict[str, dict[str, Any]]:
    specs = {}
    folder = resources.files("core.prompts") / "templates"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            spec = json.loads(entry.read_text(encoding="utf-8"))
            if "locales" in spec:  # the RAG template is edited as its JSON locale table
                spec["text"] = json.dumps(spec.pop("locales"), ensure_ascii=False, indent=2)
            specs[spec["name"]] = spec
    return specs


def _default_template(name: str) -> PromptTemplate:
    specs = _default_specs()
    if name not in specs:
        raise TemplateError(
            f"There is no prompt template called {name!r}; known: {', '.join(specs)}."
        )
    spec = specs[name]
    return PromptTemplate(
        name=name,
        title=spec["title"],
        description=spec["description"],
        phase=spec["phase"],
        mode=spec.get("mode"),
        text=spec["text"],
        version=text_version(spec["text"]),
        placeholders=spec["placeholders"],
        contract=OutputContract(**spec["contract"]),
        syntax=spec.get("syntax", "placeholders"),
    )


def check_variant_name(variant: str) -> str:
    variant = variant.strip()
    if variant.lower() == DEFAULT:
        raise TemplateError('"default" is the shipped template; give the variant another name.')
    if not VARIANT_NAME.fullmatch(variant):
        raise TemplateError(
            f"{variant!r} is not a usable variant name: use 1-60 letters, digits, spaces, "
            "'_', '.' or '-', starting with a letter or digit."
        )
    return variant


def _check_text(name: str, text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise TemplateError(f"The text of template {name!r} is empty.")
    if len(text) > MAX_TEMPLATE_CHARS:
        raise TemplateError(
            f"The text of template {name!r} has {len(text):,} characters; "
            f"the limit is {MAX_TEMPLATE_CHARS:,}."
        )
    if _default_template(name).syntax == "rag_json":
        parse_locales(text)
    return text


class PromptLibrary:
    """Templates by name; variants saved as JSON files under ``root``."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else data_dir() / "prompts"

    # --- reading -------------------------------------------------------------------------
    def names(self) -> list[str]:
        return list(_default_specs())

    def default(self, name: str) -> PromptTemplate:
        return _default_template(name)

    def variants(self, name: str) -> list[str]:
        self.default(name)
        folder = self.root / name
        if not folder.is_dir():
            return []
        return sorted(json.loads(p.read_text(encoding="utf-8"))["variant"]
                      for p in folder.glob("*.json"))

    def template(self, name: str, variant: str | None = None) -> PromptTemplate:
        """The named variant, ``"default"`` for the shipped text, or (None) the active one."""
        if variant is None:
            variant = self.active(name)
        if variant is None or variant == DEFAULT:
            return self.default(name)
        path = self._variant_path(name, variant)
        if not path.exists():
            raise TemplateError(f"Template {name!r} has no variant called {variant!r}.")
        saved = json.loads(path.read_text(encoding="utf-8"))
        return self.default(name).with_text(saved["text"], saved["variant"])

    def active(self, name: str) -> str | None:
        """The variant the app uses for ``name``; None means the default."""
        variant = self._active_map().get(name)
        if variant and self._variant_path(name, variant).exists():
            return variant
        return None

    # --- writing -------------------------------------------------------------------------
    def save_variant(self, name: str, variant: str, text: str) -> PromptTemplate:
        variant = check_variant_name(variant)
        _check_text(name, text)
        path = self._variant_path(name, variant)
        record = {"name": name, "variant": variant, "text": text, "version": text_version(text),
                  "saved": datetime.now(UTC).isoformat(timespec="seconds")}
        write_json(path, record, ensure_ascii=False, indent=2)
        return self.template(name, variant)

    def delete_variant(self, name: str, variant: str) -> None:
        path = self._variant_path(name, variant)
        if not path.exists():
            raise TemplateError(f"Template {name!r} has no variant called {variant!r}.")
        path.unlink()
        if self._active_map().get(name) == variant:
            self.set_active(name, None)

    def set_active(self, name: str, variant: str | None) -> None:
        """Make ``variant`` (None or "default": the shipped text) the one the app uses."""
        if variant is not None and variant != DEFAULT:
            self.template(name, variant)  # raises when it does not exist
        active = self._active_map()
        if variant is None or variant == DEFAULT:
            active.pop(name, None)
        else:
            active[name] = variant
        write_json(self.root / "active.json", active, indent=2)

    def versions(self) -> dict[str, str]:
        """``{name: version}`` of the active templates (recorded on chunk sets)."""
        return {name: self.template(name).version for name in self.names()}

    # --- export / import -----------------------------------------------------------------
    def export_json(self) -> str:
        """Every variant and the active choices as one JSON document (no secrets involved)."""
        templates = {}
        for name in self.names():
            variants = {v: self.template(name, v).text for v in self.variants(name)}
            if variants:
                templates[name] = {"active": self.active(name), "variants": variants}
        return json.dumps({"format": EXPORT_FORMAT, "version": EXPORT_VERSION,
                           "templates": templates}, ensure_ascii=False, indent=2)

    def import_json(self, data: str | bytes) -> list[str]:
        """Validate a whole prompt set first, then save it; returns ``name@variant`` labels."""
        try:
            doc = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise TemplateError(f"The prompt file is not valid JSON ({err}).") from None
        if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
            raise TemplateError(
                "The file is not a ChunkLab prompt export (it has no \"format\": "
                f"\"{EXPORT_FORMAT}\")."
            )
        if doc.get("version") != EXPORT_VERSION:
            raise TemplateError(
                f"The prompt export has version {doc.get('version')!r}; this app reads "
                f"version {EXPORT_VERSION}."
            )
        templates = doc.get("templates")
        if not isinstance(templates, dict):
            raise TemplateError('The prompt export has no "templates" object.')
        plan: list[tuple[str, str, str]] = []
        activate: dict[str, str | None] = {}
        for name, entry in templates.items():
            if name not in _default_specs():
                raise TemplateError(f"The prompt export contains an unknown template {name!r}.")
            variants = entry.get("variants") if isinstance(entry, dict) else None
            if not isinstance(variants, dict):
                raise TemplateError(f'Template {name!r} in the export has no "variants" object.')
            for variant, text in variants.items():
                plan.append((name, check_variant_name(variant), _check_text(name, text)))
            active = entry.get("active")
            if active is not None and active not in variants:
                raise TemplateError(
                    f"Template {name!r} marks {active!r} active, but has no such variant."
                )
            activate[name] = active
        for name, variant, text in plan:
            self.save_variant(name, variant, text)
        for name, active in activate.items():
            self.set_active(name, active)
        return [f"{name}@{variant}" for name, variant, _ in plan]

    # --- helpers -------------------------------------------------------------------------
    def _variant_path(self, name: str, variant: str) -> Path:
        self.default(name)
        safe = hashlib.sha256(variant.encode("utf-8")).hexdigest()[:16]
        return self.root / name / f"{safe}.json"

    def _active_map(self) -> dict[str, str]:
        path = self.root / "active.json"
        if not path.exists():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            return {}
        return data if isinstance(data, dict) else {}

"""The one chunking settings form, generated from a strategy's typed configuration.

Compare, Chunk sets and Evaluate draw the same widgets with the same defaults and limits: a
field's type picks the widget, its ``ge``/``le`` constraints the limits, its description the
help text; fields marked ``advanced`` in the configuration are not shown. A configuration
starts from a preset, and its label says when the settings differ from the preset's.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import annotated_types
import streamlit as st
from pydantic.fields import FieldInfo

from core.errors import ChunkLabError
from core.operations.presets import Preset
from core.operations.strategies import PICKABLE, STRATEGIES, strategy, validated_config
from ui.persist import kept


@dataclass(frozen=True)
class Configuration:
    label: str
    strategy: str
    settings: dict[str, Any]


def _limits(field: FieldInfo) -> tuple[float | None, float | None]:
    low = high = None
    for rule in field.metadata:
        if isinstance(rule, annotated_types.Ge):
            low = rule.ge
        elif isinstance(rule, annotated_types.Le):
            high = rule.le
    return low, high  # type: ignore[return-value]


def _advanced(field: FieldInfo) -> bool:
    extra = field.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("advanced"))


def _widget(name: str, field: FieldInfo, value: Any, key: str) -> Any:
    label = name.replace("_", " ")
    help_text = field.description
    annotation = field.annotation
    if typing.get_origin(annotation) is list:
        raw = st.text_input(f"{label} (JSON list)", json.dumps(value), key=key, help=help_text)
        try:
            return json.loads(raw)
        except ValueError:
            return raw  # the configuration's validation names the problem
    if annotation is bool:
        return st.checkbox(label, value=bool(value), key=key, help=help_text)
    choices = typing.get_args(annotation) if typing.get_origin(annotation) is typing.Literal \
        else ()
    if choices:
        return st.selectbox(label, list(choices), index=list(choices).index(value), key=key,
                            help=help_text)
    low, high = _limits(field)
    if annotation is int:
        return int(st.number_input(label, value=int(value), step=10 if int(value) >= 50 else 1,
                                   min_value=None if low is None else int(low),
                                   max_value=None if high is None else int(high),
                                   key=key, help=help_text))
    if annotation is float:
        return float(st.number_input(label, value=float(value), step=0.05, min_value=low,
                                     max_value=high, key=key, help=help_text))
    return st.text_input(label, str(value), key=key, help=help_text)


def settings_inputs(strategy_name: str, values: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A widget per setting of the strategy, starting from ``values`` (else the defaults);
    advanced settings have no widget and keep their value from ``values``."""
    fields = strategy(strategy_name).config.model_fields
    settings = {}
    for name, field in fields.items():
        if _advanced(field):
            if name in values:
                settings[name] = values[name]
            continue
        default = field.get_default(call_default_factory=True)
        settings[name] = _widget(name, field, values.get(name, default), kept(f"{key}:{name}"))
    return settings


def configuration_editor(key: str, presets: Mapping[str, Preset], default: str,
                         label: str = "Configuration", own_label: bool = False) -> Configuration:
    """A preset, its strategy and its settings, editable; the label names the preset and says
    when it was edited, or names the strategy when another one was picked (``own_label``: a
    field where the user may type a label instead). Widget keys include the preset and the
    strategy, so picking another one shows its own values, not the last ones typed."""
    names = list(presets)
    chosen = st.selectbox(label, names, key=kept(f"{key}:preset",
                                                 default if default in names else names[0],
                                                 valid=names))
    preset = presets[chosen]
    with st.expander("Settings", expanded=False):
        options = PICKABLE if preset.strategy in PICKABLE else [*PICKABLE, preset.strategy]
        name = st.selectbox("Strategy", options,
                            key=kept(f"{key}:{chosen}:strategy", preset.strategy, valid=options),
                            help="; ".join(f"{s.name}: {s.summary}" for s in STRATEGIES.values()))
        start = preset.settings if name == preset.strategy else {}
        settings = settings_inputs(name, start, f"{key}:{chosen}:{name}")
        typed = st.text_input("label", key=f"{key}:label", placeholder="automatic",
                              help="A name of your own for this configuration") \
            if own_label else ""
    if typed.strip():
        return Configuration(typed.strip(), name, settings)
    if name != preset.strategy:
        return Configuration(strategy_label(name, settings), name, settings)
    edited = _differs(preset, name, settings)
    return Configuration(f"{chosen} (edited)" if edited else chosen, name, settings)


def strategy_label(name: str, settings: Mapping[str, Any]) -> str:
    """A short label of a strategy and its size: "recursive 300/30", "fixed 800 chars"."""
    size = settings.get("size")
    if not isinstance(size, int):
        return name
    overlap = settings.get("overlap") or 0
    unit = " chars" if settings.get("unit") == "chars" else ""
    return f"{name} {size}" + (f"/{overlap}" if overlap else "") + unit


def _differs(preset: Preset, name: str, settings: Mapping[str, Any]) -> bool:
    """Whether the settings chunk differently from the preset (defaults filled in)."""
    if name != preset.strategy:
        return True
    try:
        return validated_config(name, settings) != validated_config(name, preset.settings)
    except ChunkLabError:
        return True

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
from dataclasses import dataclass, replace
from typing import Any

import annotated_types
import streamlit as st
from pydantic.fields import FieldInfo

from core.errors import ChunkLabError
from core.operations.evaluation import Candidate
from core.operations.presets import Preset
from core.operations.strategies import (
    PICKABLE,
    STRATEGIES,
    strategy,
    strategy_label,
    validated_config,
)
from ui.persist import kept, remember, set_aside
from ui.render import md_escape
from ui.state import picker_key


@dataclass(frozen=True)
class Configuration:
    label: str
    strategy: str
    settings: dict[str, Any]
    preset: Preset | None = None  # the preset it started from

    def candidate(self) -> Candidate:
        """This configuration to evaluate; with its preset's strategy it keeps the preset's
        way to retrieve (small-to-big's hybrid ranking and merged neighbours, a tuned preset's
        embedder and k)."""
        if self.preset is None or self.preset.strategy != self.strategy:
            return Candidate(self.label, self.strategy, dict(self.settings))
        return replace(self.preset.candidate(), label=self.label, settings=dict(self.settings))


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


def _is_list(field: FieldInfo) -> bool:
    return typing.get_origin(field.annotation) is list


def _choices(field: FieldInfo) -> tuple[Any, ...]:
    annotation = field.annotation
    return typing.get_args(annotation) if typing.get_origin(annotation) is typing.Literal else ()


def _held(field: FieldInfo, value: Any) -> Any:
    """A setting's value as its widget holds it (a list as JSON text)."""
    if _is_list(field):
        return json.dumps(value)
    if field.annotation is bool:
        return bool(value)
    if _choices(field):
        return value
    if field.annotation is int:
        return int(value)
    if field.annotation is float:
        return float(value)
    return str(value)


def _setting(field: FieldInfo, held: Any) -> Any:
    """The setting a widget's value stands for (JSON text that does not parse is left for the
    configuration's validation to name)."""
    if _is_list(field):
        try:
            return json.loads(held)
        except ValueError:
            return held
    if field.annotation is int:
        return int(held)
    if field.annotation is float:
        return float(held)
    return held


def _widget(name: str, field: FieldInfo, value: Any, key: str) -> Any:
    """The widget for one setting, starting from ``value`` as :func:`_held` gives it."""
    label = name.replace("_", " ")
    help_text = field.description
    if _is_list(field):
        return st.text_input(f"{label} (JSON list)", value, key=key, help=help_text)
    if field.annotation is bool:
        return st.checkbox(label, value=value, key=key, help=help_text)
    if choices := _choices(field):
        return st.selectbox(label, list(choices), index=list(choices).index(value), key=key,
                            help=help_text)
    low, high = _limits(field)
    if field.annotation is int:
        return st.number_input(label, value=value, step=10 if value >= 50 else 1,
                               min_value=None if low is None else int(low),
                               max_value=None if high is None else int(high),
                               key=key, help=help_text)
    if field.annotation is float:
        return st.number_input(label, value=value, step=0.05, min_value=low, max_value=high,
                               key=key, help=help_text)
    return st.text_input(label, value, key=key, help=help_text)


def settings_inputs(strategy_name: str, values: Mapping[str, Any], key: str,
                    drawn: bool = True) -> dict[str, Any]:
    """A widget per setting of the strategy, starting from ``values`` (else the defaults);
    advanced settings have no widget and keep their value from ``values``. Not ``drawn``: the
    same settings, from the values the widgets hold (kept) without drawing them."""
    fields = strategy(strategy_name).config.model_fields
    settings = {}
    for name, field in fields.items():
        if _advanced(field):
            if name in values:
                settings[name] = values[name]
            continue
        default = field.get_default(call_default_factory=True)
        start = _held(field, values.get(name, default))
        widget_key = f"{key}:{name}"
        if drawn:
            held = _widget(name, field, start, kept(widget_key))
        else:
            held = set_aside(widget_key)
            held = start if held is None else held
        settings[name] = _setting(field, held)
    return settings


def configuration_editor(key: str, presets: Mapping[str, Preset], default: str,
                         label: str = "Configuration", own_label: bool = False) -> Configuration:
    """A preset, its strategy and its settings, editable; the label names the preset and says
    when it was edited, or names the strategy when another one was picked (``own_label``: a
    field where the user may type a label instead). Widget keys include the preset and the
    strategy, so picking another one shows its own values, not the last ones typed."""
    names = list(presets)
    preset_key = kept(f"{key}:preset", default if default in names else names[0], valid=names)
    chosen = st.session_state[preset_key]
    head = st.empty()  # the preset picker, drawn once the configuration it starts is known
    config = _configuration(key, presets[chosen], own_label)
    shown = picked_label(chosen, config.label)
    with head:
        if shown == chosen:
            st.selectbox(label, names, key=preset_key)
        else:  # the browser keeps a keyed picker's old label: a new label is a new picker
            picker = picker_key(f"_{preset_key}", [shown])
            st.selectbox(label, names, index=names.index(chosen), key=picker,
                         format_func=lambda name: shown if name == chosen else name,
                         on_change=lambda: remember(preset_key, st.session_state[picker]))
    return config


def picked_label(preset: str, label: str) -> str:
    """What the preset picker reads for the chosen preset: its name, or the configuration it
    became ("recursive 500/50 (edited)", "llm 500 · from recursive 500/50 by section")."""
    return label if label.startswith(preset) else f"{label} · from {preset}"


def _configuration(key: str, preset: Preset, own_label: bool) -> Configuration:
    """The strategy and settings started from ``preset`` (drawn when the settings are open)."""
    chosen = preset.name
    # Closed settings draw nothing (a dozen widgets per configuration, redrawn on every click);
    # the settings then come from the values set aside for their widgets. The open state is a
    # kept toggle of our own: with a keyed expander that reruns on change, a page switch could
    # give one configuration another's preset in the browser.
    drawn = st.toggle("Settings", key=kept(f"{key}:settings_open", False))
    options = PICKABLE if preset.strategy in PICKABLE else [*PICKABLE, preset.strategy]
    strategy_key = kept(f"{key}:{chosen}:strategy", preset.strategy, valid=options)
    with st.container(border=drawn):
        name = st.selectbox(
            "Strategy", options, key=strategy_key,
            help="; ".join(f"{s.name}: {s.summary}" for s in STRATEGIES.values()),
        ) if drawn else set_aside(strategy_key)
        start = preset.settings if name == preset.strategy else {}
        settings = settings_inputs(name, start, f"{key}:{chosen}:{name}", drawn=drawn)
        typed = ""
        if own_label and drawn:
            typed = st.text_input("label", key=kept(f"{key}:label"), placeholder="automatic",
                                  help="A name of your own for this configuration")
        elif own_label:
            typed = set_aside(f"{key}:label") or ""
        if not drawn:
            st.caption(md_escape(settings_summary(name, settings)))
    if typed.strip():
        return Configuration(typed.strip(), name, settings, preset)
    if name != preset.strategy:
        return Configuration(strategy_label(name, settings), name, settings, preset)
    edited = _differs(preset, name, settings)
    return Configuration(f"{chosen} (edited)" if edited else chosen, name, settings, preset)


def put_configuration(key: str, presets: Mapping[str, Preset], label: str, strategy_name: str,
                      settings: Mapping[str, Any], preset: str | None = None) -> None:
    """Set the editor ``key`` (not drawn in this run) to a configuration made elsewhere: its
    preset when it is one, else the first preset of its strategy, with every shown setting and
    the label put where :func:`configuration_editor` reads them (a page handing configurations
    to Compare)."""
    chosen = preset if preset in presets else next(
        (name for name, p in presets.items() if p.strategy == strategy_name), next(iter(presets)))
    remember(f"{key}:preset", chosen)
    remember(f"{key}:{chosen}:strategy", strategy_name)
    for name, field in strategy(strategy_name).config.model_fields.items():
        if not _advanced(field):
            value = settings.get(name, field.get_default(call_default_factory=True))
            remember(f"{key}:{chosen}:{strategy_name}:{name}", _held(field, value))
    remember(f"{key}:label", label)


def settings_summary(name: str, settings: Mapping[str, Any]) -> str:
    """The settings in one line, for closed settings: "fixed · size 1000 · tables no · …"."""
    def shown(value: Any) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        return json.dumps(value) if isinstance(value, list) else f"{value}"
    return " · ".join([name, *(f"{field.replace('_', ' ')} {shown(value)}"
                               for field, value in settings.items())])


def _differs(preset: Preset, name: str, settings: Mapping[str, Any]) -> bool:
    """Whether the settings chunk differently from the preset (defaults filled in)."""
    if name != preset.strategy:
        return True
    try:
        return validated_config(name, settings) != validated_config(name, preset.settings)
    except ChunkLabError:
        return True

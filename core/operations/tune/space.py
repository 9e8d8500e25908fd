"""What Tune may try: the search space, one dimension a line, and the configuration a point of
it stands for.

A point is a mapping of dimension name to value (what the optimiser draws). A dimension is drawn
only when its condition holds for the values drawn before it (the overlap of a fixed or
recursive chunking, the budget when retrieval is by budget), and its value goes to one of three
places: the chunking settings (read by :func:`plan_for`), a field of the configuration
(:class:`~core.operations.evaluation.Candidate`, set by name: ``ranking``, ``merge_adjacent``),
the embedder (one of the user's: MiniLM and the configured endpoint, drawn when there are two)
or how much a question retrieves (``k``, a token budget, or autocut: the top
:data:`AUTOCUTS` — its cap — up to the first large drop in score, keeping at least its floor of
:data:`FLOORS` hits whatever the scores: autocut alone trades recall for IoU, the floor keeps
recall). So a new way to retrieve that is a
field of the configuration joins the search as one more line in :func:`search_space`. A preset
brings what it keeps (its ranking, merging, embedder, retrieval): those are not drawn for it.

Values are few and discrete on purpose: two trials that differ only in how they retrieve share
their chunks, and so their embeddings (``chunks_for`` and the embedding cache serve them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.embeddings.identity import BUILTIN, EmbedderRef
from core.operations.evaluation import DEFAULT_K, Candidate, Retrieval
from core.operations.presets import SMALL_TO_BIG, Preset
from core.operations.strategies import strategy_label, uses_llm
from core.retrieval.modes import DEFAULT_JUMPS, RANK_MODES

PRESET = "preset"  # the strategy value that picks a saved or built-in preset
TOP_K, BUDGET, AUTOCUT = "top-k", "budget", "autocut"
AS_TEXT, WHOLE, ROW_GROUPS = "as text", "whole", "row_groups"
SIZES = (100, 150, 200, 300, 400, 500, 700, 1000)  # tokens (×4 characters with unit chars)
OVERLAPS = (0.0, 0.1, 0.2)  # shares of the size
KS = (1, 2, 3, 5, 8, 10)
BUDGETS = (250, 500, 1000, 1500, 2000, 3000)
AUTOCUT_K = 10  # the window autocut cuts (its default, measured by bench_autocut)
AUTOCUTS = (AUTOCUT_K, 20)  # the caps: the most autocut keeps
FLOORS = (0, 1, 2, 3)  # the fewest autocut keeps
CHARS_PER_TOKEN = 4
CUT = ("fixed", "recursive")  # strategies with an overlap and a unit
SIZED = (*CUT, "semantic", "cluster")
# The presets a tune starts from: the default, and the best of the built-ins on the benchmark
# corpus (bench_retrieval_quality); the others are in reach through the preset dimension.
BASELINES = ("recursive 500/50", SMALL_TO_BIG)
SPACE_VERSION = 3  # bump when what a point means or which points there are changes: stored
# tunes of another version are not resumed

Value = str | int | float | bool
Point = Mapping[str, Any]
Target = Literal["chunking", "configuration", "embedder", "retrieval"]


def _always(point: Point) -> bool:
    return True


@dataclass(frozen=True)
class Dimension:
    """One thing Tune varies: its values, where a value goes, when it is drawn."""

    name: str
    choices: tuple[Value, ...]
    target: Target
    when: Callable[[Point], bool] = _always
    drawn: str = "always"  # ``when`` in words, for the description of the space


@dataclass(frozen=True)
class TrialPlan:
    """A configuration to try: the chunking and ranking, and what each question retrieves."""

    candidate: Candidate
    retrieval: Retrieval = Retrieval()
    preset: str | None = None  # the preset the chunking comes from, if it is one

    @property
    def ranking(self) -> str:
        return self.candidate.ranking or "vector"

    def key(self) -> str:
        """What decides the trial's scores (two trials with one key score the same)."""
        r = self.retrieval
        return json.dumps([self.candidate.key(), self.ranking, r.k, r.budget, r.autocut])

    def to_json(self) -> dict[str, Any]:
        c = self.candidate
        return {"label": c.label, "preset": self.preset, "strategy": c.strategy,
                "settings": c.settings,
                "ranking": self.ranking, "merge_adjacent": c.merge_adjacent,
                "embedder": c.embedder.label, **self.retrieval.as_dict()}


def tunable_presets(presets: Mapping[str, Preset],
                    embedders: Sequence[EmbedderRef] = (BUILTIN,)) -> dict[str, Preset]:
    """The presets a tune may try: those that run offline (no model calls) and, when they name
    their embedder, name one of ``embedders`` (those the tune tries)."""
    return {name: p for name, p in presets.items() if not uses_llm(p.strategy, p.settings)
            and (p.embedder is None or p.embedder in embedders)}


def embedders_by_label(embedders: Sequence[EmbedderRef]) -> dict[str, EmbedderRef]:
    """The embedders a tune may try, by the label a point holds (MiniLM alone by default)."""
    return {ref.label: ref for ref in embedders or (BUILTIN,)}


def search_space(presets: Mapping[str, Preset], cap: int | None = None,
                 embedders: Sequence[str] = ()) -> tuple[Dimension, ...]:
    """The dimensions, in the order they are drawn; ``cap``: the most tokens a question may
    retrieve (budgets above it are not tried); ``embedders``: labels of the embedders to try
    (drawn when there are two or more)."""

    def own(field: str) -> Callable[[Point], bool]:
        """Drawn unless the point is a preset that brings its own ``field``."""
        return lambda p: p["strategy"] != PRESET or not getattr(presets[p["preset"]], field)

    budgets = tuple(b for b in BUDGETS if cap is None or b <= cap) or (cap or BUDGETS[0],)
    preset_brings = "unless the preset brings its own"
    return (
        Dimension("strategy", ("recursive", "fixed", "semantic", "cluster",
                               *((PRESET,) if presets else ())), "chunking"),
        Dimension("preset", tuple(presets), "chunking", lambda p: p["strategy"] == PRESET,
                  f"strategy {PRESET}"),
        Dimension("size", SIZES, "chunking", lambda p: p["strategy"] in SIZED, ", ".join(SIZED)),
        Dimension("overlap", OVERLAPS, "chunking", lambda p: p["strategy"] in CUT,
                  ", ".join(CUT)),
        Dimension("unit", ("tokens", "chars"), "chunking", lambda p: p["strategy"] in CUT,
                  ", ".join(CUT)),
        Dimension("tables", (WHOLE, ROW_GROUPS, AS_TEXT), "chunking",
                  lambda p: p["strategy"] in SIZED, ", ".join(SIZED)),
        Dimension("ranking", RANK_MODES, "configuration", own("ranking"), preset_brings),
        *([Dimension("embedder", tuple(embedders), "embedder", own("embedder"), preset_brings)]
          if len(embedders) > 1 else []),
        Dimension("retrieve", (TOP_K, BUDGET, AUTOCUT), "retrieval",
                  lambda p: own("retrieval")(p) and not _preset_merges(p, presets),
                  f"{preset_brings}, or merges neighbours"),
        Dimension("merge_adjacent", (False, True), "configuration",
                  lambda p: own("merge_adjacent")(p) and not _budgeted(p, presets),
                  f"{preset_brings}; not with a token budget"),
        Dimension("k", KS, "retrieval",
                  lambda p: own("retrieval")(p) and p.get("retrieve", TOP_K) == TOP_K,
                  f"retrieve {TOP_K}"),
        Dimension("budget", budgets, "retrieval", lambda p: p.get("retrieve") == BUDGET,
                  f"retrieve {BUDGET}"),
        Dimension("cap", AUTOCUTS, "retrieval", lambda p: p.get("retrieve") == AUTOCUT,
                  f"retrieve {AUTOCUT}"),
        Dimension("floor", FLOORS, "retrieval", lambda p: p.get("retrieve") == AUTOCUT,
                  f"retrieve {AUTOCUT}"),
    )


def _budgeted(point: Point, presets: Mapping[str, Preset]) -> bool:
    """Retrieval by a token budget, drawn or the preset's own (small-to-big cannot join it:
    it is measured at top k or by autocut)."""
    if point.get("retrieve") == BUDGET:
        return True
    if point["strategy"] != PRESET:
        return False
    retrieval = presets[point["preset"]].retrieval
    return retrieval is not None and retrieval.budget is not None


def _preset_merges(point: Point, presets: Mapping[str, Preset]) -> bool:
    """A small-to-big preset (it retrieves its top k, drawn alone)."""
    return point["strategy"] == PRESET and presets[point["preset"]].merge_adjacent


def describe(space: tuple[Dimension, ...], embedders: Sequence[str] = ()) -> list[str]:
    """The space in words, a dimension a line in the order they are drawn: its values and
    when it is drawn — "overlap: 0, 0.1, 0.2 (fixed, recursive)"; ``embedders``: the labels
    of those tried (one alone is not drawn, and is named as such)."""
    def value(v: Value) -> str:
        if isinstance(v, bool):
            return "yes" if v else "no"
        return f"{v:g}" if isinstance(v, float) else str(v)

    lines = []
    for d in space:
        if not d.choices:  # no preset to try: never drawn
            continue
        values = [value(v) for v in d.choices]
        joined = ("; " if any(", " in v for v in values) else ", ").join(values)
        lines.append(f"{d.name}: {joined}" + ("" if d.drawn == "always" else f" ({d.drawn})"))
    if len(embedders) == 1:
        lines.append(f"embedder: {embedders[0]} (the only one: not drawn)")
    return lines


def signature(space: tuple[Dimension, ...]) -> str:
    """A hash of the space: a stored tune is resumed only in the same space."""
    payload = [SPACE_VERSION, [[d.name, list(d.choices), d.target] for d in space]]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:12]


def draw(space: tuple[Dimension, ...], suggest: Callable[[str, tuple[Value, ...]], Any]
         ) -> dict[str, Any]:
    """A point: each dimension whose condition holds, in order, valued by ``suggest``."""
    point: dict[str, Any] = {}
    for dimension in space:
        if dimension.when(point):
            point[dimension.name] = suggest(dimension.name, dimension.choices)
    return point


def complete(space: tuple[Dimension, ...], values: Point) -> dict[str, Any]:
    """The point of ``values`` (a dimension not given takes its first value), without the
    dimensions whose condition does not hold."""
    return draw(space, lambda name, choices: values.get(name, choices[0]))


def chunking_settings(point: Point) -> dict[str, Any]:
    """The settings of a fixed, recursive, semantic or cluster chunking the point draws."""
    scale = CHARS_PER_TOKEN if point.get("unit") == "chars" else 1
    size = int(point["size"]) * scale
    settings: dict[str, Any] = {"size": size}
    if point["strategy"] in CUT:
        settings |= {"overlap": round(size * float(point["overlap"])), "unit": point["unit"]}
    tables = point["tables"]
    settings["tables"] = tables != AS_TEXT
    if tables == ROW_GROUPS:  # table parts of whole rows, as large as a text chunk
        settings |= {"table_split": ROW_GROUPS, "table_max_tokens": int(point["size"])}
    return settings


def plan_for(point: Point, space: tuple[Dimension, ...], presets: Mapping[str, Preset],
             embedders: Mapping[str, EmbedderRef] | None = None) -> TrialPlan:
    """The configuration ``point`` stands for, labelled in words; ``embedders``: by label,
    those the space draws from (the one there is when only one: it is not drawn)."""
    preset = None
    if point["strategy"] == PRESET:
        preset = presets[point["preset"]].name
        candidate = presets[preset].candidate()
        name = preset
    else:
        settings = chunking_settings(point)
        candidate = Candidate("", point["strategy"], settings)
        name = strategy_label(point["strategy"], settings) + {
            AS_TEXT: ", tables as text", ROW_GROUPS: ", tables by rows"}.get(point["tables"], "")
    fields = {d.name: point[d.name] for d in space
              if d.target == "configuration" and d.name in point}
    if "embedder" in point:
        fields["embedder"] = (embedders or {})[point["embedder"]]
    elif embedders and len(embedders) == 1 and not candidate.own_embedder:
        fields["embedder"] = next(iter(embedders.values()))
    candidate = dataclasses.replace(candidate, **fields)
    plan = TrialPlan(candidate, candidate.retrieval or _retrieval(point), preset)
    words = [name, *([plan.ranking] if "ranking" in point else []),
             *(["neighbours merged"] if point.get("merge_adjacent") else []),
             *([candidate.embedder.label] if not candidate.embedder.builtin else []),
             plan.retrieval.label]
    return dataclasses.replace(plan, candidate=dataclasses.replace(
        candidate, label=", ".join(words)))


def _retrieval(point: Point) -> Retrieval:
    """How much each question retrieves at ``point``: its k, its budget, or autocut (its cap
    and floor)."""
    if point.get("retrieve") == AUTOCUT:
        return Retrieval(int(point.get("cap", AUTOCUT_K)), autocut=DEFAULT_JUMPS,
                         floor=int(point.get("floor", 0)))
    if point.get("retrieve") == BUDGET:
        return Retrieval(budget=int(point["budget"]))
    return Retrieval(int(point.get("k", DEFAULT_K)))


def chunking_point(space: tuple[Dimension, ...], point: Point) -> dict[str, Any]:
    """The values of ``point`` that decide its chunks (a later trial given them shares its
    chunks, and so its embeddings)."""
    return {d.name: point[d.name] for d in space if d.target == "chunking" and d.name in point}


def baseline_points(space: tuple[Dimension, ...], presets: Mapping[str, Preset],
                    cap: int | None = None) -> list[dict[str, Any]]:
    """The baseline presets as Evaluate runs them by default (their own ranking, else vector;
    top 5), or at the largest budget within ``cap``: the first trials, so the search starts
    from what a user would try by hand."""
    budget_choices = next(d.choices for d in space if d.name == "budget")
    points = []
    for name in BASELINES:
        if name not in presets:
            continue
        values: dict[str, Any] = {"strategy": PRESET, "preset": name, "ranking": "vector",
                                  "merge_adjacent": False, "k": DEFAULT_K}
        if cap is not None:
            values |= {"retrieve": BUDGET, "budget": max(budget_choices)}
        points.append(complete(space, values))
    return points

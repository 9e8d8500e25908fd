"""What Tune's search space holds and says it holds: the description `python -m core tune
--space` prints and the Tune page folds away, and the points where recall and IoU meet
(semantic or cluster chunking, hybrid ranking, autocut with a floor, neighbours merged or not)
within reach of the search."""

from __future__ import annotations

from typing import Any

import pytest

from core.cli import main
from core.operations.evaluation import Retrieval
from core.operations.presets import BUILTIN_PRESETS
from core.operations.tune.space import (
    AUTOCUT,
    BUDGET,
    describe,
    draw,
    plan_for,
    search_space,
)
from core.retrieval.modes import DEFAULT_JUMPS


@pytest.mark.parametrize("strategy", ["cluster", "semantic"])
@pytest.mark.parametrize("merge", [True, False])
def test_grouped_chunking_with_hybrid_autocut_and_a_floor_is_reachable(strategy, merge):
    presets = dict(BUILTIN_PRESETS)
    space = search_space(presets)
    wanted: dict[str, Any] = {"strategy": strategy, "size": 200, "tables": "whole",
                              "ranking": "hybrid", "retrieve": AUTOCUT, "merge_adjacent": merge,
                              "cap": 10, "floor": 2}

    def suggest(name: str, choices: tuple) -> Any:
        assert wanted[name] in choices, name  # the search may draw it
        return wanted[name]

    point = draw(space, suggest)
    assert point == wanted  # each of them drawn, nothing else
    plan = plan_for(point, space, presets)
    assert (plan.candidate.strategy, plan.candidate.settings) == (
        strategy, {"size": 200, "tables": True})
    assert plan.ranking == "hybrid" and plan.candidate.merge_adjacent is merge
    assert plan.retrieval == Retrieval(10, autocut=DEFAULT_JUMPS, floor=2)
    assert plan.candidate.label == (f"{strategy} 200, hybrid, "
                                    + ("neighbours merged, " if merge else "")
                                    + "autocut of top-10, at least 2")


def test_merging_is_never_drawn_with_a_token_budget():
    presets = dict(BUILTIN_PRESETS)
    space = search_space(presets)
    point = draw(space, lambda name, choices: {"strategy": "recursive", "retrieve": BUDGET}.get(
        name, choices[0]))
    assert point["retrieve"] == BUDGET and "merge_adjacent" not in point


def test_the_description_names_each_dimension_its_values_and_when_it_is_drawn():
    lines = describe(search_space(dict(BUILTIN_PRESETS), cap=800), ("MiniLM (built-in)",))
    assert lines[0] == "strategy: recursive, fixed, semantic, cluster, preset"
    assert "overlap: 0, 0.1, 0.2 (fixed, recursive)" in lines
    assert "size: 100, 150, 200, 300, 400, 500, 700, 1000 (fixed, recursive, semantic, " \
           "cluster)" in lines
    assert "budget: 250, 500 (retrieve budget)" in lines  # nothing over the cap
    assert "cap: 10, 20 (retrieve autocut)" in lines
    assert "floor: 0, 1, 2, 3 (retrieve autocut)" in lines
    assert "merge_adjacent: no, yes (unless the preset brings its own; not with a token " \
           "budget)" in lines
    assert lines[-1] == "embedder: MiniLM (built-in) (the only one: not drawn)"
    two = describe(search_space({}, embedders=("a", "b")), ("a", "b"))
    assert "embedder: a, b (unless the preset brings its own)" in two
    assert not any(line.startswith("preset:") for line in two)  # no preset to draw


def test_cli_prints_the_space_without_a_question_set(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    assert main(["tune", "--space", "--budget", "600"]) == 0
    out = capsys.readouterr().out
    assert "budget: 250, 500 (retrieve budget)" in out
    assert "floor: 0, 1, 2, 3 (retrieve autocut)" in out
    assert not list(tmp_path.glob("**/*.journal*"))  # nothing was run

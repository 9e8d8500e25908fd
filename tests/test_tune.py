"""Tune: the split, the search space, the front and the recommendation, a run that is kept in
the run history, reuses chunkings, resumes after a cancel and saves its winner as a preset; and
`python -m core tune`."""

from __future__ import annotations

import json
import threading
from contextlib import nullcontext
from math import ceil
from pathlib import Path

import pytest

from core.cli import main
from core.embeddings.identity import BUILTIN, EmbedderRef
from core.errors import ChunkLabError
from core.evaluation.metrics import QuestionScore
from core.evaluation.questions import Question, QuestionSet, QuestionSetError, Reference
from core.evaluation.stats import compare_paired, questions_to_separate
from core.operations.assemble.budget import TokenBudget
from core.operations.evaluation import Candidate, Retrieval
from core.operations.evaluation.history import run_history
from core.operations.presets import BUILTIN_PRESETS, SMALL_TO_BIG, Preset, last_tuned, user_presets
from core.operations.questions.sets import load_from_folder
from core.operations.strategies import validated_config
from core.operations.tune.report import (
    CacheShare,
    Figures,
    TrialOutcome,
    TuneResult,
    choose,
    front,
    question_objective,
    ranked,
)
from core.operations.tune.run import (
    NEW_CHUNKINGS_SHARE,
    save_recommended,
    split_questions,
    tune,
)
from core.operations.tune.space import (
    AUTOCUT,
    AUTOCUT_K,
    BUDGET,
    PRESET,
    TrialPlan,
    baseline_points,
    complete,
    draw,
    embedders_by_label,
    plan_for,
    search_space,
    tunable_presets,
)
from core.progress import Cancelled, Progress
from tests.fakeembed import fake_embed  # noqa: F401  (fixture)
from tests.report_helpers import outside_references

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "sample_docs" / "questions" / "technical_handbook.csv"
DOCS = ROOT / "sample_docs"


@pytest.fixture(scope="module")
def handbook():
    return load_from_folder(SET, DOCS)


def _questions(per_doc: dict[str, int]) -> QuestionSet:
    questions = [Question(row, f"q{row}", doc, (Reference("x", 0, 1),))
                 for doc, n in per_doc.items() for row in range(n)]
    return QuestionSet("set", tuple(questions))


def test_split_is_seeded_per_document_and_disjoint():
    questions = _questions({"a.md": 10, "b.md": 7, "c.md": 1})
    split = split_questions(questions, 0.3)
    assert split.by_document == {"a.md": (7, 3), "b.md": (5, 2), "c.md": (1, 0)}
    search = {(q.corpus_id, q.row) for q in split.search.questions}
    held = {(q.corpus_id, q.row) for q in split.held_back.questions}
    assert not search & held and len(search | held) == 18
    assert split_questions(questions, 0.3).held_back == split.held_back  # the same every time
    assert split_questions(questions, 0.3, seed=1).held_back != split.held_back
    with pytest.raises(QuestionSetError, match="at least 8"):
        split_questions(_questions({"a.md": 5}))


def test_every_point_of_the_space_is_a_valid_configuration():
    presets = dict(BUILTIN_PRESETS)
    space = search_space(presets, cap=800)
    budgets = next(d.choices for d in space if d.name == "budget")
    assert budgets and max(budgets) <= 800  # nothing over the cap is tried
    import random

    rng = random.Random(1)
    seen_merge_with_budget = seen_merge_with_autocut = False
    for _ in range(300):
        point = draw(space, lambda name, choices: rng.choice(choices))
        plan = plan_for(point, space, presets)
        validated_config(plan.candidate.strategy, plan.candidate.settings)
        merges, budget = plan.candidate.merge_adjacent, plan.retrieval.budget
        seen_merge_with_budget |= merges and budget is not None
        seen_merge_with_autocut |= merges and plan.retrieval.autocut is not None
        if point["strategy"] == PRESET:
            assert plan.preset == point["preset"]
            assert plan.candidate.label.startswith(point["preset"])
        if point.get("unit") == "chars":
            assert plan.candidate.settings["size"] == 4 * point["size"]
    assert not seen_merge_with_budget  # small-to-big is measured at top k or by autocut
    assert seen_merge_with_autocut


def test_plan_labels_and_settings():
    presets = dict(BUILTIN_PRESETS)
    space = search_space(presets)
    point = {"strategy": "recursive", "size": 300, "overlap": 0.1, "unit": "tokens",
             "tables": "row_groups", "ranking": "hybrid", "merge_adjacent": False,
             "retrieve": BUDGET, "budget": 1000}
    plan = plan_for(point, space, presets)
    assert plan.candidate.settings == {"size": 300, "overlap": 30, "unit": "tokens",
                                       "tables": True, "table_split": "row_groups",
                                       "table_max_tokens": 300}
    assert plan.candidate.label == "recursive 300/30, tables by rows, hybrid, 1,000-token budget"
    assert (plan.retrieval.k, plan.retrieval.budget, plan.ranking) == (5, 1000, "hybrid")
    small = plan_for({"strategy": PRESET, "preset": SMALL_TO_BIG, "retrieve": "top-k", "k": 3},
                     space, presets)
    assert small.candidate.merge_adjacent and small.ranking == "hybrid"
    assert small.candidate.label == f"{SMALL_TO_BIG}, top-3"
    baselines = [plan_for(p, space, presets) for p in baseline_points(space, presets)]
    assert [b.preset for b in baselines] == ["recursive 500/50", SMALL_TO_BIG]
    assert all(b.retrieval == Retrieval(5) for b in baselines)


def test_embedder_and_autocut_are_dimensions_of_the_search():
    presets = dict(BUILTIN_PRESETS)
    endpoint = EmbedderRef(model="nomic-embed-text", base_url="http://127.0.0.1:9/v1")
    embedders = embedders_by_label([BUILTIN, endpoint])
    assert "embedder" not in {d.name for d in search_space(presets)}  # MiniLM alone: no choice
    space = search_space(presets, embedders=tuple(embedders))
    assert next(d.choices for d in space if d.name == "embedder") == tuple(embedders)
    assert AUTOCUT in next(d.choices for d in space if d.name == "retrieve")
    point = {"strategy": "recursive", "size": 200, "overlap": 0.0, "unit": "tokens",
             "tables": "whole", "ranking": "vector", "merge_adjacent": False,
             "embedder": endpoint.label, "retrieve": AUTOCUT}
    plan = plan_for(point, space, presets, embedders)
    assert plan.candidate.embedder == endpoint and plan.retrieval == Retrieval(AUTOCUT_K, None, 1)
    assert plan.candidate.label == (f"recursive 200, vector, {endpoint.label}, "
                                    f"autocut of top-{AUTOCUT_K}")
    minilm = plan_for(point | {"embedder": BUILTIN.label, "retrieve": "top-k", "k": 5},
                      space, presets, embedders)
    assert minilm.candidate.embedder.builtin and minilm.retrieval.autocut is None
    assert len({plan.key(), minilm.key()}) == 2  # two configurations, scored apart
    assert plan.to_json()["embedder"] == endpoint.label and plan.to_json()["autocut"] == 1
    baselines = [plan_for(p, space, presets, embedders) for p in baseline_points(space, presets)]
    assert all(b.candidate.embedder.builtin and b.retrieval.autocut is None for b in baselines)


def test_one_embedder_given_is_the_one_every_plan_uses():
    presets = dict(BUILTIN_PRESETS)
    endpoint = EmbedderRef(model="nomic-embed-text", base_url="http://127.0.0.1:9/v1")
    only = embedders_by_label([endpoint])
    space = search_space(presets, embedders=tuple(only))
    assert "embedder" not in {d.name for d in space}  # nothing to choose: not drawn
    plans = [plan_for(p, space, presets, only) for p in baseline_points(space, presets)]
    assert plans and all(plan.candidate.embedder == endpoint for plan in plans)


def test_a_preset_brings_its_own_embedder_and_retrieval_to_the_search():
    endpoint = EmbedderRef(model="nomic-embed-text", base_url="http://127.0.0.1:9/v1")
    tuned = Preset("tuned", "recursive", {"size": 300, "overlap": 30}, builtin=False,
                   ranking="hybrid", embedder=endpoint, retrieval=Retrieval(8))
    presets = {**BUILTIN_PRESETS, "tuned": tuned}
    assert "tuned" not in tunable_presets(presets)  # MiniLM only: it is not tried
    assert "tuned" in tunable_presets(presets, [BUILTIN, endpoint])
    embedders = embedders_by_label([BUILTIN, endpoint])
    space = search_space(presets, embedders=tuple(embedders))
    import random

    rng = random.Random(2)
    for _ in range(20):
        point = draw(space, lambda name, choices: "tuned" if name == "preset"
                     else PRESET if name == "strategy" else rng.choice(choices))
        assert not {"ranking", "embedder", "retrieve", "k", "budget"} & set(point)
        plan = plan_for(point, space, presets, embedders)
        assert (plan.candidate.embedder, plan.retrieval, plan.ranking) == (
            endpoint, Retrieval(8), "hybrid")
        merged = ", neighbours merged" if point["merge_adjacent"] else ""
        assert plan.candidate.label == f"tuned{merged}, {endpoint.label}, top-8"


def _endpoint_plan(retrieval: Retrieval, merge: bool = False) -> TrialOutcome:
    endpoint = EmbedderRef(model="nomic-embed-text", base_url="http://127.0.0.1:9/v1")
    candidate = Candidate("recursive 300/30, hybrid", "recursive", {"size": 300, "overlap": 30},
                          ranking="hybrid", merge_adjacent=merge, embedder=endpoint)
    figures = Figures(1, 0.5, (0, 1), 0.5, (0, 1), 0.1, 100.0, (0.5,))
    return TrialOutcome(0, TrialPlan(candidate, retrieval), figures, 1.0, False, 0)


def test_a_preset_saved_from_a_tune_keeps_the_whole_configuration(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    old = {"old": ["fixed", {"size": 700}],  # files written before presets kept more
           "old ranked": ["recursive", {"size": 150}, {"ranking": "hybrid",
                                                        "merge_adjacent": True}]}
    (tmp_path / "chunk_presets.json").write_text(json.dumps(old))
    top8, cut = _endpoint_plan(Retrieval(8), merge=True), _endpoint_plan(Retrieval(10, None, 1))
    saved = save_recommended("tuned top-8", top8)
    save_recommended("tuned autocut", cut)

    stored = user_presets()
    assert stored["tuned top-8"] == saved
    assert (saved.embedder, saved.retrieval, saved.ranking, saved.merge_adjacent) == (
        top8.plan.candidate.embedder, Retrieval(8), "hybrid", True)
    assert stored["tuned autocut"].retrieval == Retrieval(10, None, 1)
    assert last_tuned() == stored["tuned autocut"]  # the pages start from the last one saved
    assert (stored["old"].retrieval, stored["old"].embedder) == (None, None)
    assert (stored["old ranked"].ranking, stored["old ranked"].merge_adjacent) == ("hybrid", True)
    on_disk = json.loads((tmp_path / "chunk_presets.json").read_text())
    assert on_disk["old"] == old["old"]  # an entry without a way to retrieve stays as it was
    assert on_disk["tuned top-8"][2]["retrieval"] == {"k": 8, "budget": None, "autocut": None,
                                                      "floor": 0}
    assert on_disk["tuned top-8"][2]["embedder"] == top8.plan.candidate.embedder.model_dump()

    candidate = stored["tuned top-8"].candidate()
    assert candidate.retrieval == Retrieval(8) and candidate.own_embedder
    assert candidate.embedder == top8.plan.candidate.embedder
    with pytest.raises(ChunkLabError, match="Small-to-big retrieval is measured at top k"):
        save_recommended("merged by budget", _endpoint_plan(Retrieval(budget=500), merge=True))
    assert "merged by budget" not in user_presets()


def test_a_tune_tries_the_configured_endpoint_embedder_and_autocut(handbook, fake_embed,  # noqa: F811
                                                                   monkeypatch):
    monkeypatch.setenv("EMBEDDING_BASE_URL", fake_embed.base_url)
    monkeypatch.setenv("EMBEDDING_MODEL", "fake-embed")
    result = tune(handbook.questions, handbook.documents, trials=10, baselines=False)
    assert result.failed == []
    tried = {(o.plan.candidate.embedder.builtin, o.plan.retrieval.autocut is not None)
             for o in result.trials}
    assert {True, False} <= {builtin for builtin, _ in tried}  # both embedders were drawn
    assert any(autocut for _, autocut in tried)
    assert fake_embed.texts()  # the endpoint embedded chunks and questions


def _outcome(number: int, objective: float, tokens: float, size: int = 100) -> TrialOutcome:
    plan = TrialPlan(Candidate(f"c{number}", "fixed", {"size": size + number}))
    figures = Figures(10, objective, (objective, objective), objective, (0, 1), 0.1, tokens, ())
    return TrialOutcome(number, plan, figures, 1.0, False, 0)


def test_front_keeps_what_nothing_beats_on_both_and_ranked_keeps_within_the_cap():
    outcomes = [_outcome(0, 0.9, 900), _outcome(1, 0.8, 400), _outcome(2, 0.7, 500),
                _outcome(3, 0.9, 1200), _outcome(4, 0.95, 2000)]
    assert [o.number for o in front(outcomes)] == [1, 0, 4]  # cheapest first
    assert [o.number for o in ranked(outcomes, cap=1000)] == [0, 1, 2]
    assert ranked(outcomes, cap=100) == []


def _scored(number: int, values: list[float], tokens: float) -> TrialOutcome:
    plan = TrialPlan(Candidate(f"c{number}", "fixed", {"size": 100 + number}))
    mean = sum(values) / len(values)
    figures = Figures(len(values), mean, (mean, mean), mean, (0, 1), 0.1, tokens, tuple(values))
    return TrialOutcome(number, plan, figures, 1.0, False, 0)


def test_a_trial_is_a_builtin_preset_only_as_evaluate_runs_it():
    presets = dict(BUILTIN_PRESETS)
    space = search_space(presets)
    figures = Figures(1, 0.5, (0, 1), 0.5, (0, 1), 0.1, 100.0, (0.5,))
    as_run, other = (
        TrialOutcome(n, plan_for({"strategy": PRESET, "preset": "semantic", "ranking": ranking,
                                  "merge_adjacent": False, "retrieve": "top-k", "k": k},
                                 space, presets), figures, 1.0, False, 0)
        for n, (ranking, k) in enumerate((("vector", 5), ("hybrid", 3))))
    assert as_run.builtin_preset == "semantic"
    assert other.builtin_preset is None  # its chunking, another way to retrieve


def test_a_cheaper_configuration_that_ties_with_the_top_scorer_is_recommended():
    top = _scored(0, [1.0] * 40, 3000)
    close = _scored(1, [1.0] * 38 + [0.0] * 2, 1000)  # 2 losses in 40: the sign test cannot tell
    poor = _scored(2, [1.0] * 20 + [0.0] * 20, 300)  # 20 losses: worse
    choice = choose([top, close, poor], None, "recall")
    assert (choice.pick, choice.against, choice.tied) == (close, top, 2)
    choice = choose([top, poor], None, "recall")
    assert (choice.pick, choice.against) == (top, poor)  # nothing cheaper ties: vs the runner-up
    assert choose([top, close, poor], 500, "recall").pick is poor  # only it keeps to the cap


def test_which_is_best_on_the_held_back_questions():
    outcomes = [_scored(n, [0.5] * 40, 100.0 * (n + 1)) for n in range(4)]
    held = {outcomes[0].plan.key(): outcomes[0].search,
            outcomes[1].plan.key(): _scored(1, [1.0] * 30 + [0.0] * 10, 200).search,
            outcomes[2].plan.key(): _scored(2, [1.0] * 10 + [0.0] * 30, 300).search}
    result = TuneResult("s", "set", "recall", TokenBudget(None, "none"),
                        split_questions(_questions({"a": 10}), 0.3), outcomes, [], outcomes[:3],
                        held, None, CacheShare(4, 0, 0, 0), 0.0)
    best = result.held_back_best()
    assert best is not None and best.winner == "c1" and best.ruled_out == ("c0", "c2")
    assert best.sentence() == ("c1 is best on recall in 100 % of resamples of the 40 held-back "
                               "questions; c0 and c2 are ruled out.")
    assert result.to_json()["held_back_best"]["probabilities"] == {"c0": 0, "c1": 1, "c2": 0}
    held.pop(outcomes[2].plan.key())
    assert result.held_back_best() is None  # two: the recommendation's comparison says it


def test_balanced_objective_is_the_harmonic_mean_of_recall_and_iou():
    score = QuestionScore(recall=0.8, precision=0.2, iou=0.2, precision_omega=0.3, hit=1.0,
                          reciprocal_rank=1.0, first_hit_rank=1, covered_chars=8,
                          reference_chars=10, retrieved_chars=40)
    assert question_objective(score, "recall") == 0.8
    assert question_objective(score, "balanced") == pytest.approx(2 * 0.8 * 0.2 / 1.0)


def test_questions_to_separate_a_tie():
    tie = compare_paired("recall", "a", [0.0] * 10 + [1.0] * 5 + [0.0] * 85, "b",
                         [1.0] * 10 + [0.0] * 5 + [0.0] * 85)
    more = questions_to_separate(tie)
    assert tie.p_value > 0.05 and more is not None and more > 0
    bigger = compare_paired("recall", "a", [0.0] * 20 + [1.0] * 10 + [0.0] * 170 + [0.0] * more,
                            "b", [1.0] * 20 + [0.0] * 10 + [0.0] * 170 + [0.0] * more)
    assert bigger.questions > 100
    even = compare_paired("recall", "a", [1.0, 0.0], "b", [0.0, 1.0])
    assert questions_to_separate(even) is None


def test_tune_runs_reuses_chunkings_resumes_and_saves(handbook):
    before = len(run_history())
    messages: list[Progress] = []
    result = tune(handbook.questions, handbook.documents, trials=5, progress=messages.append)
    assert len(result.trials) == 5 and result.failed == []
    assert len(run_history()) >= before + 5  # every trial kept like an evaluation
    assert messages[-1].fraction == 1.0 and any(m.eta_s for m in messages)
    labels = [o.label for o in result.trials]
    # the search starts from the presets, within the default budget (no answer model: 2,000)
    assert labels[0] == "recursive 500/50, vector, 2,000-token budget"
    assert result.budget.tokens == 2000 and "no answer model" in result.budget.source
    # after this many distinct chunkings the trials vary ranking and retrieval only
    budget = ceil(5 * NEW_CHUNKINGS_SHARE)
    chunkings = {o.plan.candidate.chunking_key() for o in result.trials}
    assert len(chunkings) == budget
    assert all(not o.chunked_new and o.embedded_new == 0 for o in result.trials[budget:])
    assert result.cache.served >= 5 - budget
    assert result.front and result.recommendation is not None
    best = result.recommendation
    assert best.outcome in result.front
    assert best.held_back.questions == len(result.split.held_back.questions)
    assert "held-back questions" in best.sentence()
    data = result.to_json()
    assert {"recall", "iou", "tokens", "configuration"} <= set(data["pareto"][0])
    assert data["recommended"]["label"] == best.outcome.label
    assert (data["held_back_best"] is None) == (len(result.held_back) < 3)

    again = tune(handbook.questions, handbook.documents, trials=7, resume=True)
    assert len(again.trials) == 7 and "Resumed" in again.notes[0]
    assert [o.label for o in again.trials[:5]] == labels

    saved = save_recommended("tuned handbook", best.outcome)
    stored = user_presets()["tuned handbook"]
    assert stored == saved and stored.ranking == best.outcome.plan.candidate.ranking
    assert (stored.embedder, stored.retrieval) == (best.outcome.plan.candidate.embedder,
                                                   best.outcome.plan.retrieval)


def test_a_cancelled_tune_keeps_its_finished_trials(handbook):
    cancel = threading.Event()
    messages: list[str] = []

    def stop_after_first(progress: Progress) -> None:
        messages.append(progress.message)
        if progress.message.startswith("Trial 2 of 3 · "):  # the second trial is under way
            cancel.set()

    with pytest.raises(Cancelled):
        tune(handbook.questions, handbook.documents, trials=3, objective="iou",
             progress=stop_after_first, cancel=cancel)
    trial = next(m for m in messages if m.startswith("Trial 1 of 3 · ") and ": " in m)
    label = trial.removeprefix("Trial 1 of 3 · ").split(": ")[0]  # said once, not twice
    assert trial.count(label) == 1, trial
    resumed = tune(handbook.questions, handbook.documents, trials=3, objective="iou",
                   resume=True)
    assert len(resumed.trials) == 3 and "1 finished" in resumed.notes[0]


def test_cli_tune_prints_the_front_and_the_recommendation(capsys, tmp_path):
    report = tmp_path / "tune.html"
    code = main(["tune", "--questions", str(SET), "--docs", str(DOCS), "--trials", "3",
                 "--budget", "1500", "--objective", "balanced", "--save-preset", "cli tuned",
                 "--report", str(report)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["objective"] == "balanced" and out["budget"]["tokens"] == 1500
    assert out["pareto"] and all({"recall", "iou", "tokens", "configuration"} <= set(p)
                                 for p in out["pareto"])
    assert out["recommended"]["held_back"]["tokens"] >= 0
    assert out["recommended"]["search"]["tokens"] <= 1500
    assert out["saved_preset"] == "cli tuned" and "cli tuned" in user_presets()
    assert out["split"]["search"] + out["split"]["held_back"] == 20
    page = report.read_text(encoding="utf-8")  # the tune as one self-contained file
    assert outside_references(page) == [] and 'class="plotly-graph-div"' in page
    assert "recommended (the knee)" in page  # the Pareto front marks its knee
    assert all(point["label"] in page for point in out["pareto"])


def test_cli_tune_searches_only_the_embedders_given(capsys, fake_embed,  # noqa: F811
                                                   monkeypatch):
    monkeypatch.setenv("EMBEDDING_BASE_URL", fake_embed.base_url)
    monkeypatch.setenv("EMBEDDING_MODEL", "fake-embed")
    code = main(["tune", "--questions", str(SET), "--docs", str(DOCS), "--trials", "4",
                 "--embedder", "minilm", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and len(out["all_trials"]) == 4
    assert {t["configuration"]["embedder"] for t in out["all_trials"]} == {BUILTIN.label}
    assert fake_embed.texts() == []  # the configured endpoint was never asked


@pytest.mark.parametrize("argv, message", [
    (["--trials", "0"], "number of trials"),
    (["--objective", "speed"], "invalid choice"),
    (["--budget", "0"], "token budget"),
])
def test_cli_tune_refuses_bad_input_in_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) if "speed" in argv else nullcontext():
        code = main(["tune", "--questions", str(SET), "--docs", str(DOCS), "--quiet", *argv])
        assert code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cluster_chunking_is_a_strategy_tune_tries():
    presets = dict(BUILTIN_PRESETS)
    space = search_space(presets)
    assert "cluster" in next(d.choices for d in space if d.name == "strategy")
    point = complete(space, {"strategy": "cluster", "size": 200, "tables": "whole",
                             "ranking": "hybrid", "retrieve": "top-k", "k": 5})
    plan = plan_for(point, space, presets)
    assert (plan.candidate.strategy, plan.candidate.settings) == (
        "cluster", {"size": 200, "tables": True})
    assert plan.candidate.label == "cluster 200, hybrid, top-5"

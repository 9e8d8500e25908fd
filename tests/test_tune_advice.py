"""Advice a user can act on: the budget from the answer model's context, the knee (the cheapest
configuration the statistics cannot tell from the best) with what a costlier one buys, IoU with a
recall floor, honest intervals and sentences on few questions, and several tune processes
adding trials to one study."""

from __future__ import annotations

import json
import sys

import pytest

from core.cli import main
from core.llm.settings import LLMSettings
from core.operations.assemble.budget import default_budget
from core.operations.evaluation import Candidate
from core.operations.tune.report import Figures, Recommendation, TrialOutcome, choose, versus
from core.operations.tune.space import TrialPlan
from core.operations.tune.storage import StudyError, open_study
from tests.tune_workers import DOCS, SET, assert_one_study, run_workers


def _trial(number: int, values: list[float], tokens: float,
           recalls: list[float] | None = None) -> TrialOutcome:
    """A finished trial scoring ``values`` per question (and ``recalls``, default the same)."""
    recalls = values if recalls is None else recalls
    mean, recall = sum(values) / len(values), sum(recalls) / len(recalls)
    figures = Figures(len(values), mean, (mean, mean), recall, (recall, recall), mean, tokens,
                      tuple(values))
    plan = TrialPlan(Candidate(f"c{number}", "fixed", {"size": 100 + number}))
    return TrialOutcome(number, plan, figures, 1.0, False, 0)


def test_the_budget_is_a_quarter_of_the_answer_models_context():
    model = LLMSettings(base_url="http://127.0.0.1:8080/v1", model="local", context_tokens=8192)
    budget = default_budget(model)
    assert budget.tokens == 2000 and "8,192-token context" in budget.source
    assert default_budget(model.model_copy(update={"context_tokens": 32768})).tokens == 8100
    none = default_budget(LLMSettings())
    assert none.tokens == 2000 and "no answer model" in none.source


def test_the_knee_within_the_budget_and_what_more_text_buys():
    best_within = _trial(0, [1.0] * 90 + [0.0] * 10, 1966)
    knee = _trial(1, [1.0] * 89 + [0.0] * 11, 900)  # one loss: the sign test cannot tell
    poor = _trial(2, [1.0] * 60 + [0.0] * 40, 300)
    over = _trial(3, [1.0] * 100, 6963)  # 11 wins over the knee: significantly better
    choice = choose([best_within, knee, poor, over], 2000, "recall")
    assert (choice.pick, choice.against, choice.tied) == (knee, best_within, 2)
    assert choice.costlier is over  # over the budget, named rather than taken
    assert choose([best_within, knee, poor], 2000, "recall").costlier is None
    # without a budget the top scorer is significantly better than every cheaper one: it is it
    assert choose([best_within, knee, poor, over], None, "recall").pick is over

    held = Figures(40, 0.96, (0.9, 1.0), 0.96, (0.9, 1.0), 0.1, 2000.0, (1.0,) * 40)
    more = Figures(40, 0.981, (0.9, 1.0), 0.981, (0.9, 1.0), 0.1, 7000.0, (1.0,) * 40)
    recommendation = Recommendation(knee, held, None, None, "recall", 2000,
                                    costlier=versus(knee, held, over, more, "recall"))
    assert recommendation.buys() == "+2.1 recall points for 3.5× the tokens"
    costlier = recommendation.to_json()["costlier"]
    assert costlier["label"] == "c3" and costlier["over_budget"] is True


def test_iou_with_a_recall_floor_and_whether_it_held():
    sharp = _trial(0, [0.2] * 20, 300, recalls=[1.0] * 14 + [0.0] * 6)  # IoU 0.2, recall 0.7
    floor_keeper = _trial(1, [0.1] * 20, 800, recalls=[1.0] * 18 + [0.0] * 2)  # recall 0.9
    assert choose([sharp, floor_keeper], None, "iou").pick is sharp
    assert choose([sharp, floor_keeper], None, "iou", min_recall=0.85).pick is floor_keeper
    assert choose([sharp], None, "iou", min_recall=0.85).pick is None

    def held(recall: float) -> Figures:
        return Figures(8, 0.1, (0.0, 0.2), recall, (0.5, 1.0), 0.1, 800.0, (0.1,) * 8)

    kept = Recommendation(floor_keeper, held(0.88), None, None, "iou", min_recall=0.85)
    assert kept.floor() == {"min_recall": 0.85, "held_back_recall": 0.88, "held": True}
    missed = Recommendation(floor_keeper, held(0.8), None, None, "iou", min_recall=0.85)
    assert missed.floor()["held"] is False


def test_a_tie_on_few_questions_says_too_few_to_tell():
    a, b = _trial(0, [1.0] * 8, 500), _trial(1, [1.0] * 8, 900)
    figures = Figures(8, 1.0, (0.68, 1.0), 1.0, (0.68, 1.0), 0.1, 500.0, (1.0,) * 8)
    recommendation = Recommendation(a, figures, versus(a, figures, b, figures, "recall"), None,
                                    "recall")
    sentence = recommendation.sentence()
    assert "too few questions to tell" in sentence
    assert "more questions would not separate" not in sentence
    for statistic in ("ties", "p =", "sign test", "[0.68"):  # in the details, not the sentence
        assert statistic not in sentence
    details = " ".join(recommendation.details())
    assert "0 wins, 0 losses, 8 ties" in details and "[0.68, 1.00]" in details


def test_a_study_searching_something_else_is_not_joined(tmp_path):
    url = f"sqlite:///{tmp_path / 'team.db'}"
    open_study("key-a", fresh=False, storage=url, name="team")
    assert open_study("key-a", fresh=False, storage=url, name="team").study_name == "team"
    with pytest.raises(StudyError, match="searches other questions"):
        open_study("key-b", fresh=False, storage=url, name="team")
    with pytest.raises(StudyError, match="Cannot open the study storage"):
        open_study("key-a", fresh=False, storage="nosuchdb://x", name="team")


def test_two_tune_processes_add_trials_to_one_study(tmp_path):
    url = f"sqlite:///{tmp_path / 'team.db'}"
    outputs = run_workers(url, [tmp_path / "data"] * 2)
    assert_one_study(url, outputs, total=6)


def test_a_storage_without_its_driver_is_one_sentence_naming_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if the team extra were not installed
    code = main(["tune", "--questions", str(SET), "--docs", str(DOCS), "--trials", "1",
                 "--storage", "postgresql://analyst:secret@db-host/chunklab", "--study", "team",
                 "--quiet"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err == ("error: The study storage postgresql://analyst:***@db-host/chunklab "
                            "needs the database driver 'psycopg', which is not installed: "
                            "install the team extra (pip install -e .[team]).\n")


def test_cli_budget_none_and_min_recall(capsys):
    code = main(["tune", "--questions", str(SET), "--docs", str(DOCS), "--trials", "3",
                 "--budget", "none", "--objective", "iou", "--min-recall", "0.5", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["budget"] == {"tokens": None, "source": "no budget (lifted by the "
                                                                     "user)"}
    assert out["min_recall"] == 0.5
    floor = out["recommended"]["recall_floor"]
    assert floor["min_recall"] == 0.5 and floor["held"] == (floor["held_back_recall"] >= 0.5)


def test_autocut_with_a_floor_and_a_cap_is_searched_and_kept_by_a_saved_preset(tmp_path,
                                                                                monkeypatch):
    from core.operations.evaluation import EvaluationError, Retrieval
    from core.operations.presets import BUILTIN_PRESETS, user_presets
    from core.operations.tune.run import save_recommended
    from core.operations.tune.space import AUTOCUT, plan_for, search_space

    assert Retrieval(20, autocut=1, floor=3).label == "autocut of top-20, at least 3"
    with pytest.raises(EvaluationError, match="A floor is the fewest hits autocut keeps"):
        Retrieval(10, floor=3)
    presets = dict(BUILTIN_PRESETS)
    space = search_space(presets)
    assert {"cap", "floor"} <= {d.name for d in space}
    point = {"strategy": "recursive", "size": 200, "overlap": 0.0, "unit": "tokens",
             "tables": "whole", "ranking": "hybrid", "merge_adjacent": False,
             "retrieve": AUTOCUT, "cap": 20, "floor": 2}
    plan = plan_for(point, space, presets)
    assert plan.retrieval == Retrieval(20, None, 1, 2)
    assert plan.candidate.label.endswith("autocut of top-20, at least 2")
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    outcome = _trial(0, [1.0] * 8, 500)
    saved = save_recommended("tuned floor", TrialOutcome(0, plan, outcome.search, 1.0, False, 0))
    assert user_presets()["tuned floor"].retrieval == Retrieval(20, None, 1, 2) == saved.retrieval


def test_assemble_retrieves_as_the_tuned_preset_of_its_chunk_set(tmp_path, monkeypatch):
    """A set built with a preset saved from a tune: Assemble's limit and autocut follow its k
    and autocut, and the floor keeps that many hits."""
    from streamlit.testing.v1 import AppTest

    import ui.resources
    from core.documents import convert
    from core.library import default_library
    from core.operations.evaluation import Retrieval
    from core.operations.presets import save_user_preset
    from core.operations.strategies import validated_config
    from core.store import ChunkSetInfo, ChunkStore
    from tests.docfactory import chunk_document
    from tests.pages import page_path
    from tests.retrieval_helpers import HANDBOOK, SAMPLES

    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    ui.resources.clear()
    default_library().add((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    settings = {"size": 200, "overlap": 0, "unit": "tokens", "tables": True}
    save_user_preset("tuned set", "recursive", settings, ranking="hybrid",
                     retrieval=Retrieval(7, autocut=1, floor=4))
    store = ChunkStore()  # a set named after the preset, holding its chunking as ingest stores it
    document = convert((SAMPLES / HANDBOOK).read_bytes(), HANDBOOK)
    resolved = validated_config("recursive", settings).model_dump(mode="json")
    store.create_set(ChunkSetInfo(name="tuned set", strategy="recursive", settings=resolved))
    store.add_chunks("tuned set", chunk_document(document, "recursive", **settings))
    at = AppTest.from_file(page_path("assemble"), default_timeout=90)
    at.session_state["assemble_question"] = "How many coordinator failures does a cluster " \
                                            "with five coordinators tolerate?"
    at.session_state["assemble_set_a"] = "tuned set"
    at.run()
    assert not at.exception, at.exception
    assert at.number_input(key="assemble_limit").value == 7
    assert at.toggle(key="assemble_autocut").value is True
    packs = [h.value for h in at.subheader if h.value.startswith("[")]
    assert len(packs) >= 4  # the floor: autocut keeps at least four hits
    ui.resources.clear()

"""Tune: search the configurations (:mod:`core.operations.tune.space`) for the best chunking of
the user's documents on their question set, and show the trade-off of quality against cost.

How a tune runs:

- the question set is split once, seeded and stratified by document, into a **search part**
  (every trial is scored on it) and a **held-back part** (the front and the recommendation are
  scored again on it, and the recommendation's figures are those: choosing the best of many
  trials on the same questions that report it would flatter it);
- an Optuna study (TPE, two objectives: the chosen quality up, mean retrieved tokens per question
  down; configurations over the token cap count as infeasible) proposes one configuration per
  trial, starting from the built-in presets as a user would run them; trials run one after
  another with progress, a time estimate and cancellation, and each is kept in the run history
  like an evaluation;
- the study lives in the data folder as an append-only journal file (no database driver to
  load), so a cancelled or interrupted tune is resumed where it stopped;
- work is reused: documents are converted once by the caller, the chunks of a configuration are
  made once (:func:`~core.operations.evaluation.chunk_memo.chunks_for`), vectors are cached per text
  (a trial that shares chunks with an earlier one embeds nothing new), and a trial already
  evaluated is read from the evaluation cache. Each trial records whether it chunked or
  embedded anything new.

Optuna loads only when a tune starts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from math import ceil
from typing import TYPE_CHECKING, Any

from core.documents.model import Document
from core.embeddings.identity import EmbedderRef
from core.embeddings.settings import EmbeddingSettings, choices
from core.errors import ChunkLabError
from core.evaluation.questions import QuestionSet
from core.evaluation.split import (
    HELD_BACK_SHARE,
    Split,
    split_questions,
    too_few,
    tune_minimum,
)
from core.operations.assemble.budget import TokenBudget, default_budget
from core.operations.evaluation import Candidate
from core.operations.presets import Preset, all_presets, save_user_preset
from core.operations.tune.report import (
    OBJECTIVES,
    CacheShare,
    Figures,
    Recommendation,
    TrialOutcome,
    TuneResult,
    choose,
    evidence,
    front,
    ranked,
    versus,
)
from core.operations.tune.space import (
    Dimension,
    TrialPlan,
    baseline_points,
    describe,
    draw,
    embedders_by_label,
    plan_for,
    search_space,
    signature,
    tunable_presets,
)
from core.operations.tune.storage import (
    latest,
    open_study,
    remember_latest,
    study_exists,
    study_key,
)
from core.operations.tune.trials import TrialRun, queue_reuse, run_trial
from core.progress import ProgressFn, Tracker
from core.store import ChunkStore

if TYPE_CHECKING:
    import optuna

__all__ = ["HELD_BACK_SHARE", "split_questions", "too_few", "tune", "tune_minimum", "TuneError"]

DEFAULT_TRIALS = 16
MAX_TRIALS = 500
# Distinct chunkings a tune makes, as a share of its trials; later trials vary ranking and
# retrieval on the best REUSED of them. Making and embedding chunks is what a trial costs;
# ranking and scoring again is cheap.
NEW_CHUNKINGS_SHARE = 0.3


class TuneError(ChunkLabError):
    """A tune that cannot run: a bad objective, trial count, budget or recall floor."""


def _outcome(trial: optuna.trial.FrozenTrial, space: _Space) -> TrialOutcome:
    attrs = trial.user_attrs
    return TrialOutcome(trial.number, space.plan(trial.params),
                        Figures.from_json(attrs["search"]), attrs["seconds"],
                        attrs["chunked_new"], attrs["embedded_new"], attrs.get("run", ""))


def _validate(objective: str, trials: int, budget: TokenBudget, min_recall: float | None
              ) -> None:
    if objective not in OBJECTIVES:
        raise TuneError(f"Unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}.")
    if not 1 <= trials <= MAX_TRIALS:
        raise TuneError(f"The number of trials must be 1 to {MAX_TRIALS}, not {trials}.")
    if budget.tokens is not None and budget.tokens < 1:
        raise TuneError(f"The token budget must be at least 1, not {budget.tokens}.")
    if min_recall is not None and not 0 < min_recall <= 1:
        raise TuneError(f"The recall floor must be above 0 and at most 1, not {min_recall}.")


@dataclass(frozen=True)
class _Space:
    """What a tune may try, and the key naming what it searches."""

    key: str
    dimensions: tuple[Dimension, ...]
    presets: dict[str, Preset]
    embedders: dict[str, EmbedderRef]
    inputs: str  # the key without the space: the user's inputs alone
    include_front_matter: bool = False  # every trial retrieves covers, contents, indexes too

    def plan(self, params: Mapping[str, Any]) -> TrialPlan:
        plan = plan_for(params, self.dimensions, self.presets, self.embedders)
        return replace(plan, retrieval=replace(plan.retrieval,
                                               include_front_matter=self.include_front_matter))


@dataclass
class _Search:
    """The study and the space a tune draws from."""

    study: optuna.Study
    name: str
    space: _Space

    def finished(self) -> list[optuna.trial.FrozenTrial]:
        import optuna

        return self.study.get_trials(deepcopy=False,
                                     states=(optuna.trial.TrialState.COMPLETE,))


def tune(
    question_set: QuestionSet,
    documents: Mapping[str, Document],
    *,
    trials: int = DEFAULT_TRIALS,
    objective: str = "recall",
    budget: TokenBudget | None = None,
    min_recall: float | None = None,
    resume: bool = False,
    held_back_share: float = HELD_BACK_SHARE,
    presets: Mapping[str, Preset] | None = None,
    embedders: list[EmbedderRef] | None = None,
    embedding: EmbeddingSettings | None = None,
    baselines: bool = True,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    store: ChunkStore | None = None,
    storage: str | None = None,
    study: str | None = None,
    include_front_matter: bool = False,
) -> TuneResult:
    """Run (or with ``resume`` go on with) a tune of ``trials`` trials in all on the validated
    ``question_set`` about ``documents``; ``budget``: the most tokens a question may retrieve on
    average (default: what the answer model takes); ``min_recall``: the recall a recommendation
    must reach on the search questions; ``embedders``: those to try (by default the user's:
    MiniLM and the configured endpoint), ``embedding`` the session's endpoint settings.
    ``storage`` and ``study``: an Optuna storage URL and a study name several processes share;
    this process adds ``trials`` trials to it and recommends from all of them. Front matter
    stays out of every trial's retrieval unless ``include_front_matter``. Progress counts
    trials, then the held-back scoring; cancelling stops at the next step, and the finished
    trials stay for a resume."""
    started = time.perf_counter()
    budget = budget or default_budget()
    _validate(objective, trials, budget, min_recall)
    questions = QuestionSet(question_set.name, tuple(
        q for q in question_set.questions if q.corpus_id in documents))
    split = split_questions(questions, held_back_share)
    space = _space_for(questions, documents, objective, budget, min_recall, split, presets,
                       embedders, embedding, include_front_matter)
    search = _Search(open_study(space.key, fresh=not resume and study is None, storage=storage,
                                name=study), study or space.key, space)
    remember_latest(space.inputs, space.key)
    return _tuned(search, _notes(search, study, resume), split, questions, documents, trials,
                  objective, budget, min_recall, baselines, progress, cancel, store, embedding,
                  study is not None, started)


def stored_result(question_set: QuestionSet, documents: Mapping[str, Document], *,
                  objective: str = "recall", budget: TokenBudget | None = None,
                  min_recall: float | None = None, held_back_share: float = HELD_BACK_SHARE,
                  embedding: EmbeddingSettings | None = None, store: ChunkStore | None = None,
                  storage: str | None = None, study: str | None = None,
                  include_front_matter: bool = False) -> TuneResult | None:
    """What the stored tune of these inputs found (every worker's trials of a shared study),
    trying nothing new: the held-back figures come from the evaluation cache. None when no
    trial of it finished."""
    started = time.perf_counter()
    budget = budget or default_budget()
    questions = QuestionSet(question_set.name, tuple(
        q for q in question_set.questions if q.corpus_id in documents))
    split = split_questions(questions, held_back_share)
    space = _space_for(questions, documents, objective, budget, min_recall, split, None, None,
                       embedding, include_front_matter)
    key = latest(space.inputs) or space.key  # saving a preset since then widened the space
    if not study_exists(key, storage=storage, name=study):
        return None
    search = _Search(open_study(key, fresh=False, storage=storage, name=study), study or key,
                     space)
    if not search.finished():
        return None
    return _tuned(search, [], split, questions, documents, 0, objective, budget, min_recall,
                  False, None, None, store, embedding, True, started)


def _tuned(search: _Search, notes: list[str], split: Split, questions: QuestionSet,
           documents: Mapping[str, Document], trials: int, objective: str, budget: TokenBudget,
           min_recall: float | None, baselines: bool, progress: ProgressFn | None,
           cancel: threading.Event | None, store: ChunkStore | None,
           embedding: EmbeddingSettings | None, shared: bool, started: float) -> TuneResult:
    """Add the trials due (``shared``: ``trials`` more, else up to ``trials`` in all) to the
    study and report on all of its trials."""
    finished = len(search.finished())
    if baselines and not search.study.trials:
        space = search.space
        for point in baseline_points(space.dimensions, space.presets, budget.tokens)[:trials]:
            search.study.enqueue_trial(point)
    todo = trials if shared else max(0, trials - finished)
    total = finished + todo
    tracker = Tracker(progress, todo + 1, cancel, what="The tune")
    run = TrialRun(split, documents, objective, budget, min_recall, tracker, cancel, store,
               embedding)
    chunkings = max(1, ceil(total * NEW_CHUNKINGS_SHARE))
    _loop(run, search, todo, finished, total, chunkings, shared)
    outcomes = [_outcome(t, search.space) for t in search.finished()]
    failed = [f"{t.user_attrs['label']}: {t.user_attrs['error']}"
              for t in search.study.get_trials(deepcopy=False) if "error" in t.user_attrs]
    result = _report(run, search.name, questions.name, outcomes, failed, todo, notes)
    return replace(result, seconds=time.perf_counter() - started)


def _space_for(questions: QuestionSet, documents: Mapping[str, Document], objective: str,
               budget: TokenBudget, min_recall: float | None, split: Split,
               presets: Mapping[str, Preset] | None, embedders: list[EmbedderRef] | None,
               embedding: EmbeddingSettings | None, include_front_matter: bool) -> _Space:
    """The space to search (the user's presets and embedders by default) and its key (front
    matter included names a study of its own)."""
    dimensions, offered, by_label = searched(budget, presets, embedders, embedding)
    settings = [budget.tokens, min_recall, *(["front matter"] if include_front_matter else [])]
    inputs = study_key(questions, documents, objective, settings, split)
    return _Space(study_key(questions, documents, objective, settings, split,
                            signature(dimensions)), dimensions, offered, by_label, inputs,
                  include_front_matter)


def searched(budget: TokenBudget, presets: Mapping[str, Preset] | None = None,
             embedders: list[EmbedderRef] | None = None,
             embedding: EmbeddingSettings | None = None
             ) -> tuple[tuple[Dimension, ...], dict[str, Preset], dict[str, EmbedderRef]]:
    """The space a tune within ``budget`` searches — its dimensions, the presets and the
    embedders (by label) it draws from: the user's presets and embedders by default."""
    by_label = embedders_by_label(choices(embedding) if embedders is None else embedders)
    offered = tunable_presets(all_presets() if presets is None else presets,
                              list(by_label.values()))
    return search_space(offered, budget.tokens, tuple(by_label)), offered, by_label


def space_lines(budget: TokenBudget | None = None, embedders: list[EmbedderRef] | None = None,
                embedding: EmbeddingSettings | None = None) -> list[str]:
    """What a tune with these options would try, a dimension a line (nothing is run)."""
    dimensions, _, by_label = searched(budget or default_budget(), None, embedders, embedding)
    return describe(dimensions, tuple(by_label))


def _notes(search: _Search, name: str | None, resume: bool) -> list[str]:
    """What a tune went on with: a study joined, a tune resumed, or none to resume."""
    finished = len(search.finished())
    if name is not None and finished:
        return [f"Joined the study {name!r} with {finished} finished trials."]
    if resume and finished:
        return [f"Resumed a stored tune with {finished} finished trials."]
    if resume:
        return ["No stored tune of this question set with these settings: started anew."]
    return []


def _loop(run: TrialRun, search: _Search, todo: int, finished: int, total: int, chunkings: int,
          shared: bool) -> None:
    """Ask the study for ``todo`` configurations, score each on the search part, tell it. In a
    study ``shared`` with other workers no trial is queued for reuse (the sampler alone
    proposes), and a trial another worker finished first is not counted."""
    import optuna

    study = search.study
    n, repeats = 0, 0
    while n < todo:
        run.tracker.step(n, f"Trial {finished + n + 1} of {total}")
        if not shared:
            queue_reuse(study, search.space.dimensions, chunkings, finished + n, run.cap)
        trial = study.ask()
        try:
            plan = search.space.plan(draw(search.space.dimensions, trial.suggest_categorical))
            tried = {search.space.plan(t.params).key() for t in search.finished()}
            if plan.key() in tried and repeats < todo:  # nothing to learn: draw again
                repeats += 1
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                continue
            n += 1
            run_trial(run, study, trial, plan, n - 1, f"Trial {finished + n} of {total}")
        except optuna.exceptions.UpdateFinishedTrialError:  # another worker took it
            continue


def _report(run: TrialRun, name: str, set_name: str, outcomes: list[TrialOutcome],
            failed: list[str], done: int, notes: list[str]) -> TuneResult:
    """The front, the held-back figures and the recommendation."""
    the_front = front(outcomes)
    choice = choose(outcomes, run.cap, run.objective, run.min_recall)
    best = choice.pick
    presets = [o for o in ranked(outcomes, run.cap) if o.builtin_preset and o is not best] \
        if best and not best.builtin_preset else []
    wanted = {o.plan.key(): o for o in [*the_front, *[o for o in (best, choice.against,
                                                                  choice.costlier) if o],
                                        *presets[:1]]}
    held: dict[str, Figures] = {}
    for n, (plan_key, outcome) in enumerate(wanted.items()):
        [result] = run.evaluate(outcome.plan, run.split.held_back, done + n / len(wanted),
                                f"Held-back questions ({outcome.label})").require_all()
        held[plan_key] = Figures.of(result, run.objective)
    run.tracker.step(done + 1, "Done")
    recommendation = None

    def against(other: TrialOutcome | None) -> Any:
        return None if other is None or best is None else versus(
            best, held[best.plan.key()], other, held[other.plan.key()], run.objective)

    if best is not None:
        recommendation = Recommendation(
            best, held[best.plan.key()], against(choice.against),
            against(presets[0] if presets else None), run.objective, run.cap, choice.tied,
            costlier=against(choice.costlier), min_recall=run.min_recall)
        recommendation = replace(recommendation, evidence=evidence(recommendation))
    elif outcomes:
        notes.append(_nothing_kept(run))
    served = [o for o in outcomes if o.from_cache]
    cache = CacheShare(len(outcomes), len(served), sum(not o.chunked_new for o in outcomes),
                       sum(o.embedded_new == 0 for o in outcomes))
    return TuneResult(name, set_name, run.objective, run.budget, run.split, outcomes, failed,
                      the_front, held, recommendation, cache, 0.0, notes, run.min_recall)


def _nothing_kept(run: TrialRun) -> str:
    within = [] if run.cap is None else [f"retrieved {run.cap:,} tokens per question or fewer"]
    floor = [] if run.min_recall is None else [f"reached recall {run.min_recall:.2f}"]
    return (f"No configuration {' and '.join(within + floor)}: raise the budget"
            f"{' or lower the recall floor' if floor else ''}.")


def save_recommended(name: str, outcome: TrialOutcome) -> Preset:
    """Save a configuration a tune tried as a named preset: its chunking, ranking, merging,
    embedder and how much each question retrieves, so evaluating the preset measures what the
    tune measured."""
    candidate: Candidate = outcome.plan.candidate
    return save_user_preset(name, candidate.strategy, dict(candidate.settings),
                            ranking=candidate.ranking, merge_adjacent=candidate.merge_adjacent,
                            embedder=candidate.embedder, retrieval=outcome.plan.retrieval,
                            tuned=True)


def default_preset_name(outcome: TrialOutcome) -> str:
    """"tuned: recursive 300/30, hybrid, top-5" (cut to a preset name's length)."""
    return f"tuned: {outcome.label}"[:80]


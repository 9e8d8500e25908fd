"""Tune: search the configurations (:mod:`core.operations.tune_space`) for the best chunking of
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
  made once (:func:`~core.operations.chunk_memo.chunks_for`), vectors are cached per text
  (a trial that shares chunks with an earlier one embeds nothing new), and a trial already
  evaluated is read from the evaluation cache. Each trial records whether it chunked or
  embedded anything new.

Optuna loads only when a tune starts.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
import warnings
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from math import ceil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.config import data_dir
from core.documents.model import Document
from core.embeddings.cache import embedded_texts
from core.embeddings.identity import EmbedderRef
from core.embeddings.settings import EmbeddingSettings
from core.errors import ChunkLabError
from core.evaluation.questions import Question, QuestionSet
from core.operations.chunk_memo import chunks_memoised
from core.operations.evaluation import Candidate, Evaluation, evaluate
from core.operations.evaluation_runs import record_run
from core.operations.presets import Preset, all_presets, save_user_preset
from core.operations.stacks import embedder_choices
from core.operations.tune_report import (
    OBJECTIVES,
    Figures,
    Recommendation,
    TrialOutcome,
    choose,
    evidence,
    front,
    ranked,
    versus,
)
from core.operations.tune_space import (
    Dimension,
    TrialPlan,
    baseline_points,
    chunking_point,
    draw,
    embedders_by_label,
    plan_for,
    search_space,
    signature,
    tunable_presets,
)
from core.progress import Cancelled, Progress, ProgressFn, Tracker
from core.store import ChunkStore

if TYPE_CHECKING:
    import optuna

DEFAULT_TRIALS = 16
MAX_TRIALS = 500
HELD_BACK_SHARE = 0.3
SPLIT_SEED = 0
SAMPLER_SEED = 0
MIN_QUESTIONS = 8  # below this a split leaves too little on either side to tell anything
# Distinct chunkings a tune makes, as a share of its trials; later trials vary ranking and
# retrieval on the best REUSED of them. Making and embedding chunks is what a trial costs (a
# 1.5 MB corpus: minutes), ranking and scoring again is seconds.
NEW_CHUNKINGS_SHARE = 0.3
REUSED = 2


class TuneError(ChunkLabError):
    """A tune that cannot run: too few questions, a bad objective, trial count or cap."""


@dataclass(frozen=True)
class Split:
    """The question set cut in two, per document, the same way every time for the same set."""

    search: QuestionSet
    held_back: QuestionSet
    share: float
    seed: int
    by_document: dict[str, tuple[int, int]]  # corpus_id -> (search, held back)

    def to_json(self) -> dict[str, Any]:
        return {"search": len(self.search.questions), "held_back": len(self.held_back.questions),
                "held_back_share": self.share, "seed": self.seed, "stratified_by": "document",
                "by_document": {cid: list(counts) for cid, counts in self.by_document.items()}}


def split_questions(question_set: QuestionSet, share: float = HELD_BACK_SHARE,
                    seed: int = SPLIT_SEED) -> Split:
    """Hold back ``share`` of each document's questions (rounded; a document with one question
    keeps it for the search), chosen by a generator seeded with ``seed`` and the document."""
    if not 0 < share < 1:
        raise TuneError(f"The held-back share must be between 0 and 1, not {share}.")
    by_document: dict[str, list[Question]] = defaultdict(list)
    for q in question_set.questions:
        by_document[q.corpus_id].append(q)
    held: set[tuple[str, int]] = set()
    counts = {}
    for corpus_id, questions in sorted(by_document.items()):
        n_held = min(len(questions) - 1, round(len(questions) * share))
        picked = random.Random(f"{seed}:{corpus_id}").sample(questions, n_held)
        held |= {(q.corpus_id, q.row) for q in picked}
        counts[corpus_id] = (len(questions) - n_held, n_held)
    search = tuple(q for q in question_set.questions if (q.corpus_id, q.row) not in held)
    back = tuple(q for q in question_set.questions if (q.corpus_id, q.row) in held)
    if len(question_set.questions) < MIN_QUESTIONS or not back:
        raise TuneError(f"Tuning needs at least {MIN_QUESTIONS} valid questions, some of them on "
                        "a document with two or more, to hold some back; this set has "
                        f"{len(question_set.questions)}.")
    name = question_set.name
    return Split(QuestionSet(f"{name} (tune: search part)", search),
                 QuestionSet(f"{name} (tune: held back)", back), share, seed, counts)


@dataclass(frozen=True)
class CacheShare:
    """How much of the trials' work earlier work served."""

    trials: int
    served: int  # chunked nothing and embedded nothing new
    chunked_nothing_new: int
    embedded_nothing_new: int

    @property
    def share(self) -> float:
        return self.served / self.trials if self.trials else 0.0

    def sentence(self) -> str:
        return (f"{self.served} of {self.trials} trials ({self.share:.0%}) were served from "
                f"cache: {self.chunked_nothing_new} chunked nothing new, "
                f"{self.embedded_nothing_new} embedded nothing new.")

    def to_json(self) -> dict[str, Any]:
        return {"trials": self.trials, "served": self.served, "share": round(self.share, 4),
                "chunked_nothing_new": self.chunked_nothing_new,
                "embedded_nothing_new": self.embedded_nothing_new}


@dataclass(frozen=True)
class TuneResult:
    study: str
    question_set: str
    objective: str
    cap: int | None
    split: Split
    trials: list[TrialOutcome]
    failed: list[str]  # trials that could not be scored, with why
    front: list[TrialOutcome]
    held_back: dict[str, Figures]  # plan key -> figures on the held-back part
    recommendation: Recommendation | None
    cache: CacheShare
    seconds: float
    notes: list[str] = field(default_factory=list)

    def held(self, outcome: TrialOutcome) -> Figures | None:
        return self.held_back.get(outcome.plan.key())

    def to_json(self) -> dict[str, Any]:
        def point(o: TrialOutcome) -> dict[str, Any]:
            held = self.held(o)
            s = o.search
            return {"label": o.label, "recall": round(s.recall, 6), "iou": round(s.iou, 6),
                    "tokens": round(s.tokens, 1), "objective": round(s.objective, 6),
                    "recall_ci95": [round(v, 6) for v in s.recall_ci],
                    "configuration": o.plan.to_json(),
                    "held_back": None if held is None else held.to_json()}

        return {
            "values": "fractions (0..1); tokens: mean retrieved per question",
            "study": self.study, "question_set": self.question_set, "objective": self.objective,
            "budget": self.cap, "split": self.split.to_json(),
            "trials": len(self.trials), "failed": self.failed,
            "seconds": round(self.seconds, 1), "cache": self.cache.to_json(),
            "pareto": [point(o) for o in self.front],
            "recommended": None if self.recommendation is None
            else self.recommendation.to_json(),
            "all_trials": [point(o) | {"trial": o.number, "seconds": round(o.seconds, 2),
                                       "from_cache": o.from_cache, "run": o.run}
                           for o in self.trials],
            "notes": self.notes,
        }


def _folder() -> Path:
    return data_dir() / "tune"


def study_key(question_set: QuestionSet, documents: Mapping[str, Document], objective: str,
              cap: int | None, split: Split, space_signature: str) -> str:
    """Names the stored study: the same questions, documents, objective, cap, split and space
    resume the same study."""
    payload = [question_set.version, sorted((cid, hashlib.sha256(d.text.encode()).hexdigest())
                                            for cid, d in documents.items()),
               objective, cap, split.share, split.seed, space_signature]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:16]


def _study(key: str, fresh: bool) -> optuna.Study:
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    path = _folder() / f"{key}.journal"
    path.parent.mkdir(parents=True, exist_ok=True)
    if fresh:
        path.unlink(missing_ok=True)
    storage = JournalStorage(JournalFileBackend(str(path)))

    with warnings.catch_warnings():  # multivariate and group are marked experimental
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(seed=SAMPLER_SEED, multivariate=True, group=True,
                                             n_startup_trials=6)
    return optuna.create_study(storage=storage, study_name=key, sampler=sampler,
                               directions=["maximize", "minimize"], load_if_exists=True)


def _outcome(trial: optuna.trial.FrozenTrial, space: tuple[Dimension, ...],
             presets: Mapping[str, Preset], embedders: Mapping[str, EmbedderRef]
             ) -> TrialOutcome:
    attrs = trial.user_attrs
    return TrialOutcome(trial.number, plan_for(trial.params, space, presets, embedders),
                        Figures.from_json(attrs["search"]), attrs["seconds"],
                        attrs["chunked_new"], attrs["embedded_new"], attrs.get("run", ""))


@dataclass
class _Run:
    """What one tune needs while it runs."""

    split: Split
    documents: Mapping[str, Document]
    objective: str
    tracker: Tracker
    cancel: threading.Event | None
    store: ChunkStore | None
    embedding: EmbeddingSettings | None = None

    def evaluate(self, plan: TrialPlan, questions: QuestionSet, done: float, what: str
                 ) -> Evaluation:
        """``plan`` evaluated on ``questions`` (one configuration: its result or its failure)."""
        def step(progress: Progress) -> None:
            self.tracker.step(done + progress.fraction, f"{what}: {progress.message}")

        retrieval = plan.retrieval
        return evaluate(questions, dict(self.documents), [plan.candidate],
                        ranking=plan.candidate.ranking or "vector", k=retrieval.k,
                        budget=retrieval.budget, autocut=retrieval.autocut, progress=step,
                        cancel=self.cancel, store=self.store, embedding=self.embedding)


def _trial(run: _Run, plan: TrialPlan, done: float, what: str
           ) -> tuple[dict[str, Any], Figures]:
    """Score ``plan`` on the search part; the trial's attributes and figures."""
    started = time.perf_counter()
    embedded = embedded_texts()
    corpora = {q.corpus_id for q in run.split.search.questions}
    chunked_new = not all(chunks_memoised(run.documents[cid], plan.candidate) for cid in corpora)
    evaluation = run.evaluate(plan, run.split.search, done, what)
    [result] = evaluation.require_all()  # a failed configuration fails its trial
    record = record_run(evaluation, run.split.search)
    figures = Figures.of(result, run.objective)
    attrs = {"search": figures.to_json(values=True), "seconds": time.perf_counter() - started,
             "chunked_new": chunked_new and not result.cached,
             "embedded_new": embedded_texts() - embedded, "run": record.id if record else "",
             "tokens": figures.tokens, "label": plan.candidate.label}
    return attrs, figures


def _reuse_when_due(study: optuna.Study, space: tuple[Dimension, ...], chunkings: int,
                    number: int, cap: int | None) -> None:
    """Once ``chunkings`` distinct chunkings are made, queue the next trial on one of them — the
    best :data:`REUSED` by the objective (within ``cap`` when some trial kept to it), in turn —
    for the sampler to vary the rest: it embeds nothing new (making and embedding chunks is
    what a trial costs)."""
    import optuna

    done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if any(t.state == optuna.trial.TrialState.WAITING for t in study.get_trials(deepcopy=False)):
        return
    best: dict[str, tuple[bool, float, dict[str, Any]]] = {}
    for t in done:
        point = chunking_point(space, t.params)
        key = json.dumps(point, sort_keys=True)
        score = (cap is None or t.values[1] <= cap, t.values[0], point)
        if key not in best or score[:2] > best[key][:2]:
            best[key] = score
    if len(best) < chunkings:
        return
    order = sorted(best.values(), key=lambda item: (not item[0], -item[1]))[:REUSED]
    study.enqueue_trial(order[number % len(order)][2], skip_if_exists=False)


def tune(
    question_set: QuestionSet,
    documents: Mapping[str, Document],
    *,
    trials: int = DEFAULT_TRIALS,
    objective: str = "recall",
    cap: int | None = None,
    resume: bool = False,
    held_back_share: float = HELD_BACK_SHARE,
    presets: Mapping[str, Preset] | None = None,
    embedders: list[EmbedderRef] | None = None,
    embedding: EmbeddingSettings | None = None,
    baselines: bool = True,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    store: ChunkStore | None = None,
) -> TuneResult:
    """Run (or with ``resume`` go on with) a tune of ``trials`` trials in all on the validated
    ``question_set`` about ``documents``; ``cap``: the most tokens a question may retrieve on
    average; ``embedders``: those to try (by default the user's: MiniLM and the configured
    endpoint), ``embedding`` the session's endpoint settings. Progress counts trials, then the
    held-back scoring; cancelling stops at the next step, and the finished trials stay for a
    resume."""
    started = time.perf_counter()
    if objective not in OBJECTIVES:
        raise TuneError(f"Unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}.")
    if not 1 <= trials <= MAX_TRIALS:
        raise TuneError(f"The number of trials must be 1 to {MAX_TRIALS}, not {trials}.")
    if cap is not None and cap < 1:
        raise TuneError(f"The token budget must be at least 1, not {cap}.")
    questions = QuestionSet(question_set.name, tuple(
        q for q in question_set.questions if q.corpus_id in documents))
    split = split_questions(questions, held_back_share)
    by_label = embedders_by_label(embedder_choices(embedding) if embedders is None
                                  else embedders)
    offered = tunable_presets(all_presets() if presets is None else presets,
                              list(by_label.values()))
    space = search_space(offered, cap, tuple(by_label))
    key = study_key(questions, documents, objective, cap, split, signature(space))
    study = _study(key, fresh=not resume)
    notes = []
    import optuna  # loaded by _study already

    complete = optuna.trial.TrialState.COMPLETE
    finished = len(study.get_trials(deepcopy=False, states=(complete,)))
    if resume and finished:
        notes.append(f"Resumed a stored tune with {finished} finished trials.")
    elif resume:
        notes.append("No stored tune of this question set with these settings: started anew.")
    if baselines and not study.trials:
        for point in baseline_points(space, offered, cap)[:trials]:
            study.enqueue_trial(point)
    todo = max(0, trials - finished)
    tracker = Tracker(progress, todo + 1, cancel, what="The tune")
    run = _Run(split, documents, objective, tracker, cancel, store, embedding)
    chunkings = max(1, ceil(trials * NEW_CHUNKINGS_SHARE))
    tried = {plan_for(t.params, space, offered, by_label).key()
             for t in study.get_trials(deepcopy=False, states=(complete,))}
    n, repeats = 0, 0
    while n < todo:
        tracker.step(n, f"Trial {finished + n + 1} of {trials}")
        _reuse_when_due(study, space, chunkings, finished + n, cap)
        trial = study.ask()
        plan = plan_for(draw(space, trial.suggest_categorical), space, offered, by_label)
        if plan.key() in tried and repeats < todo:  # nothing to learn: draw again
            repeats += 1
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            continue
        n += 1
        tried.add(plan.key())
        what = f"Trial {finished + n} of {trials} ({plan.candidate.label})"
        try:
            attrs, figures = _trial(run, plan, n - 1, what)
        except ChunkLabError as err:
            if isinstance(err, Cancelled):
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                raise
            # this configuration cannot run on these documents: on to the next one
            trial.set_user_attr("label", plan.candidate.label)
            trial.set_user_attr("error", str(err))
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        except BaseException:  # the page stopped the run: the trial did not finish
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            raise
        for name, value in attrs.items():
            trial.set_user_attr(name, value)
        if cap is not None:  # over the cap: infeasible, which the sampler steers away from
            trial.set_constraint("tokens", figures.tokens - cap)
        study.tell(trial, [figures.objective, figures.tokens])

    outcomes = [_outcome(t, space, offered, by_label)
                for t in study.get_trials(deepcopy=False, states=(complete,))]
    failed = [f"{t.user_attrs['label']}: {t.user_attrs['error']}"
              for t in study.get_trials(deepcopy=False) if "error" in t.user_attrs]
    result = _report(run, key, questions.name, cap, outcomes, failed, todo, notes)
    return replace(result, seconds=time.perf_counter() - started)


def _report(run: _Run, key: str, name: str, cap: int | None, outcomes: list[TrialOutcome],
            failed: list[str], done: int, notes: list[str]) -> TuneResult:
    """The front, the held-back figures and the recommendation."""
    the_front = front(outcomes)
    best, runner_up, tied = choose(outcomes, cap, run.objective)
    presets = [o for o in ranked(outcomes, cap) if o.builtin_preset and o is not best] \
        if best and not best.builtin_preset else []
    wanted = {o.plan.key(): o for o in [*the_front, *[o for o in (best, runner_up) if o],
                                        *presets[:1]]}
    held: dict[str, Figures] = {}
    for n, (plan_key, outcome) in enumerate(wanted.items()):
        [result] = run.evaluate(outcome.plan, run.split.held_back, done + n / len(wanted),
                                f"Held-back questions ({outcome.label})").require_all()
        held[plan_key] = Figures.of(result, run.objective)
    run.tracker.step(done + 1, "Done")
    recommendation = None
    if best is not None:
        mine = held[best.plan.key()]
        recommendation = Recommendation(
            best, mine,
            None if runner_up is None else versus(best, mine, runner_up,
                                                  held[runner_up.plan.key()], run.objective),
            versus(best, mine, presets[0], held[presets[0].plan.key()], run.objective)
            if presets else None, run.objective, cap, tied)
        recommendation = replace(recommendation, evidence=evidence(recommendation))
    elif outcomes:
        notes.append(f"No configuration retrieved {cap:,} tokens per question or fewer: "
                     "raise the budget.")
    served = [o for o in outcomes if o.from_cache]
    cache = CacheShare(len(outcomes), len(served), sum(not o.chunked_new for o in outcomes),
                       sum(o.embedded_new == 0 for o in outcomes))
    return TuneResult(key, name, run.objective, cap, run.split, outcomes, failed, the_front,
                      held, recommendation, cache, 0.0, notes)


def save_recommended(name: str, outcome: TrialOutcome) -> Preset:
    """Save a configuration a tune tried as a named preset: its chunking, ranking, merging,
    embedder and how much each question retrieves, so evaluating the preset measures what the
    tune measured."""
    candidate: Candidate = outcome.plan.candidate
    return save_user_preset(name, candidate.strategy, dict(candidate.settings),
                            ranking=candidate.ranking, merge_adjacent=candidate.merge_adjacent,
                            embedder=candidate.embedder, retrieval=outcome.plan.retrieval)


def default_preset_name(outcome: TrialOutcome) -> str:
    """"tuned: recursive 300/30, hybrid, top-5" (cut to a preset name's length)."""
    return f"tuned: {outcome.label}"[:80]


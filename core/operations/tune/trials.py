"""One trial of a tune: a configuration scored on the search part of the question set, told to
the study, and kept in the run history like an evaluation; and the reuse of chunkings already
made (making and embedding chunks is what a trial costs, ranking and scoring again is
seconds)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.documents.model import Document
from core.embeddings.cache import embedded_texts
from core.embeddings.settings import EmbeddingSettings
from core.errors import ChunkLabError
from core.evaluation.questions import QuestionSet
from core.evaluation.split import Split
from core.operations.assemble.budget import TokenBudget
from core.operations.evaluation import Evaluation, evaluate
from core.operations.evaluation.chunk_memo import chunks_memoised
from core.operations.evaluation.history import record_run
from core.operations.tune.report import Figures
from core.operations.tune.space import Dimension, TrialPlan, chunking_point
from core.progress import Cancelled, Progress, Tracker
from core.store import ChunkStore

if TYPE_CHECKING:
    import optuna

REUSED = 2  # chunkings the later trials of a tune vary ranking and retrieval on


@dataclass
class TrialRun:
    """What one tune needs while it runs."""

    split: Split
    documents: Mapping[str, Document]
    objective: str
    budget: TokenBudget
    min_recall: float | None
    tracker: Tracker
    cancel: threading.Event | None
    store: ChunkStore | None
    embedding: EmbeddingSettings | None = None

    @property
    def cap(self) -> int | None:
        return self.budget.tokens

    def evaluate(self, plan: TrialPlan, questions: QuestionSet, done: float, what: str
                 ) -> Evaluation:
        """``plan`` evaluated on ``questions`` (one configuration: its result or its failure)."""
        def step(progress: Progress) -> None:
            self.tracker.step(done + progress.fraction, f"{what} · {progress.message}")

        return evaluate(questions, dict(self.documents), [plan.candidate],
                        ranking=plan.candidate.ranking or "vector", retrieval=plan.retrieval,
                        progress=step, cancel=self.cancel, store=self.store,
                        embedding=self.embedding)

    def constrain(self, trial: optuna.Trial, figures: Figures) -> None:
        """Over the budget or under the recall floor: infeasible, which the sampler steers
        away from."""
        if self.cap is not None:
            trial.set_constraint("tokens", figures.tokens - self.cap)
        if self.min_recall is not None:
            trial.set_constraint("recall", self.min_recall - figures.recall)


def _scored(run: TrialRun, plan: TrialPlan, done: float, what: str
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


def queue_reuse(study: optuna.Study, space: tuple[Dimension, ...], chunkings: int,
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


def run_trial(run: TrialRun, study: optuna.Study, trial: optuna.Trial, plan: TrialPlan,
              done: int, what: str) -> None:
    """Score ``plan`` as ``trial`` and tell the study (a configuration that cannot run on these
    documents fails its trial, and the tune goes on)."""
    import optuna

    try:
        attrs, figures = _scored(run, plan, done, what)
    except ChunkLabError as err:
        if isinstance(err, Cancelled):
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            raise
        trial.set_user_attr("label", plan.candidate.label)
        trial.set_user_attr("error", str(err))
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
        return
    except BaseException:  # the page stopped the run: the trial did not finish
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
        raise
    for name, value in attrs.items():
        trial.set_user_attr(name, value)
    run.constrain(trial, figures)
    study.tell(trial, [figures.objective, figures.tokens])

"""Evaluate the same configurations under one or more ways of retrieving (top k, a token budget,
autocut), one after another, and keep each run in the history: what the Evaluate page's
"Retrieve: both" and the CLI's ``eval`` run."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from core.documents.model import Document
from core.embeddings import EmbeddingSettings
from core.evaluation.questions import QuestionSet
from core.operations.evaluation.candidates import Candidate, Retrieval
from core.operations.evaluation.history import RunRecord, record_run
from core.operations.evaluation.results import Evaluation
from core.operations.evaluation.run import evaluate
from core.progress import Progress, ProgressFn
from core.retrieval.modes import RankMode
from core.retrieval.rerank_settings import RerankSettings
from core.store import ChunkStore


@dataclass(frozen=True)
class KeptRun:
    """One retrieval's evaluation and its entry in the run history (None: nothing was
    evaluated, so nothing was kept)."""

    evaluation: Evaluation
    record: RunRecord | None


def evaluate_each(
    question_set: QuestionSet,
    documents: dict[str, Document],
    candidates: Sequence[Candidate],
    retrievals: Sequence[Retrieval],
    *,
    ranking: RankMode = "vector",
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
    store: ChunkStore | None = None,
    embedding: EmbeddingSettings | None = None,
    reranking: RerankSettings | None = None,
) -> list[KeptRun]:
    """:func:`~core.operations.evaluation.evaluate` under each of ``retrievals`` in turn, each
    run kept in the history; progress spans them all (retrieval ``n`` fills its share)."""
    kept = []
    for n, retrieval in enumerate(retrievals):

        def share(p: Progress, n: int = n) -> None:
            if progress is not None:
                progress(Progress(n + p.fraction, len(retrievals), p.message,
                                  None if p.done >= p.total else p.eta_s))

        evaluation = evaluate(question_set, documents, candidates, ranking=ranking,
                              retrieval=retrieval, progress=share, cancel=cancel,
                              use_cache=use_cache, store=store, embedding=embedding,
                              reranking=reranking)
        kept.append(KeptRun(evaluation, record_run(evaluation, question_set)))
    return kept

"""Score chunkings on a question set, side by side.

For each candidate (a strategy with settings, or a stored chunk set): chunk every document of the
set (memoised by document text and candidate), embed the views of all chunks in one batch (the
embeddings module caches vectors by text hash; a chunk scores the best of its views), embed all
questions in one batch (once per run, shared by every candidate), rank the chunks of the
question's own document in memory (vector, BM25 or hybrid), keep the top ``k`` — or, with a
``budget``, the best chunks until that many tokens, the last one cut to fit
(:mod:`core.evaluation.budget`), or with ``autocut`` the top ``k`` up to the first large drop
in their scores (:mod:`core.retrieval.autocut`) — and score them with
:mod:`core.evaluation.metrics`. Every question's retrieved tokens are counted, so
configurations are compared at a known cost.

Contextual retrieval is a dimension of a candidate: with ``contextual=False`` the same chunks
are embedded without the LLM's contextual prefixes, so the two can be compared. So are the
embedder (MiniLM, or the user's endpoint: the same chunking under two embedders is two
candidates, compared pair by pair like any others; a chunk set is evaluated with its own) and
an optional reranker that reorders the best hits before the cut. Every result names its
embedder: model, where it ran, dimension. A candidate may bring its own ranking and its own
k, budget or autocut (a preset saved from a tune): it retrieves that way whatever the run's.

A candidate's result is cached on disk under ``data_dir()/evaluation`` by a content hash of
everything that decides it (questions and references, document texts, chunks, ranking, k or
budget, embedder, metrics version), so re-running an unchanged candidate is instant.

Each candidate stands on its own: one that fails with a typed error (a chunk set without one of
the documents, an embedding endpoint down…) becomes a :class:`CandidateFailure` with its reason,
and the others are still evaluated and kept (:class:`Evaluation`).

The package: ``candidates`` and ``results`` (what is compared, what comes back), ``run`` (the
loop) with ``chunk_memo``, ``cache_keys`` and ``scoring``; ``stacks`` (configurations under
several embedders and with reranking), ``sweep`` (one run per way of retrieving), ``history``
(runs kept for later), ``confidence`` (intervals and paired comparisons), ``report`` (the
metrics side by side, the table-question rule, exports).
"""

from core.operations.evaluation.candidates import (
    DEFAULT_K,
    Candidate,
    EvaluationError,
    Retrieval,
    retrieval_label,
)
from core.operations.evaluation.chunk_memo import chunks_for, chunks_memoised
from core.operations.evaluation.results import (
    CandidateFailure,
    CandidateResult,
    ChunkSpan,
    Evaluation,
    QuestionResult,
    RetrievedChunk,
)
from core.operations.evaluation.run import evaluate

__all__ = [
    "DEFAULT_K", "Candidate", "CandidateFailure", "CandidateResult", "ChunkSpan",
    "Evaluation", "EvaluationError", "QuestionResult", "Retrieval", "RetrievedChunk",
    "chunks_for", "chunks_memoised", "evaluate", "retrieval_label",
]

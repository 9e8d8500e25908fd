"""The disk cache of evaluation results: a candidate's result is kept under
``data_dir()/evaluation`` by a content hash of everything that decides it (questions and
references, document texts, chunks, ranking, k or budget, embedder, metrics version), so
re-running an unchanged candidate is instant."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from core.chunking.chunk import Chunk
from core.config import data_dir
from core.documents.model import Document
from core.evaluation.questions import Question
from core.operations.evaluation.candidates import Retrieval
from core.operations.evaluation.chunk_memo import text_hash
from core.store.views import EMBEDDING_INPUT_VERSION

RESULTS_VERSION = "6"  # bump when metrics or the result layout change: old cache entries go stale


def result_key(questions: list[Question], documents: dict[str, Document], ranking: str,
               retrieval: Retrieval, candidate_key: str,
               chunks: dict[str, list[Chunk]]) -> str:
    """The cache key of a candidate's result: its questions and documents, the ranking and
    retrieval, the candidate (its :meth:`~Candidate.key`) and the chunks it retrieves from."""
    base = (_questions_key(questions, documents, ranking, retrieval.k)
            + f"|budget={retrieval.budget}|autocut={retrieval.autocut}"
            + (f"|floor={retrieval.floor}" if retrieval.floor else ""))
    return text_hash(base + candidate_key + _chunks_key(chunks))


def cache_dir() -> Path:
    return data_dir() / "evaluation"


def _questions_key(
    questions: list[Question], documents: dict[str, Document], ranking: str, k: int
) -> str:
    payload = {
        "version": RESULTS_VERSION,
        "embedding_input": EMBEDDING_INPUT_VERSION,
        "ranking": ranking,
        "k": k,
        "questions": [
            [q.row, q.question, q.corpus_id, q.kind, [r.span for r in q.references]]
            + ([[[q.corpus_of(r), r.start, r.end] for r in option]
                 for option in q.alternatives] if q.alternatives else [])
            for q in questions
        ],
        "documents": {cid: text_hash(doc.text) for cid, doc in sorted(documents.items())
                      if any(cid in q.corpus_ids for q in questions)},
    }
    return json.dumps(payload, sort_keys=True)


def _chunks_key(chunks: dict[str, list[Chunk]]) -> str:
    """Hash of what retrieval sees of each chunk: its span and its text."""
    digest = hashlib.sha256()
    for corpus_id, items in sorted(chunks.items()):
        digest.update(corpus_id.encode())
        for c in items:
            digest.update(f"|{c.start}:{c.end}:{c.chunk_type}:".encode() + c.text.encode())
    return digest.hexdigest()

"""What an evaluation compares and how much it retrieves: a :class:`Candidate` (a chunking with
its embedder, ranking, reranker and optional retrieval of its own) and a :class:`Retrieval`
(top k, a token budget, or autocut)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from core.embeddings import BUILTIN, EmbedderRef
from core.errors import ChunkLabError
from core.operations.strategies import embeds
from core.retrieval.modes import RankMode
from core.retrieval.packs import MERGE_DEPTH_FACTOR
from core.retrieval.ranking import MERGED_FUSION_K
from core.retrieval.rerank_settings import RerankRef

DEFAULT_K = 5


class EvaluationError(ChunkLabError):
    """An evaluation that cannot run: no questions, unknown ranking, bad k, unknown chunk set."""


@dataclass(frozen=True)
class Retrieval:
    """How much each question retrieves: the top ``k``; with ``budget`` (tokens), ranked chunks
    until that much text instead; with ``autocut`` (jumps), the top ``k`` up to the first large
    drop in their scores, keeping at least ``floor``. Front matter (covers, contents,
    indexes) is never retrieved unless ``include_front_matter``: a switch of the run, which a
    configuration's own retrieval does not carry (:meth:`Candidate.retrieves_with`). Values no
    evaluation can run raise :class:`EvaluationError`."""

    k: int = DEFAULT_K
    budget: int | None = None
    autocut: int | None = None
    floor: int = 0  # with autocut: hits kept whatever the scores
    include_front_matter: bool = False

    def __post_init__(self) -> None:
        if self.k < 1:
            raise EvaluationError(f"k must be at least 1, not {self.k}.")
        if self.budget is not None and self.budget < 1:
            raise EvaluationError(f"The token budget must be at least 1, not {self.budget}.")
        if self.autocut is not None and (self.autocut < 1 or self.budget is not None):
            raise EvaluationError("Autocut cuts the top k at a jump in the scores: give it at "
                                  "least 1 jump, and no token budget.")
        if self.floor and (self.autocut is None or not 0 < self.floor <= self.k):
            raise EvaluationError("A floor is the fewest hits autocut keeps: give it with "
                                  f"autocut, from 1 to k ({self.k}).")

    @property
    def label(self) -> str:
        """``top-5``, ``1,000-token budget`` or ``autocut of top-10`` (``, at least 3``)."""
        return retrieval_label(self.k, self.budget, self.autocut, self.floor)

    def check_merging(self, merge_adjacent: bool) -> None:
        """Small-to-big retrieval (``merge_adjacent``) is measured at top k, never by budget."""
        if merge_adjacent and self.budget is not None:
            raise EvaluationError("Small-to-big retrieval is measured at top k: evaluate it "
                                  "without a token budget.")

    def as_dict(self) -> dict[str, int | None]:
        """How much it retrieves (what a preset keeps of it; the front-matter switch is the
        run's)."""
        return {"k": self.k, "budget": self.budget, "autocut": self.autocut,
                "floor": self.floor}


@dataclass(frozen=True)
class Candidate:
    """A chunking to evaluate: a strategy with settings, or a stored chunk set (``chunk_set``);
    ``contextual=False`` embeds its chunks without their LLM contextual prefixes; ``embedder``
    embeds chunks and questions (a chunk set's own replaces it; ``own_embedder``: the
    configuration names it, so the embedders chosen for a run do not replace it); ``rerank``
    reorders the best hits before the cut; ``retrieval``, when given, is how much it retrieves
    instead of the run's k, budget or autocut."""

    label: str
    strategy: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    chunk_set: str | None = None
    contextual: bool = True
    ranking: RankMode | None = None  # None: the evaluation's ranking
    merge_adjacent: bool = False  # small-to-big: neighbouring hits come back as one range
    embedder: EmbedderRef = BUILTIN
    rerank: RerankRef | None = None
    retrieval: Retrieval | None = None  # None: the evaluation's
    own_embedder: bool = False

    def chunking_key(self) -> str:
        """What decides the chunks (the embedder only for a strategy that embeds)."""
        if self.chunk_set:
            return json.dumps({"chunk_set": self.chunk_set})
        own = {"embedder": self.embedder.key()} if embeds(self.strategy, self.settings) else {}
        return json.dumps({"strategy": self.strategy, "settings": self.settings, **own},
                          sort_keys=True)

    def key(self) -> str:
        own: dict[str, Any] = {"ranking": self.ranking} if self.ranking else {}
        if self.merge_adjacent:  # what decides the merged ranking, so a change re-evaluates
            own["merge_adjacent"] = [MERGE_DEPTH_FACTOR, MERGED_FUSION_K]
        if not self.embedder.builtin:
            own["embedder"] = self.embedder.key()
        if self.rerank is not None:
            own["rerank"] = self.rerank.key()
        if self.retrieval is not None:
            own["retrieval"] = self.retrieval.as_dict()
        return (self.chunking_key() + ("" if self.contextual else "|no prefixes")
                + (json.dumps(own, sort_keys=True) if own else ""))

    def ranks_with(self, ranking: RankMode) -> str:
        """How it retrieves when the evaluation ranks by ``ranking``: "vector", or its own
        "hybrid, neighbours merged"."""
        return (self.ranking or ranking) + (", neighbours merged" if self.merge_adjacent else "")

    def retrieves_with(self, retrieval: Retrieval) -> Retrieval:
        """How much it retrieves when the evaluation retrieves ``retrieval``: its own, if any,
        under the evaluation's front-matter switch."""
        if self.retrieval is None:
            return retrieval
        return replace(self.retrieval, include_front_matter=retrieval.include_front_matter)

    def without_prefixes(self) -> Candidate:
        return replace(self, label=f"{self.label} (no prefixes)", settings=dict(self.settings),
                       contextual=False)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "strategy": self.strategy, "settings": self.settings,
                "chunk_set": self.chunk_set, "contextual": self.contextual,
                "ranking": self.ranking, "merge_adjacent": self.merge_adjacent,
                "embedder": self.embedder.model_dump(), "own_embedder": self.own_embedder,
                "rerank": None if self.rerank is None else self.rerank.model_dump(),
                "retrieval": None if self.retrieval is None else self.retrieval.as_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Candidate:
        rerank, retrieval = data.get("rerank"), data.get("retrieval")
        return cls(**{**data, "embedder": EmbedderRef(**(data.get("embedder") or {})),
                      "rerank": RerankRef(**rerank) if rerank else None,
                      "retrieval": Retrieval(**retrieval) if retrieval else None})


def retrieval_label(k: int, budget: int | None = None, autocut: int | None = None,
                    floor: int = 0) -> str:
    """How many chunks a question retrieves, in words: ``top-5``, ``1,000-token budget``,
    ``autocut of top-10`` (``autocut (2 jumps) of top-10`` past the first jump, ``…, at least
    3`` with a floor)."""
    if budget is not None:
        return f"{budget:,}-token budget"
    if autocut is not None:
        jumps = "" if autocut == 1 else f" ({autocut} jumps)"
        return f"autocut{jumps} of top-{k}" + (f", at least {floor}" if floor else "")
    return f"top-{k}"

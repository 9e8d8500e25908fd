"""The Assemble page's inputs as the operation's options: the rules between what the user chose
and what :func:`~core.operations.assemble.run.assemble` is asked, kept out of the page so they
are read and tested without Streamlit.

:class:`AssembleChoices` is every input as the page holds it; :func:`assembly_options` turns it
into :class:`~core.operations.assemble.run.AssemblyOptions`. :class:`SearchScope` says which
documents a question searches; :func:`tuned_retrieval` and :func:`merges_by_default` say how a
chunk set built with a preset starts out retrieving.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from dataclasses import dataclass

from core.assembly.model import CitationStyle, Estimator, Style
from core.operations.assemble.run import AssemblyOptions, SystemChoice
from core.operations.presets import built_with
from core.retrieval.modes import DEFAULT_JUMPS, RankMode
from core.store.info import ChunkSetInfo


@dataclass(frozen=True)
class SearchScope:
    """Which documents of the chosen chunk sets a question searches. The shipped samples are
    searched only when chosen while the sets also hold the user's own documents (they would
    crowd out the user's own passages); a set of samples alone searches them all."""

    documents: tuple[str, ...]  # every document in the chosen sets, in the order offered
    samples: frozenset[str]  # those of them that are shipped samples

    @classmethod
    def of(cls, documents: Iterable[str], sample_ids: Set[str]) -> SearchScope:
        offered = tuple(documents)
        return cls(offered, frozenset(sample_ids & set(offered)))

    @property
    def own(self) -> tuple[str, ...]:
        """The user's own documents (not samples)."""
        return tuple(d for d in self.documents if d not in self.samples)

    @property
    def mixed(self) -> bool:
        """Whether the sets hold both samples and the user's own documents."""
        return bool(self.own and self.samples)

    def searched(self, chosen: Iterable[str]) -> tuple[str, ...]:
        """The documents to retrieve from: the chosen ones; with none chosen, the user's own when
        samples are mixed in; empty (every document of the set) otherwise."""
        return tuple(chosen) or (self.own if self.mixed else ())


@dataclass(frozen=True)
class TunedRetrieval:
    """How a tune measured a chunk set's retrieval: its limit ``k``, whether it cut at the
    first large drop in score, and the hits that cut keeps whatever the scores."""

    limit: int
    autocut: bool
    floor: int


def tuned_retrieval(info: ChunkSetInfo) -> TunedRetrieval | None:
    """The retrieval to start from for a set built with a preset saved from a tune; None for any
    other set, and for a tune that retrieved by a token budget (Assemble has no such limit)."""
    preset = built_with(info)
    tuned = preset.retrieval if preset is not None else None
    if tuned is None or tuned.budget is not None:
        return None
    return TunedRetrieval(tuned.k, tuned.autocut is not None, tuned.floor)


def merges_by_default(info: ChunkSetInfo) -> bool:
    """Whether neighbouring hits are first merged for this set: it was built with a preset that
    merges them (small-to-big)."""
    preset = built_with(info)
    return preset is not None and preset.merge_adjacent


@dataclass(frozen=True)
class AssembleChoices:
    """Every input of the Assemble page, as the user left it."""

    ranking: RankMode = "vector"
    limit: int = 5
    neighbors: int = 0
    headroom: int = AssemblyOptions.headroom
    style: Style = "qa"
    citation_style: CitationStyle = "numeric"
    estimator: Estimator = "tiktoken"
    system: SystemChoice = "library"
    use_context: bool = False  # budget by the context size, not the headroom alone
    context_tokens: int | None = None  # the context size typed (counts only with use_context)
    locale: str = ""
    chosen_docs: tuple[str, ...] = ()  # "only these documents"; empty: as the scope says
    merge: bool = False
    autocut: bool = False
    tuned_floor: int = 0  # the hits a followed tune's autocut keeps (0: none followed)
    rerank: bool = False
    rerank_configured: bool = False  # a reranking endpoint is set
    include_front_matter: bool = False


def assembly_options(choices: AssembleChoices, scope: SearchScope) -> AssemblyOptions:
    """The options the page's choices ask of the operation. Merging neighbouring hits replaces
    the neighbours added per hit; the context size counts only when budgeting by it; the tuned
    floor applies only to autocut and never beyond the limit; a rerank without an endpoint is
    off."""
    return AssemblyOptions(
        ranking=choices.ranking, limit=choices.limit,
        neighbors=0 if choices.merge else choices.neighbors,
        headroom=choices.headroom,
        style=choices.style, citation_style=choices.citation_style,
        estimator=choices.estimator,
        context_tokens=choices.context_tokens if choices.use_context else None,
        system=choices.system, locale=choices.locale.strip() or None,
        doc_ids=scope.searched(choices.chosen_docs), merge_adjacent=choices.merge,
        autocut=DEFAULT_JUMPS if choices.autocut else None,
        autocut_floor=min(choices.tuned_floor, choices.limit) if choices.autocut else 0,
        rerank=choices.rerank and choices.rerank_configured,
        include_front_matter=choices.include_front_matter,
    )

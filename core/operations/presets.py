"""Named chunking configurations: the built-in presets and the ones the user saved.

A preset is a strategy with settings under a name, and for some a way to retrieve (a ranking,
small-to-big merging of neighbouring hits, an embedder, how much each question retrieves) that
the evaluation uses with it; a preset saved from a tune keeps all of what the tune measured.
Every page that picks a configuration (Compare, Chunk sets, Evaluate, Assemble's quick start)
and the CLI read the same list. The user's presets live in ``data_dir()/chunk_presets.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from core.config import data_dir
from core.embeddings import BUILTIN, EmbedderRef
from core.errors import ChunkingError, ChunkLabError
from core.files import read_json_object, write_json
from core.operations.evaluation import Candidate, Retrieval
from core.operations.strategies import validated_config
from core.retrieval.modes import RANK_MODES, RankMode
from core.store import ChunkSetInfo

PRESETS_FILE = "chunk_presets.json"
MAX_NAME = 80
T = TypeVar("T")


@dataclass(frozen=True)
class Preset:
    name: str
    strategy: str
    settings: dict[str, Any] = field(default_factory=dict)
    builtin: bool = True
    ranking: RankMode | None = None  # None: whatever ranking the evaluation is asked for
    merge_adjacent: bool = False
    embedder: EmbedderRef | None = None  # None: whichever embedder the page or run is given
    retrieval: Retrieval | None = None  # None: the evaluation's k, budget or autocut
    tuned: str | None = None  # when a tune saved it (ISO time); None for the others

    def candidate(self) -> Candidate:
        """This preset as a configuration to evaluate, with its way to retrieve."""
        return Candidate(self.name, self.strategy, dict(self.settings),
                         ranking=self.ranking, merge_adjacent=self.merge_adjacent,
                         embedder=self.embedder or BUILTIN,
                         own_embedder=self.embedder is not None, retrieval=self.retrieval)


SMALL_TO_BIG = "small-to-big (recursive 150, hybrid, neighbours merged)"
BUILTIN_PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("fixed 1000 chars", "fixed",
               {"size": 1000, "overlap": 0, "unit": "chars", "tables": False}),
        Preset("fixed 500 tokens", "fixed",
               {"size": 500, "overlap": 0, "unit": "tokens", "tables": False}),
        Preset("recursive 500/50", "recursive",
               {"size": 500, "overlap": 50, "unit": "tokens", "tables": True}),
        Preset("recursive 500/50 (no tables)", "recursive",
               {"size": 500, "overlap": 50, "unit": "tokens", "tables": False}),
        Preset("recursive 500/50 by section", "recursive",
               {"size": 500, "overlap": 50, "unit": "tokens", "tables": True,
                "respect_sections": True}),
        Preset("semantic", "semantic", {"size": 400, "tables": True}),
        # Small chunks ranked by words and meaning; neighbouring hits return as one passage:
        # the recall of larger chunks at the precision of small ones. 150 tokens, not 100: more
        # recall on the benchmark corpus of paragraph-sized answers (corpora/benchmark), none lost
        # on a shipped question set (bench_retrieval_quality --curve).
        Preset(SMALL_TO_BIG, "recursive",
               {"size": 150, "overlap": 0, "unit": "tokens", "tables": True},
               ranking="hybrid", merge_adjacent=True),
    )
}
BASELINE = "fixed 1000 chars"  # what table-aware chunkings are measured against


def built_with(info: ChunkSetInfo) -> Preset | None:
    """The preset a chunk set was built with: the built-in one it is named after, the user's
    it is named after when the set holds its chunking (a set takes its preset's name unless
    the user types another), else the first built-in whose chunking it holds (a set stores its
    resolved settings); None when none."""
    if info.name in BUILTIN_PRESETS:
        return BUILTIN_PRESETS[info.name]
    mine = user_presets().get(info.name)
    if mine is not None and _holds(info, mine):
        return mine
    return next((p for p in BUILTIN_PRESETS.values() if _holds(info, p)), None)


def _holds(info: ChunkSetInfo, preset: Preset) -> bool:
    """Whether the chunk set holds ``preset``'s chunking."""
    return (preset.strategy == info.strategy and validated_config(
        preset.strategy, preset.settings).model_dump(mode="json") == info.settings)


def set_candidate(label: str, info: ChunkSetInfo) -> Candidate:
    """A stored chunk set to evaluate, retrieving as the preset it was built with does (a set
    built with small-to-big ranks hybrid and merges neighbouring hits; one built with a preset
    saved from a tune retrieves the k, budget or autocut the tune measured)."""
    built = built_with(info)
    return Candidate(label, chunk_set=info.name, ranking=built.ranking if built else None,
                     merge_adjacent=built.merge_adjacent if built else False,
                     retrieval=built.retrieval if built else None)


def _path() -> Path:
    return data_dir() / PRESETS_FILE


def user_presets() -> dict[str, Preset]:
    """Configurations the user saved: ``[strategy, settings]``, with ``{ranking,
    merge_adjacent, embedder, retrieval[, tuned]}`` third when saved with a way to retrieve or
    from a tune (files of older versions hold only the first two). Unreadable entries are
    skipped; an unreadable way to retrieve is left to the evaluation (None)."""
    raw = read_json_object(_path())
    presets = {}
    for name, entry in raw.items():
        if not (isinstance(entry, list) and len(entry) in (2, 3) and isinstance(entry[1], dict)):
            continue
        way = entry[2] if len(entry) == 3 and isinstance(entry[2], dict) else {}
        ranking, tuned = way.get("ranking"), way.get("tuned")
        presets[name] = Preset(name, entry[0], dict(entry[1]), builtin=False,
                               ranking=ranking if ranking in RANK_MODES else None,
                               merge_adjacent=way.get("merge_adjacent") is True,
                               embedder=_read(EmbedderRef, way.get("embedder")),
                               retrieval=_read(Retrieval, way.get("retrieval")),
                               tuned=tuned if isinstance(tuned, str) else None)
    return presets


def _read(kind: Callable[..., T], raw: Any) -> T | None:
    """``kind(**raw)`` from the presets file, or None when it is missing or unreadable."""
    if not isinstance(raw, dict):
        return None
    try:
        return kind(**raw)
    except (ChunkLabError, TypeError, ValueError):
        return None


def all_presets() -> dict[str, Preset]:
    """Built-in presets first, then the user's."""
    return {**BUILTIN_PRESETS, **user_presets()}


def last_tuned() -> Preset | None:
    """The preset a tune saved last, if any."""
    tuned = [p for p in user_presets().values() if p.tuned is not None]
    return max(tuned, key=lambda p: p.tuned or "") if tuned else None


def preset(name: str) -> Preset:
    presets = all_presets()
    if name not in presets:
        raise ChunkingError(f"Unknown preset {name!r}; choose one of {', '.join(presets)}.")
    return presets[name]


def _entry(preset: Preset) -> list[Any]:
    entry: list[Any] = [preset.strategy, preset.settings]
    if (preset.ranking or preset.merge_adjacent or preset.embedder or preset.retrieval
            or preset.tuned):
        embedder, retrieval = preset.embedder, preset.retrieval
        entry.append({"ranking": preset.ranking, "merge_adjacent": preset.merge_adjacent,
                      "embedder": None if embedder is None else embedder.model_dump(),
                      "retrieval": None if retrieval is None else retrieval.as_dict(),
                      **({"tuned": preset.tuned} if preset.tuned else {})})
    return entry


def save_user_preset(name: str, strategy: str, settings: dict[str, Any], *,
                     ranking: RankMode | None = None, merge_adjacent: bool = False,
                     embedder: EmbedderRef | None = None,
                     retrieval: Retrieval | None = None, tuned: bool = False) -> Preset:
    """Save a named configuration after checking it is valid; a built-in name cannot be reused.
    ``ranking``, ``merge_adjacent``, ``embedder`` and ``retrieval`` (how much each question
    retrieves): the way to retrieve the evaluation uses with it. ``tuned``: a tune saves it
    (the time is noted, so the pages can start from the last tuned preset)."""
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise ChunkingError(f"A preset name needs 1 to {MAX_NAME} characters.")
    if name in BUILTIN_PRESETS:
        raise ChunkingError(f"{name!r} is a built-in preset; choose another name.")
    if ranking is not None and ranking not in RANK_MODES:
        raise ChunkingError(f"Unknown ranking {ranking!r}; choose one of "
                            f"{', '.join(RANK_MODES)}.")
    if retrieval is not None:
        retrieval.check_merging(merge_adjacent)
    validated_config(strategy, settings)
    saved = {n: _entry(p) for n, p in user_presets().items()}
    preset = Preset(name, strategy, dict(settings), builtin=False, ranking=ranking,
                    merge_adjacent=merge_adjacent, embedder=embedder, retrieval=retrieval,
                    tuned=datetime.now(UTC).isoformat() if tuned else None)
    saved[name] = _entry(preset)
    write_json(_path(), saved, indent=2, sort_keys=True)
    return preset

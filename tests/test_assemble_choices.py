"""The rules between the Assemble page's inputs and the assemble operation, without Streamlit:
the options its choices ask for, the documents a question searches, and how a set built with a
preset starts out retrieving."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from core.operations.assemble.choices import (
    AssembleChoices,
    SearchScope,
    TunedRetrieval,
    assembly_options,
    merges_by_default,
    tuned_retrieval,
)
from core.operations.assemble.run import AssemblyOptions
from core.operations.evaluation import Retrieval
from core.operations.presets import SMALL_TO_BIG, save_user_preset
from core.operations.strategies import validated_config
from core.retrieval.modes import DEFAULT_JUMPS
from core.store import ChunkSetInfo

EVERYWHERE = SearchScope.of(["a", "b"], set())
SETTINGS = {"size": 200, "overlap": 0, "unit": "tokens", "tables": True}


def test_the_default_choices_ask_for_the_default_options():
    assert assembly_options(AssembleChoices(), EVERYWHERE) == AssemblyOptions()


def test_every_choice_reaches_its_option():
    choices = AssembleChoices(
        ranking="hybrid", limit=8, neighbors=2, headroom=1200, style="summarize",
        citation_style="footnote", estimator="chars", system="builtin", use_context=True,
        context_tokens=4096, locale=" ja ", chosen_docs=("b",), autocut=True, tuned_floor=3,
        rerank=True, rerank_configured=True, include_front_matter=True)
    assert asdict(assembly_options(choices, EVERYWHERE)) == asdict(AssemblyOptions(
        limit=8, neighbors=2, ranking="hybrid", headroom=1200, style="summarize",
        citation_style="footnote", context_tokens=4096, estimator="chars", system="builtin",
        locale="ja", doc_ids=("b",), merge_adjacent=False, autocut=DEFAULT_JUMPS,
        autocut_floor=3, rerank=True, include_front_matter=True))


def test_merging_neighbouring_hits_adds_no_neighbours():
    options = assembly_options(AssembleChoices(neighbors=2, merge=True), EVERYWHERE)
    assert options.merge_adjacent and options.neighbors == 0


def test_the_context_size_counts_only_when_budgeting_by_it():
    assert assembly_options(AssembleChoices(context_tokens=4096), EVERYWHERE
                            ).context_tokens is None
    assert assembly_options(AssembleChoices(context_tokens=4096, use_context=True), EVERYWHERE
                            ).context_tokens == 4096


def test_a_blank_locale_is_none():
    assert assembly_options(AssembleChoices(locale="  "), EVERYWHERE).locale is None


@pytest.mark.parametrize(("autocut", "floor", "limit", "expected"),
                         [(False, 4, 5, (None, 0)), (True, 4, 5, (DEFAULT_JUMPS, 4)),
                          (True, 9, 5, (DEFAULT_JUMPS, 5)), (True, 0, 5, (DEFAULT_JUMPS, 0))])
def test_the_tuned_floor_applies_to_autocut_within_the_limit(autocut, floor, limit, expected):
    options = assembly_options(AssembleChoices(autocut=autocut, tuned_floor=floor, limit=limit),
                               EVERYWHERE)
    assert (options.autocut, options.autocut_floor) == expected


def test_a_rerank_without_an_endpoint_is_off():
    assert not assembly_options(AssembleChoices(rerank=True), EVERYWHERE).rerank
    assert not assembly_options(AssembleChoices(rerank_configured=True), EVERYWHERE).rerank


def test_samples_are_searched_only_when_chosen_beside_the_users_documents():
    scope = SearchScope.of(["mine", "sample", "other"], {"sample", "elsewhere"})
    assert scope.samples == {"sample"} and scope.own == ("mine", "other") and scope.mixed
    assert scope.searched([]) == ("mine", "other")
    assert scope.searched(["sample"]) == ("sample",)
    options = assembly_options(AssembleChoices(), scope)
    assert options.doc_ids == ("mine", "other")


@pytest.mark.parametrize("documents", [["s1", "s2"], ["mine", "yours"]])
def test_a_set_of_one_kind_searches_every_document(documents):
    scope = SearchScope.of(documents, {"s1", "s2"})
    assert not scope.mixed and scope.searched([]) == ()
    assert scope.searched([documents[1]]) == (documents[1],)


def _set(name: str, strategy: str = "recursive", settings: dict | None = None) -> ChunkSetInfo:
    """A set holding a chunking as ingest stores it (its settings resolved)."""
    resolved = validated_config(strategy, settings or SETTINGS).model_dump(mode="json")
    return ChunkSetInfo(name=name, strategy=strategy, settings=resolved)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_a_set_built_with_a_tuned_preset_retrieves_as_the_tune_measured(data_dir):
    save_user_preset("tuned", "recursive", SETTINGS, retrieval=Retrieval(7, autocut=1, floor=4))
    save_user_preset("tuned k", "recursive", {**SETTINGS, "size": 300}, retrieval=Retrieval(9))
    assert tuned_retrieval(_set("tuned")) == TunedRetrieval(limit=7, autocut=True, floor=4)
    assert tuned_retrieval(_set("tuned k", settings={**SETTINGS, "size": 300})
                           ) == TunedRetrieval(limit=9, autocut=False, floor=0)


def test_a_tune_by_token_budget_or_no_tune_is_not_followed(data_dir):
    save_user_preset("by budget", "recursive", SETTINGS, retrieval=Retrieval(7, budget=900))
    assert tuned_retrieval(_set("by budget")) is None
    assert tuned_retrieval(_set("plain", settings={**SETTINGS, "size": 333})) is None


def test_neighbouring_hits_are_first_merged_for_a_small_to_big_set(data_dir):
    assert merges_by_default(ChunkSetInfo(name=SMALL_TO_BIG, strategy="recursive"))
    assert not merges_by_default(_set("plain", settings={**SETTINGS, "size": 333}))

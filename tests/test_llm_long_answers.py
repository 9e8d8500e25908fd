"""Answers that run long: a summary the server's length limit stopped and a contextual prefix
that goes on quoting the chunk are cut back to whole sentences, never a word cut in half."""

from __future__ import annotations

import pytest

from core.llm.errors import TSVError
from core.llm.phases.metadata import SUMMARY_CHARS, parse_summaries
from core.llm.phases.prefix import parse_prefix
from core.llm.replies.checks import whole_words
from core.llm.replies.repairs import Repairs


def test_a_summary_stopped_by_its_limit_ends_on_a_whole_sentence():
    long = "STS-1 lifts 65 tonnes. " * 12 + "Known weak points of MHC-2: the hoi"
    assert len(long[:SUMMARY_CHARS]) == SUMMARY_CHARS
    assert whole_words(long, SUMMARY_CHARS).endswith("tonnes.")
    assert whole_words("One short sentence", SUMMARY_CHARS) == "One short sentence"
    words = whole_words("abcdefg " * 50, SUMMARY_CHARS).split()
    assert words == ["abcdefg"] * (SUMMARY_CHARS // 8)


def test_a_prefix_that_runs_long_is_cut_back_to_its_whole_sentences():
    first = "This chunk is from the Lending Policy, section Fees, which says how late fees run."
    quoted = first + " Fees are charged per item and per opening day, at most 10 EUR." * 5
    repairs = Repairs()
    assert parse_prefix(quoted, repairs=repairs) == first + (
        " Fees are charged per item and per opening day, at most 10 EUR." * 3)
    assert [r.kind for r in repairs.items] == ["shortened"]
    with pytest.raises(TSVError, match="expected 20-300 characters"):
        parse_prefix(quoted)  # strict parsing still refuses it
    assert parse_prefix(first, repairs=Repairs()) == first


@pytest.mark.parametrize(("said", "kept"), [
    ("The chunk lists the cranes and their loads.", "Lists the cranes and their loads."),
    ("the chunk sets out who releases a crane.", "Sets out who releases a crane."),
    ("The chunk is about the fleet.", "The chunk is about the fleet."),  # no reporting verb
    ("Cranes stop lifting above 20 m/s.", "Cranes stop lifting above 20 m/s."),
])
def test_a_summary_is_kept_without_its_asked_opening(said, kept):
    assert parse_summaries(f"3\t{said}", (3,)) == {3: kept}

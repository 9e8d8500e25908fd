"""Answers Qwen2.5-Coder-1.5B wrote for the shipped samples (``tests/real_answers.jsonl``, cut
from real runs' raw logs by ``python -m bench.llm_real --fixtures``), replayed: today's parsers
must make of each what they made when the fixtures were written — the same repairs, and every
answer tolerant parsing accepted still accepted."""

from __future__ import annotations

import pytest

from fakes.replay import records, replay

RECORDS = records()


@pytest.mark.parametrize("record", RECORDS,
                         ids=[f"{r['document']}-{r['phase']}-{r['blocks'][0]}" for r in RECORDS])
def test_a_real_answer_parses_as_recorded(record):
    outcome = replay(record)
    assert outcome.tolerant == record["tolerant"]
    assert outcome.repairs == record["repairs"]
    assert outcome.strict == record["strict"]


def test_the_fixtures_hold_answers_of_both_phases():
    assert {r["phase"] for r in RECORDS} == {"structure_analysis", "boundary_detection"}

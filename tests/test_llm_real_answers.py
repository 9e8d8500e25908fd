"""Answers the bundled model wrote for the shipped samples (``tests/real_answers.jsonl``, cut
from real runs' raw logs by ``python -m bench.llm_real --fixtures``), replayed: today's parsers
must make of each what they made when the fixtures were written — the same repairs, and every
answer tolerant parsing accepted still accepted."""

from __future__ import annotations

import pytest

from core.llm.errors import TSVError
from core.llm.phase import parse_answer
from core.llm.phases import METADATA
from core.llm.phases.metadata import SUMMARY_VERBS, MetadataPhase
from core.llm.replies.copies import REPEATS_AT, repeated_share
from core.llm.replies.repairs import Repairs
from core.prompts.library import PromptLibrary
from fakes.replay import (
    CHUNK_PHASES,
    OUTCOME,
    PHASES,
    answer_text,
    merge,
    records,
    replay,
    request_of,
)

RECORDS = records()


def _id(record):
    where = record.get("blocks") or record["chunk"]
    return f"{record['document']}-{record['phase']}-{record.get('form', 'tsv')}-{where[0]}"


@pytest.mark.parametrize("record", RECORDS, ids=[_id(r) for r in RECORDS])
def test_a_real_answer_parses_as_recorded(record):
    outcome = replay(record)
    assert outcome.tolerant == record["tolerant"]
    assert outcome.repairs == record["repairs"]
    assert outcome.strict == record["strict"]


def test_the_fixtures_hold_answers_of_every_chunking_phase_in_both_forms():
    assert {r["phase"] for r in RECORDS} == set(PHASES)
    assert {r.get("form", "tsv") for r in RECORDS} == {"json", "tsv"}
    assert all(r["tolerant"] == "ok" for r in RECORDS if r.get("form") == "json")


def test_todays_summaries_report_on_their_chunk_instead_of_copying_it():
    """Asked to begin "The chunk" and held to a reporting verb, the bundled model's summaries
    (at today's template, a few chunks a request) say what their chunk is about, each its own;
    before, four in five were the chunk's opening sentence."""
    template = PromptLibrary().default(METADATA.template)
    found = [r for r in RECORDS if r["phase"] == METADATA.name
             and r["template_version"] == template.version and r.get("form") == "json"]
    assert len(found) >= 10 and any(len(r["numbers"]) > 1 for r in found)
    summaries = []
    for record in found:
        request = request_of(record, Repairs())
        said = parse_answer(METADATA, template, answer_text(
            METADATA, "json", record["answer"], request), request)
        texts = dict(zip(request.numbers, request.texts, strict=True))
        summaries += [(summary, texts[number]) for number, summary in said.items()]
    assert len(summaries) >= 20
    verbs = tuple(verb.capitalize() + " " for verb in SUMMARY_VERBS)
    assert all(summary.startswith(verbs) for summary, _ in summaries)
    # A chunk of a sentence or two (a list item) can hardly be said in other words; of those
    # longer than the summary's 25 words twice over, at most one in ten is repeated.
    longer = [(s, chunk) for s, chunk in summaries if len(chunk.split()) > 50]
    copied = [s for s, chunk in longer if repeated_share(s, chunk) >= REPEATS_AT]
    assert len(longer) >= 20 and len(copied) <= len(longer) // 10, copied


def test_a_parser_that_loses_an_accepted_answer_is_caught(monkeypatch):
    record = next(r for r in RECORDS if r["phase"] == "chunk_metadata" and r["tolerant"] == "ok")

    def refuse(self, answer, request):
        raise TSVError(self.label, "expected a single line of metadata")

    monkeypatch.setattr(MetadataPhase, "parse", refuse)
    assert replay(record).tolerant != record["tolerant"]


def test_a_structured_answer_is_read_back_into_rows_before_parsing():
    record = next(r for r in RECORDS if r.get("form") == "json"
                  and r["phase"] in CHUNK_PHASES and r["strict"] == "ok")
    assert replay({**record, "form": "tsv"}).strict != "ok"  # the JSON itself is no TSV line


def test_new_answers_are_added_to_the_fixtures_and_old_ones_kept(tmp_path):
    path = tmp_path / "real_answers.jsonl"
    old, other = RECORDS[0], RECORDS[-1]
    path.write_text("", encoding="utf-8")
    assert merge([old], path) == 1
    # Cut again: the same answer (today's outcome differs from the one recorded) and a new one,
    # twice.
    again = {**old, **dict.fromkeys(OUTCOME, "changed")}
    assert merge([again, other, other], path) == 1
    assert records(path) == [old, other]

# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""A document is read once: prompts about its chunks begin with the document, a llama.cpp server
is asked to keep what it read and gets each request on the slot that read its beginning, and the
prompt tokens it actually read are counted and logged. Re-runs cut the same chunks: the phases
that place chunks ask at temperature 0, and an answer tolerant parsing could not use is
remembered with its inputs, so the re-run falls back the same way instead of asking again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.documents import convert
from core.llm.errors import TSVError
from core.llm.phases import boundaries
from core.llm.replies.copies import REPEATS_AT, repeated_share, without_copies
from core.operations.strategies import RunOptions, run_llm
from core.prompts.library import PromptLibrary
from fakes.llm import auto_answer, fake_llm  # noqa: F401  (fixture)
from tests.docfactory import SMALL_GUIDE

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"
CHUNK_PHASES = ("chunk_metadata", "contextual_prefix")


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.0)


@pytest.fixture(scope="module")
def docs():
    """A short guide, read whole with each chunk, and a handbook read in stretches."""
    handbook = (SAMPLES / "technical_handbook.md").read_bytes()
    return {"guide": convert(SMALL_GUIDE, "guide.md"),
            "handbook": convert(handbook, "technical_handbook.md")}


def run(fake, document, **config):
    return run_llm([document], {"summaries": True, "context_prefix": "asked", **config},
                   RunOptions(llm=fake.settings(temperature=0.3)))[0]


def unmarked(text):
    return re.sub(r"\[\[\d+\]\] ", "", text)


def test_prompts_about_chunks_begin_with_the_document(fake_llm, docs):
    result = run(fake_llm, docs["guide"])
    assert result.error is None and len(result.chunks) > 2
    first_words = docs["guide"].text.strip()[:60]
    for phase in CHUNK_PHASES:
        calls = [c for c in fake_llm.calls if c.phase == phase]
        for call in calls:
            document_part, _, chunk_part = call.prompt.partition("END OF DOCUMENT")
            assert first_words in unmarked(document_part)  # the (short) document, whole …
            assert "{{" not in call.prompt and chunk_part.strip()  # … the chunks asked after
        # Every request of a phase about the document begins with the same text.
        assert len({c.prompt.partition("END OF DOCUMENT")[0] for c in calls}) == 1


def asked(prompt):
    """The chunks a summary request asks about: mark number and first words."""
    return re.findall(r'^\[\[(\d+)\]\] begins "(.*?)(?: …)?"$', prompt, re.MULTILINE)


def test_summaries_are_asked_a_few_chunks_at_a_time_each_marked_in_its_stretch(fake_llm, docs):
    result = run(fake_llm, docs["handbook"])
    assert result.error is None
    calls = [c for c in fake_llm.calls if c.phase == "chunk_metadata"]
    texts = [c for c in result.chunks if c.chunk_type == "text"]
    assert sum(len(asked(c.prompt)) for c in calls) == len(texts)  # each asked once
    assert all(1 <= len(asked(c.prompt)) <= 3 for c in calls) and len(calls) < len(texts) / 2
    for call in calls:  # each chunk asked is marked in the stretch that holds it
        stretch = " ".join(call.prompt.partition("END OF DOCUMENT")[0].split())
        for number, opening in asked(call.prompt):
            assert f"[[{number}]] {opening}" in stretch
    beginnings = {c.prompt.partition("END OF DOCUMENT")[0] for c in calls}
    assert 1 < len(beginnings) < len(calls)  # stretches, each shared by its requests
    assert all(c.summary for c in result.chunks)


def test_a_long_document_is_read_in_stretches_each_shared(fake_llm, docs):
    assert run(fake_llm, docs["handbook"]).error is None
    calls = [c for c in fake_llm.calls if c.phase == "contextual_prefix"]
    beginnings = [c.prompt.partition("END OF DOCUMENT")[0] for c in calls]
    assert 1 < len(set(beginnings)) < len(calls) / 2
    for call in calls:  # each chunk is read in the stretch that holds it
        stretch = call.prompt.partition("END OF DOCUMENT")[0].partition(":\n")[2]
        chunk = call.prompt.partition("END OF DOCUMENT")[2].split("):\n", 1)[1]
        assert chunk.partition("\nEND OF CHUNK")[0].strip()[:80] in stretch


def test_a_llama_server_reads_the_shared_document_once_per_slot(fake_llm, docs, tmp_path):
    fake_llm.serve_llama(n_ctx=8192, slots=2)
    result = run(fake_llm, docs["handbook"])
    assert result.error is None
    bodies = [c.body for c in fake_llm.calls if c.phase in CHUNK_PHASES]
    assert all(b["cache_prompt"] is True and b["id_slot"] in (0, 1) for b in bodies)
    usage = result.usage
    assert usage.prompt_processed < 0.6 * usage.prompt_tokens  # the document read once
    logged = [json.loads(line) for line in (tmp_path / "llm_log.jsonl").read_text().splitlines()]
    chunk_entries = [e for e in logged if e.get("phase") in CHUNK_PHASES]
    assert chunk_entries and all("prompt_processed" in e for e in chunk_entries)
    assert sum(e["prompt_processed"] for e in chunk_entries) < sum(
        e["prompt_tokens"] for e in chunk_entries) / 2


def test_other_servers_get_no_llama_fields(fake_llm, docs):
    assert run(fake_llm, docs["handbook"]).error is None
    assert not any("id_slot" in body or "cache_prompt" in body for body in fake_llm.requests)


def test_an_answer_leaving_an_example_field_unfilled_is_a_copy():
    library = PromptLibrary()
    prefix = library.default("contextual_prefix").text
    half = 'This chunk is from Setup, section "Install", <what the chunk is about>.'
    with pytest.raises(TSVError, match="copies the template's example"):
        without_copies("phase 3b", prefix, half, "the chunk's text")
    metadata = library.default("chunk_metadata").text
    line = "4\tThe chunk <what the chunk is about, in your 10-25 words>"
    with pytest.raises(TSVError, match="copies the template's example"):
        without_copies("phase 3", metadata, line, "the chunk's text")
    fine = "4\tThe chunk explains how to install the tool on Linux and Mac with its packages"
    assert without_copies("phase 3", metadata, fine, "the chunk's text") == fine
    assert auto_answer("chunk_metadata", "") == without_copies(
        "phase 3", metadata, auto_answer("chunk_metadata", ""), "")


def test_a_summary_copied_from_its_chunk_is_told_from_one_in_own_words():
    chunk = ("## The fleet\n\nSTS-1 is a ship-to-shore crane built by Liebherr and commissioned in "
             "2011. It lifts at most 65 tonnes under the spreader.")
    copied = "STS-1 is a ship-to-shore crane built by Liebherr and commissioned in 2011."
    assert repeated_share(copied, chunk) == 1.0
    assert repeated_share("sts-1 IS a ship-to-shore crane, built by Liebherr", chunk) >= REPEATS_AT
    own = "Describes the first ship-to-shore crane of the fleet, its maker and its load limit."
    assert repeated_share(own, chunk) < REPEATS_AT
    assert repeated_share("", chunk) == 0.0


def test_structure_and_boundaries_ask_at_temperature_zero(fake_llm, docs):
    assert run(fake_llm, docs["guide"]).error is None
    temperatures = {(c.phase, c.body["temperature"]) for c in fake_llm.calls}
    assert ("structure_analysis", 0.0) in temperatures
    assert ("boundary_detection", 0.0) in temperatures
    assert ("chunk_metadata", 0.3) in temperatures  # the other phases keep the connection's


@pytest.mark.parametrize(("phase", "repair"), [("structure_analysis", "structure_fallback"),
                                                ("boundary_detection", "boundary_fallback")])
def test_a_fallback_is_kept_with_its_inputs(fake_llm, docs, phase, repair):
    fake_llm.respond(lambda r: "I cannot do that." if r.phase == phase
                     else auto_answer(r.phase, r.prompt))
    first = run(fake_llm, docs["guide"], parsing="tolerant")
    assert first.error is None and repair in {r.kind for r in first.repairs}
    fake_llm.reset()  # the server would now answer well: a new answer would cut differently
    again = run(fake_llm, docs["guide"], parsing="tolerant")
    assert phase not in fake_llm.phases  # not asked again
    assert [(c.start, c.end) for c in again.chunks] == [(c.start, c.end) for c in first.chunks]
    kept = [r for r in again.repairs if r.kind == repair]
    assert kept and all("kept in the LLM cache" in r.detail for r in kept)

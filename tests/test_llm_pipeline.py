# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""The LLM pipeline end to end against the fake server: chunks, retry rules, cache, windows."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from pathlib import Path

import pytest

from core.documents import convert
from core.errors import TemplateError
from core.llm.client import LLMError
from core.llm.errors import TSVError
from core.llm.phases import boundaries
from core.llm.pipeline import LLMConfig
from core.operations.strategies import RunOptions, chunk, run_llm, strategy
from core.progress import Cancelled
from core.prompts.library import PromptLibrary
from fakes.llm import Reply, auto_answer, fake_llm  # noqa: F401  (fixture)
from tests.docfactory import SMALL_GUIDE

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"
PHASES = {"structure_analysis", "boundary_detection", "chunk_metadata", "table_summary"}


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.0)  # the test documents are small


@pytest.fixture(scope="module")
def handbook():
    return convert((SAMPLES / "technical_handbook.md").read_bytes(), "technical_handbook.md")


@pytest.fixture(scope="module")
def guide():
    return convert(SMALL_GUIDE, "guide.md")


def run(fake, document, *, settings=None, **config):
    return run_llm([document], config, RunOptions(llm=settings or fake.settings()))[0].checked()


def assert_valid_chunks(document, chunks):
    assert chunks, "no chunks"
    for found in chunks:
        assert found.text == document.text[found.start : found.end]
        assert found.strategy == "llm" and found.text.strip() == found.text
    assert all(a.end <= b.start for a, b in zip(chunks, chunks[1:], strict=False))
    covered = "".join(c.text for c in chunks)
    assert "".join(covered.split()) == "".join(document.text.split())


def test_happy_path_on_a_sample(fake_llm, handbook):
    result = run(fake_llm, handbook)
    assert_valid_chunks(handbook, result.chunks)
    assert set(fake_llm.phases) == PHASES
    assert result.usage.requests == len(fake_llm.requests) and result.usage.tokens > 0
    assert [s.title for s in result.structure.sections][:2] == [
        "Tidewater Operations Handbook", "1. Architecture Overview"]
    assert result.chunks[0].llm.boundary_type == "DOCUMENT_START"
    types = {c.llm.boundary_type for c in result.chunks}
    assert {"SECTION_BREAK", "SEMANTIC_SHIFT"} <= types
    tables = [c for c in result.chunks if c.chunk_type == "table"]
    assert len(tables) == len(handbook.tables)
    for table in tables:  # the raw table stays the text; the summary is the model's
        assert any(t.markdown in table.text for t in handbook.tables)
        assert table.summary == auto_answer("table_summary", "")
    for found in result.chunks:
        assert found.llm.justification and found.summary
        assert found.context_prefix.startswith("This chunk is from")
        assert found.chunk_type == "table" or found.tokens <= 500
    assert result.snap_distances() and set(result.snap_distances()) == {0}


def test_rerun_of_an_unchanged_document_makes_zero_requests(fake_llm, guide):
    first = run(fake_llm, guide)
    sent = len(fake_llm.requests)
    assert first.usage.cache_misses == sent and first.usage.cache_hits == 0
    second = run(fake_llm, guide)
    assert len(fake_llm.requests) == sent
    assert second.usage.requests == 0 and second.usage.cache_hits == first.usage.cache_misses
    assert [c.model_dump() for c in second.chunks] == [c.model_dump() for c in first.chunks]
    third = run(fake_llm, guide, size=300)  # another max_tokens: phase 2 asks again
    assert third.usage.requests > 0


def failing(phase, answer, times=None):
    """A responder that gives ``answer`` for ``phase`` (the first ``times`` times), else auto."""
    count = {"n": 0}

    def respond(request):
        if request.phase == phase and (times is None or count["n"] < times):
            count["n"] += 1
            return answer
        return auto_answer(request.phase, request.prompt)

    return respond


@pytest.mark.parametrize("answer", [
    "Guide\t1\t1",                              # wrong column count
    "Guide\tone\t1\t6\tROOT",                   # non-integer
    "```\nGuide\t1\t1\t6\tROOT\n```",           # fenced
    "Here is the TSV:\nGuide\t1\t1\t6\tROOT",   # preamble
    "",                                         # empty
    "Setup\t2\t3\t6\tROOT\nGuide\t1\t1\t2\tROOT",  # descending positions
    "Guide\t1\t1\t60\tROOT",                    # an anchor the text does not have
])
def test_malformed_structure_fails_without_retry(fake_llm, guide, answer):
    fake_llm.respond(failing("structure_analysis", answer))
    with pytest.raises(TSVError) as info:
        run(fake_llm, guide)
    assert fake_llm.phases == ["structure_analysis"]
    assert info.value.log_path is not None and str(info.value.log_path) in str(info.value)
    assert "phase 1 (structure analysis) failed" in str(info.value)


@pytest.mark.parametrize("answer", [
    "2\tDOCUMENT_START\tStart\n3\tDOCUMENT_END",          # wrong column count
    "x\tDOCUMENT_START\tStart\n3\tDOCUMENT_END\tEnd",     # non-integer
    "```\n1\tDOCUMENT_START\tStart\n```",                 # fenced
    "Here are the boundaries\n1\tDOCUMENT_START\tS",      # preamble
    "",                                                   # empty
    "1\tDOCUMENT_START\tS\n2\tSEMANTIC_SHIFT\tT\n1\tDOCUMENT_END\tE",  # descending
])
def test_malformed_boundaries_fail_without_retry(fake_llm, guide, answer):
    fake_llm.respond(failing("boundary_detection", answer))
    with pytest.raises(TSVError, match=r"phase 2 \(boundary detection\) failed"):
        run(fake_llm, guide)
    assert fake_llm.phases.count("boundary_detection") >= 1
    bad = [c for c in fake_llm.calls if c.phase == "boundary_detection"]
    assert len({c.prompt for c in bad}) == len(bad)  # no section was asked twice


def test_summaries_get_one_retry(fake_llm, guide):
    fake_llm.respond(failing("chunk_metadata", "not\ttsv", times=1))
    result = run(fake_llm, guide)
    asked = Counter(c.prompt for c in fake_llm.calls if c.phase == "chunk_metadata")
    assert sorted(asked.values())[-2:] in ([1, 2], [2])  # exactly one request asked again
    assert all(c.summary for c in result.chunks)


def test_the_prefix_is_made_from_headings_and_summary_unless_asked(fake_llm, guide):
    made = run(fake_llm, guide)
    assert "contextual_prefix" not in fake_llm.phases
    for found in made.chunks:
        assert found.context_prefix.startswith(f"This chunk is from {found.heading_path[0]}")
        said = found.context_prefix.rpartition(", and ")[2] or found.context_prefix
        assert said.lower().endswith(found.summary.lower())
    fake_llm.reset()
    asked = run(fake_llm, guide, context_prefix="asked")
    assert fake_llm.phases.count("contextual_prefix") == len(asked.chunks)
    assert all(c.context_prefix == auto_answer("contextual_prefix", "") for c in asked.chunks)


def test_a_group_that_fails_is_asked_again_one_chunk_at_a_time(fake_llm, guide):
    def respond(request):
        if request.phase == "chunk_metadata" and request.prompt.count(" begins ") > 1:
            return "not\ttsv"
        return auto_answer(request.phase, request.prompt)

    fake_llm.respond(respond)
    result = run(fake_llm, guide, cache=False)
    groups = [c for c in fake_llm.calls
              if c.phase == "chunk_metadata" and c.prompt.count(" begins ") > 1]
    alone = [c for c in fake_llm.calls
             if c.phase == "chunk_metadata" and c.prompt.count(" begins ") == 1]
    assert groups and len(alone) == len([c for c in result.chunks if c.chunk_type == "text"])
    assert all(c.summary for c in result.chunks) and result.warnings == 0


def test_chunks_given_the_same_summary_are_asked_again_alone(fake_llm, guide):
    def respond(request):
        numbers = re.findall(r"^\[\[(\d+)\]\] begins ", request.prompt, re.MULTILINE)
        if request.phase == "chunk_metadata" and len(numbers) > 1:
            return "\n".join(f"{n}\tThe chunk describes the guide" for n in numbers)
        return auto_answer(request.phase, request.prompt)

    fake_llm.respond(respond)
    result = run(fake_llm, guide, parsing="tolerant")
    assert result.error is None
    assert "Describes the guide" not in {c.summary for c in result.chunks}
    assert "repeated row dropped" in {w.kind for w in result.warning_list()}



def test_a_failed_annotation_leaves_the_chunk_without_it(fake_llm, guide):
    fake_llm.respond(failing("contextual_prefix", "A prefix that starts wrongly and goes on."))
    seen = []
    result = run_llm([guide], {"cache": False, "context_prefix": "asked"},
                     RunOptions(llm=fake_llm.settings(), progress=seen.append))[0]
    assert result.error is None
    assert_valid_chunks(guide, result.chunks)
    assert all(c.context_prefix is None and c.summary for c in result.chunks)
    missing = [m for c in result.chunks for m in c.llm.missing]
    assert len(missing) == len(result.chunks) == result.warnings
    assert {m.field for m in missing} == {"context_prefix"}
    assert all("phase 3b (contextual prefix) failed" in m.error for m in missing)
    assert fake_llm.phases.count("contextual_prefix") == 2 * len(result.chunks)  # one retry each
    assert seen[-1].message == f"done with {len(missing)} warning(s)"
    assert result.status() == seen[-1].message


def test_a_failed_document_stops_alone(fake_llm, guide, handbook):
    def respond(request):
        if request.phase == "structure_analysis" and "[1] # Guide" in request.prompt:
            return "not tsv"
        return auto_answer(request.phase, request.prompt)

    fake_llm.respond(respond)
    failed, done = run_llm([guide, handbook], {"summaries": False},
                           RunOptions(llm=fake_llm.settings()))
    assert isinstance(failed.error, TSVError) and not failed.chunks
    assert "phase 1 (structure analysis) failed" in failed.status()
    assert done.error is None
    assert_valid_chunks(handbook, done.chunks)


def test_transient_errors_are_retried_inside_a_phase(fake_llm, guide):
    fake_llm.script([Reply(status=429, headers={"Retry-After": "0"}), Reply(status=503)])
    result = run(fake_llm, guide)
    assert fake_llm.phases[:3] == ["structure_analysis"] * 3
    assert_valid_chunks(guide, result.chunks)


def test_server_error_forever_stops_the_run(fake_llm, guide):
    fake_llm.respond(lambda request: Reply(status=500))
    settings = fake_llm.settings(max_retries=1)
    with pytest.raises(LLMError, match="HTTP 500.*gave up after 2 attempts"):
        run(fake_llm, guide, settings=settings)
    assert len(fake_llm.requests) == 2


def test_long_documents_are_windowed_and_merged(fake_llm, handbook):
    settings = fake_llm.settings(context_tokens=2048, max_tokens=256)
    result = run(fake_llm, handbook, settings=settings, summaries=False)
    assert fake_llm.phases.count("structure_analysis") > 2
    prompts = [c.prompt for c in fake_llm.calls if c.phase == "structure_analysis"]
    shown = [p.split("EXAMPLE OUTPUT")[-1] for p in prompts]  # the text after the example
    assert all("[1] " not in p for p in shown[1:])  # later windows continue the numbering
    assert_valid_chunks(handbook, result.chunks)
    titles = [s.title for s in result.structure.sections]
    assert "Tidewater Operations Handbook" in titles and len(titles) == len(set(titles))


def test_oversized_chunks_are_split_and_tables_stay_whole(fake_llm, handbook):
    result = run(fake_llm, handbook, size=60, summaries=False)
    assert_valid_chunks(handbook, result.chunks)
    split = [c for c in result.chunks if c.llm.boundary_type == "SIZE_CONSTRAINT"]
    assert split and all("recursive splitter" in c.llm.justification for c in split)
    assert all(c.tokens <= 60 for c in result.chunks if c.chunk_type == "text")
    tables = [c for c in result.chunks if c.chunk_type == "table"]
    assert len(tables) == len(handbook.tables) and max(c.tokens for c in tables) > 60


def test_offset_mode_snaps_positions_and_records_the_distance(fake_llm, guide):
    setup = guide.text.index("## Setup")
    usage = guide.text.index("## Usage")
    second = guide.text.index("It has two")

    def respond(request):
        if request.phase == "structure_analysis":
            return (f"Guide\t1\t0\t{setup - 3}\tROOT\nSetup\t1\t{setup + 2}\t{usage}\tROOT\n"
                    f"Usage\t1\t{usage}\t{len(guide.text)}\tROOT")
        if request.phase == "boundary_detection" and "section: Guide" in request.prompt:
            return (f"0\tDOCUMENT_START\tStart\n{second + 4}\tSEMANTIC_SHIFT\tSecond sentence\n"
                    f"{setup}\tDOCUMENT_END\tEnd")
        return auto_answer(request.phase, request.prompt)

    fake_llm.respond(respond)
    result = run(fake_llm, guide, mode="offsets", summaries=False)
    sections = result.structure.sections
    assert [(s.start, s.snap_distance) for s in sections] == [(0, 0), (setup, 2), (usage, 0)]
    shift = [b for b in result.boundary_list() if b.boundary_type == "SEMANTIC_SHIFT"]
    assert [(b.position, b.said, b.snap_distance) for b in shift] == [(second, second + 4, 4)]
    assert any(c.start == second for c in result.chunks)
    assert_valid_chunks(guide, result.chunks)
    versions = {c.body["messages"][0]["content"][:60] for c in fake_llm.calls}
    assert versions  # the offset templates were sent (no anchors in the text)
    assert all("[1] " not in c.prompt for c in fake_llm.calls)


def test_cancel_stops_the_run(fake_llm, handbook):
    cancel = threading.Event()
    fake_llm.latency = 0.05
    with pytest.raises(Cancelled, match="cancelled"):
        chunk(handbook, "llm", {}, RunOptions(llm=fake_llm.settings(),
                                              progress=lambda p: cancel.set(), cancel=cancel))
    assert len(fake_llm.requests) < 40


def test_template_without_the_text_placeholder_is_refused(fake_llm, guide, tmp_path):
    library = PromptLibrary(tmp_path / "prompts")
    library.save_variant("structure_analysis", "broken", "List the sections of {{document_name}}.")
    library.set_active("structure_analysis", "broken")
    with pytest.raises(TemplateError, match="document_text"):
        chunk(guide, "llm", {}, RunOptions(llm=fake_llm.settings(), library=library))
    assert fake_llm.requests == []


def test_registered_as_llm_and_uses_the_environment(fake_llm, guide, monkeypatch):
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    assert strategy("llm").config is LLMConfig and strategy("llm").needs_llm
    assert_valid_chunks(guide, chunk(guide, "llm", {"size": 300, "summaries": False}))
    monkeypatch.delenv("LLM_BASE_URL")
    with pytest.raises(LLMError, match="LLM_BASE_URL"):
        chunk(guide, "llm", {})


def test_cli_chunks_with_llm_and_reports_a_failed_phase(fake_llm, monkeypatch, capsys, tmp_path):
    from core.cli import main

    path = tmp_path / "guide.md"
    path.write_bytes(b"# Guide\n\nOne paragraph.\n\n## Part\n\nAnother paragraph. And more.\n")
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    assert main(["chunk", str(path), "--strategy", "llm", "--size", "200"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(json.loads(line)["strategy"] == "llm" for line in lines)

    fake_llm.script(["Guide\t1\tone\t2\tROOT"])
    path.write_bytes(b"# Other\n\nText.\n")  # a new document: no cached answers
    assert main(["chunk", str(path), "--strategy", "llm"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the progress lines
    assert err.startswith("error: phase 1 (structure analysis) failed: line 1:")
    assert "start_anchor must be an integer" in err and "llm_log.jsonl" in err


def test_the_api_key_is_nowhere_in_the_data_folder_after_a_run(fake_llm, guide, tmp_path):
    secret = "sk-never-on-disk-4711"
    result = run(fake_llm, guide, settings=fake_llm.settings(api_key=secret))
    assert result.chunks and fake_llm.requests
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "llm_log.jsonl" for p in written)  # the log and the cache exist …
    assert all(secret.encode() not in p.read_bytes() for p in written)  # … without the key


def test_a_document_of_one_block_is_one_section_without_asking(fake_llm):
    table = convert(b"service,hours\nsupport,24\nbilling,8\n", "levels.csv")
    result = run(fake_llm, table, summaries=False)
    assert "structure_analysis" not in fake_llm.phases  # a made-up outline is not asked for
    assert not result.structure.fallback
    assert_valid_chunks(table, result.chunks)


def test_a_short_section_is_one_chunk_without_asking(fake_llm, guide, monkeypatch):
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.5)
    result = run(fake_llm, guide, summaries=False)
    assert "boundary_detection" not in fake_llm.phases  # every section fills < 250 tokens
    assert all(r.boundaries[0].justification == "A short section: one chunk"
               for r in result.boundaries if len(r.boundaries) == 1 and r.end - r.start > 30)
    assert_valid_chunks(guide, result.chunks)

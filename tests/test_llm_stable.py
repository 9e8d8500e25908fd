# ruff: noqa: F811  (pytest fixtures imported from tests.fakellm are redefined as arguments)
"""Re-runs cut the same chunks: the phases that place chunks ask at temperature 0, and an answer
tolerant parsing could not use is remembered with its inputs, so the re-run falls back the same
way instead of asking again (where a new answer would cut differently)."""

from __future__ import annotations

import pytest

from core.documents import convert
from core.llm.phases import boundaries
from core.operations.strategies import RunOptions, run_llm
from tests.docfactory import SMALL_GUIDE
from tests.fakellm import auto_answer, fake_llm  # noqa: F401  (fixture)


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.0)


@pytest.fixture(scope="module")
def guide():
    return convert(SMALL_GUIDE, "guide.md")


def run(fake, document):
    return run_llm([document], {"parsing": "tolerant", "summaries": True},
                   RunOptions(llm=fake.settings(temperature=0.3)))[0]


def test_structure_and_boundaries_ask_at_temperature_zero(fake_llm, guide):
    assert run(fake_llm, guide).error is None
    temperatures = {(c.phase, c.body["temperature"]) for c in fake_llm.calls}
    assert ("structure_analysis", 0.0) in temperatures
    assert ("boundary_detection", 0.0) in temperatures
    assert ("chunk_metadata", 0.3) in temperatures  # the other phases keep the connection's


@pytest.mark.parametrize(("phase", "repair"), [("structure_analysis", "structure_fallback"),
                                                ("boundary_detection", "boundary_fallback")])
def test_a_fallback_is_kept_with_its_inputs(fake_llm, guide, phase, repair):
    fake_llm.respond(lambda r: "I cannot do that." if r.phase == phase
                     else auto_answer(r.phase, r.prompt))
    first = run(fake_llm, guide)
    assert first.error is None and repair in {r.kind for r in first.repairs}
    fake_llm.reset()  # the server would now answer well: a new answer would cut differently
    again = run(fake_llm, guide)
    assert phase not in fake_llm.phases  # not asked again
    assert [(c.start, c.end) for c in again.chunks] == [(c.start, c.end) for c in first.chunks]
    kept = [r for r in again.repairs if r.kind == repair]
    assert kept and all("kept in the LLM cache" in r.detail for r in kept)

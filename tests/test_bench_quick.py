"""Every bench runs in its quick mode (seconds, tiny inputs), so a changed page or API breaks this
test rather than the next measurement. Each runs as a user runs it: ``python -m bench.NAME``
from the repository root, in a data folder of its own. The figures are not checked."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import nullcontext
from pathlib import Path

import pytest

from fakes.http import running
from fakes.llm import FakeLLM

ROOT = Path(__file__).resolve().parents[1]
BROWSER = pytest.mark.e2e  # starts the app or Chromium: runs with the browser tests
# bench name -> its arguments for a quick run ("{tmp}": a folder of the test's own)
QUICK: dict[str, tuple[list[str], list[pytest.MarkDecorator]]] = {
    "bench_autocut": (["--quick"], []),
    "bench_best_of": (["--quick"], []),
    "bench_chunk_map": (["--quick"], [BROWSER]),
    "bench_chunkers": (["--quick"], []),
    "bench_convert": (["--quick"], []),
    "bench_embeddings": (["--quick"], []),
    "bench_evaluation": (["--quick"], []),
    "bench_llm": (["--quick"], []),
    "bench_long_pdf": (["--quick", "sample_docs"], []),
    "bench_pdf": (["--quick"], []),
    "bench_page_view": (["--quick"], [BROWSER]),
    "bench_ray_ingest": (["--quick"], [pytest.mark.ray]),  # the cluster extra, opt-in
    "bench_retrieval_quality": (["--quick"], []),
    "bench_startup": (["--quick"], [BROWSER]),
    "bench_store": (["--quick"], []),
    "bench_tune": (["--quick"], []),
    "bench_ui": (["--quick"], [BROWSER]),
    "bench_upload_memory": (["--quick"], []),
    "bench_views": (["--quick"], []),
    "hostile_corpus": (["--only", "empty.txt", "xxe.docx", "--commands", "convert"], []),
    "llm_held_format": (["--quick"], []),  # a served model with make llm for its figures
    "llm_long_docs": (["{tmp}/docs"], []),
    "llm_two_tabs": (["--quick"], [BROWSER]),  # a served model with make llm for its figures
    "pdf_heldout": (["--quick", "{tmp}/pdfs"], []),
    "bench_offline_embedders": (["--quick"], [pytest.mark.registry]),  # opt-in: downloads
    # against the fake server here (a served model with make llm for its figures)
    "llm_real": (["--out", "{tmp}/run", "--tune", "sample_docs/onboarding_deck.pptx"], []),
}
NOT_BENCHES = {"__init__", "quick", "llm_asked"}  # llm_asked: a part of llm_real


def test_every_bench_has_a_quick_run_here():
    benches = {p.stem for p in (ROOT / "bench").glob("*.py")} - NOT_BENCHES
    assert benches == set(QUICK)


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks)
                                  for name, (_, marks) in QUICK.items()])
def test_the_bench_runs_in_its_quick_mode(name, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in QUICK[name][0]]
    env = {**os.environ, "CHUNKLAB_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}
    with running(FakeLLM()) if name == "llm_real" else nullcontext() as fake:
        if fake is not None:  # the LLM bench asks the fake server
            env |= {"LLM_BASE_URL": fake.base_url, "LLM_MODEL": "fake"}
        done = subprocess.run([sys.executable, "-m", f"bench.{name}", *args], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()  # it reported something

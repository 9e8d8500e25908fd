"""The user's own embedder end to end, driven by a fake OpenAI-compatible embeddings server:
ingest and evaluation (operations and the CLI), the embedder named in every result, and a
failing endpoint giving one clean error with the store left as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main
from core.embeddings import BUILTIN, resolve
from core.errors import EmbeddingError, StoreError
from core.evaluation.metrics import METRICS
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.evaluation.stacks import expand
from core.operations.ingest.run import Source, ingest, sources_from_paths
from core.operations.questions.sets import load_from_folder
from core.store import ChunkStore
from tests.docfactory import inspection_markdown
from tests.fakeembed import DIMENSION, FakeEmbed, fake_embed  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "sample_docs" / "questions" / "product_manual.csv"
DOCS = ROOT / "sample_docs"
TOPICS = ["boilers", "roof tiles", "garden sheds", "water pipes"]
SETTINGS = {"size": 80, "overlap": 10, "unit": "tokens"}
ENV = ("EMBEDDING_BASE_URL", "EMBEDDING_MODEL", "EMBEDDING_API_KEY")
SECRET = "sk-cli-embedding-secret"


@pytest.fixture()
def folder(tmp_path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for topic in TOPICS:
        (docs / f"{topic.replace(' ', '_')}.md").write_text(inspection_markdown(topic))
    return docs


@pytest.fixture()
def store(tmp_path, monkeypatch) -> ChunkStore:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    return ChunkStore()


@pytest.fixture()
def endpoint_env(fake_embed, monkeypatch) -> FakeEmbed:  # noqa: F811
    """The CLI finds the fake server through the environment, as a user's shell would say."""
    monkeypatch.setenv("EMBEDDING_BASE_URL", fake_embed.base_url)
    monkeypatch.setenv("EMBEDDING_MODEL", "fake-embed")
    monkeypatch.setenv("EMBEDDING_API_KEY", SECRET)
    return fake_embed


def test_a_set_embedded_at_the_endpoint_names_it_and_is_queried_with_it(folder, store,
                                                                       fake_embed):  # noqa: F811
    embedder = resolve(fake_embed.settings().ref(), fake_embed.settings())
    summary = ingest(sources_from_paths([folder]), "own", "recursive", SETTINGS, store=store,
                     embedder=embedder)
    info = store.info("own")
    assert (summary.documents, info.embedder, info.dimension) == (4, "fake-embed", DIMENSION)
    assert info.embedder_ref.where == fake_embed.base_url.split("//")[1].removesuffix("/v1")
    assert info.over_limit == 0 and summary.warnings() == []  # MiniLM's limit is not its own
    sent = len(fake_embed.texts())
    hits = store.query("own", "What did the inspection find about the garden sheds?", 3,
                       embedder=embedder)
    assert "garden sheds" in hits[0][0].text
    assert fake_embed.texts()[sent:] == ["What did the inspection find about the garden sheds?"]
    with pytest.raises(StoreError, match="embedded with fake-embed @ 127.0.0.1"):
        store.query("own", "sheds", 3, embedder=resolve(BUILTIN))
    with pytest.raises(StoreError, match="embedded with fake-embed .*, not MiniLM"):
        ingest(sources_from_paths([folder]), "own", "recursive", SETTINGS, store=store)


def test_a_failing_endpoint_leaves_the_store_as_it_was(folder, store, fake_embed):  # noqa: F811
    embedder = resolve(fake_embed.settings().ref(), fake_embed.settings())
    sources = sources_from_paths([folder])
    fake_embed.fail_after(1)  # the first batch embeds, the second fails
    with pytest.raises(EmbeddingError, match="HTTP 500"):
        ingest(sources, "new", "recursive", SETTINGS, store=store, batch_size=1,
               embedder=embedder)
    assert not store.has_set("new")  # created by the failed run: gone again

    fake_embed.fail_after(None)
    ingest(sources[:2], "grown", "recursive", SETTINGS, store=store, embedder=embedder)
    before = store.info("grown")
    fake_embed.fail_after(1)
    with pytest.raises(EmbeddingError):
        ingest(sources, "grown", "recursive", SETTINGS, store=store, batch_size=1,
               embedder=embedder)
    after = store.info("grown")
    assert (after.doc_ids, after.chunks) == (before.doc_ids, before.chunks)
    assert sorted({c.doc_id for c in store.get_chunks("grown")}) == sorted(before.doc_ids)


def test_evaluation_under_two_embedders_names_each_and_differs(store, fake_embed):  # noqa: F811
    loaded = load_from_folder(QUESTIONS, DOCS)
    chunking = Candidate("recursive 200", "recursive", {"size": 200, "overlap": 0})
    candidates = expand([chunking], [BUILTIN, fake_embed.settings().ref()])
    assert [c.label for c in candidates] == [
        "recursive 200 · MiniLM (built-in)",
        f"recursive 200 · fake-embed @ {fake_embed.settings().location}"]
    minilm, own = evaluate(loaded.questions, loaded.documents, candidates,
                           embedding=fake_embed.settings(), use_cache=False)
    assert (minilm.dimension, own.dimension) == (384, DIMENSION)
    assert own.embedder_json() == {"name": "fake-embed", "where": fake_embed.settings().location,
                                   "dimension": DIMENSION, "label": candidates[1].embedder.label}
    assert minilm.embedder_json()["where"] == "local"
    questions = [q.question for q in loaded.questions.questions]
    assert set(questions) <= set(fake_embed.texts())  # the questions were embedded there too
    assert [own.metrics.overall.value(m) for m in METRICS] != [
        minilm.metrics.overall.value(m) for m in METRICS]
    cached = evaluate(loaded.questions, loaded.documents, candidates,
                      embedding=fake_embed.settings())
    assert all(r.cached for r in cached) and cached[1].dimension == DIMENSION


def test_a_chunk_set_is_evaluated_with_its_own_embedder(store, fake_embed):  # noqa: F811
    loaded = load_from_folder(QUESTIONS, DOCS)
    embedder = resolve(fake_embed.settings().ref(), fake_embed.settings())
    document = loaded.documents["product_manual.html"]

    ingest([Source.from_document(document)], "manual", "recursive", {"size": 200},
           store=store, embedder=embedder)
    [result] = evaluate(loaded.questions, loaded.documents,
                        [Candidate("set", chunk_set="manual")], store=store,
                        embedding=fake_embed.settings(), use_cache=False)
    assert result.candidate.embedder == fake_embed.settings().ref()
    assert result.dimension == DIMENSION


def test_cli_ingest_and_eval_with_the_endpoint(folder, store, endpoint_env, capsys):
    code = main(["ingest", str(folder), "--chunk-set", "cli own", "--strategy", "recursive",
                 "--size", "80", "--embedder", "endpoint"])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["sets", "list"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert (row["embedder"], row["dimension"]) == ("fake-embed", DIMENSION)
    assert row["embedder_where"] == endpoint_env.settings().location

    code = main(["eval", "--questions", str(QUESTIONS), "--docs", str(DOCS), "--strategy",
                 "recursive", "--size", "200", "--embedder", "minilm", "--embedder", "endpoint",
                 "--no-cache"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    first, second = out["results"]
    assert (first["embedder"]["name"], first["embedder"]["dimension"]) == (
        "all-MiniLM-L6-v2-onnx-int8", 384)
    assert (second["embedder"]["name"], second["embedder"]["dimension"]) == (
        "fake-embed", DIMENSION)
    assert second["config"]["label"].endswith(f"fake-embed @ {endpoint_env.settings().location}")
    assert {c["metric"] for c in out["comparisons"]} == set(METRICS)
    assert all(r.authorization == f"Bearer {SECRET}" for r in endpoint_env.requests)
    data = Path(os.environ["CHUNKLAB_DATA_DIR"])
    assert [p for p in data.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()] == []


def test_cli_a_failing_endpoint_is_exit_2_and_one_line(folder, store, endpoint_env, capsys):
    endpoint_env.fail_after(0)
    code = main(["ingest", str(folder), "--chunk-set", "doomed", "--strategy", "recursive",
                 "--embedder", "endpoint"])
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("[")]
    assert code == 2 and len(err) == 1
    assert err[0].startswith("error: The embedding endpoint (fake-embed at 127.0.0.1:")
    assert "HTTP 500" in err[0] and not store.has_set("doomed")
    code = main(["eval", "--questions", str(QUESTIONS), "--docs", str(DOCS), "--strategy",
                 "recursive", "--embedder", "endpoint", "--no-cache"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.strip().startswith("error: The embedding endpoint (fake-embed")
    assert len(captured.err.strip().splitlines()) == 1


def test_cli_without_an_endpoint_says_what_to_set(store, monkeypatch, capsys, folder):
    for env in ENV:
        monkeypatch.delenv(env, raising=False)
    code = main(["ingest", str(folder), "--chunk-set", "x", "--embedder", "endpoint"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "EMBEDDING_BASE_URL and EMBEDDING_MODEL" in err


def test_the_command_line_process_fails_cleanly_mid_run(folder, tmp_path,
                                                         fake_embed):  # noqa: F811
    fake_embed.fail_after(2)
    env = {**os.environ, "CHUNKLAB_DATA_DIR": str(tmp_path / "proc"),
           "EMBEDDING_BASE_URL": fake_embed.base_url, "EMBEDDING_MODEL": "fake-embed",
           "EMBEDDING_API_KEY": "sk-never-shown"}
    env.pop("CHROMA_HOST", None)
    run = subprocess.run(
        [sys.executable, "-m", "core", "ingest", str(folder), "--chunk-set", "mid",
         "--batch-size", "1", "--size", "80", "--embedder", "endpoint"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    errors = [line for line in run.stderr.splitlines() if not line.startswith("[")]
    assert run.returncode == 2 and run.stdout == ""
    assert len(errors) == 1 and errors[0].startswith("error: The embedding endpoint")
    assert "Traceback" not in run.stderr and "sk-never-shown" not in run.stderr
    assert any(" 1/4 documents" in line for line in run.stderr.splitlines())  # it was mid-run
    listed = subprocess.run([sys.executable, "-m", "core", "sets", "list"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert json.loads(listed.stdout) == []
    key_on_disk = [p for p in (tmp_path / "proc").rglob("*") if p.is_file()
                   and b"sk-never-shown" in p.read_bytes()]
    assert key_on_disk == []


def test_an_endpoint_that_fails_mid_evaluation_is_that_configurations_failed_row(
        store, fake_embed):  # noqa: F811
    loaded = load_from_folder(QUESTIONS, DOCS)
    chunkings = [Candidate("recursive 200", "recursive", {"size": 200, "overlap": 0}),
                 Candidate("fixed 300", "fixed", {"size": 300, "overlap": 0})]
    own = fake_embed.settings().ref()
    candidates = expand(chunkings, [own, BUILTIN])
    fractions: list[float] = []
    fake_embed.fail_after(1)  # the questions are embedded, the first candidate's chunks fail
    evaluation = evaluate(loaded.questions, loaded.documents, candidates,
                          embedding=fake_embed.settings(), use_cache=False,
                          retrieval=Retrieval(k=10, autocut=1),
                          progress=lambda p: fractions.append(p.fraction))
    labels = [o.candidate.label for o in evaluation.outcomes]
    assert labels == [c.label for c in candidates]  # every configuration, in the order asked
    assert [f.candidate.embedder for f in evaluation.failures] == [own, own]
    assert all(f.error == "EmbeddingError" and "HTTP 500" in f.reason
               for f in evaluation.failures)
    assert [(r.candidate.embedder, r.dimension, r.autocut) for r in evaluation.results] == [
        (BUILTIN, 384, 1), (BUILTIN, 384, 1)]
    assert fractions[-1] == 1.0  # progress ends, whatever failed

    questions = [q.question for q in loaded.questions.questions]
    assert all(fake_embed.texts().count(q) == 1 for q in questions)  # once, for both

    fake_embed.fail_after(None)
    both = evaluate(loaded.questions, loaded.documents,
                    [c for c in candidates if c.embedder == own],
                    embedding=fake_embed.settings(), use_cache=False)
    assert [r.dimension for r in both] == [DIMENSION, DIMENSION] and not both.failures

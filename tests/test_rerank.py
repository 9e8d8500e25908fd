"""The optional reranking stage against a fake /v1/rerank: the request shape, the reordering
before the cut, in retrieval (Assemble, the CLI) and in the evaluation, and one clean error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.errors import RerankError
from core.operations.assemble.run import AssemblyOptions, assemble
from core.operations.evaluation import Candidate, Retrieval, evaluate
from core.operations.evaluation.stacks import expand
from core.operations.ingest.run import ingest, sources_from_paths
from core.operations.questions.sets import load_from_folder
from core.retrieval.rerank import Reranker, rerank_hits
from core.retrieval.retrieve import retrieve
from core.store import ChunkStore
from tests.docfactory import inspection_markdown
from tests.fakeembed import Reply, fake_embed  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "sample_docs" / "questions" / "product_manual.csv"
DOCS = ROOT / "sample_docs"


@pytest.fixture()
def store(tmp_path, monkeypatch) -> ChunkStore:
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    docs = tmp_path / "docs"
    docs.mkdir()
    for topic in ("boilers", "roof tiles", "garden sheds"):
        (docs / f"{topic.replace(' ', '_')}.md").write_text(inspection_markdown(topic))
    store = ChunkStore()
    ingest(sources_from_paths([docs]), "set", "recursive", {"size": 60, "overlap": 0},
           store=store)
    return store


def test_the_request_shape_and_the_reordering(fake_embed):  # noqa: F811
    hits = [("a red boiler", 0.9), ("blue shed roof", 0.8), ("red shed", 0.7), ("tail", 0.1)]
    with Reranker(fake_embed.rerank_settings(top_n=3)) as reranker:
        reordered = rerank_hits(reranker, "red shed", hits, lambda text: text)
    [request] = fake_embed.rerank_requests()
    assert request.path == "/v1/rerank"
    assert request.body == {"model": "fake-rerank", "query": "red shed",
                            "documents": ["a red boiler", "blue shed roof", "red shed"],
                            "top_n": 3}
    assert [text for text, _ in reordered] == ["red shed", "a red boiler", "blue shed roof",
                                               "tail"]
    assert reordered[0][1] == 1.0 and reordered[-1] == ("tail", 0.1)  # below top N: unchanged


def test_a_bare_list_of_scores_is_read_too(fake_embed):  # noqa: F811
    fake_embed.script([Reply(raw=json.dumps([{"index": 1, "score": 0.9},
                                             {"index": 0, "score": 0.2}]))])
    with Reranker(fake_embed.rerank_settings()) as reranker:
        assert reranker.scores("q", ["x", "y"]) == [(1, 0.9), (0, 0.2)]


def test_a_failing_reranker_is_one_sentence(fake_embed):  # noqa: F811
    fake_embed.script([Reply(status=500), Reply(status=500)])
    with Reranker(fake_embed.rerank_settings(max_retries=1)) as reranker, \
            pytest.raises(RerankError, match=r"^The reranking endpoint \(fake-rerank at "
                                             r"127\.0\.0\.1:\d+\) failed: HTTP 500"):
        reranker.scores("q", ["x"])
    with pytest.raises(RerankError, match="RERANK_BASE_URL and RERANK_MODEL"):
        Reranker(fake_embed.rerank_settings(base_url="", model=""))


def test_retrieval_reranks_the_best_hits_before_the_cut(store, fake_embed):  # noqa: F811
    question = "Which findings about the garden sheds need action?"
    plain = retrieve(question, limit=2, chunk_set="set", store=store)
    with Reranker(fake_embed.rerank_settings(top_n=8)) as reranker:
        reranked = retrieve(question, limit=2, chunk_set="set", store=store,
                            reranker=reranker)
    [request] = fake_embed.rerank_requests()
    assert len(request.body["documents"]) == 8  # the top N, not only the 2 kept
    assert len(reranked) == 2
    scores = {doc: score for doc, score in zip(request.body["documents"], [
        r["relevance_score"] for r in sorted(fake_embed.rerank(request.body)["results"],
                                             key=lambda r: r["index"])], strict=True)}
    assert reranked[0].text == max(scores, key=lambda doc: scores[doc])
    assert [p.score for p in reranked] != [p.score for p in plain]


def test_assemble_and_its_cli_rerank_when_asked(store, fake_embed,  # noqa: F811
                                                monkeypatch, capsys):
    options = AssemblyOptions(limit=2, rerank=True)
    with pytest.raises(RerankError, match="No reranking endpoint configured"):
        assemble("sheds?", "set", options, store=store, doc_names={},
                 reranking=fake_embed.rerank_settings(base_url=""))
    result = assemble("sheds?", "set", options, store=store, doc_names={},
                      reranking=fake_embed.rerank_settings())
    assert len(result.packs) == 2 and len(fake_embed.rerank_requests()) == 1
    monkeypatch.setenv("RERANK_BASE_URL", fake_embed.base_url)
    monkeypatch.setenv("RERANK_MODEL", "fake-rerank")
    assert main(["assemble", "--chunk-set", "set", "--question", "sheds?", "--rerank",
                 "--with-packs"]) == 0
    assert len(json.loads(capsys.readouterr().out)["packs"]) == 5
    assert len(fake_embed.rerank_requests()) == 2
    fake_embed.fail_after(0)
    assert main(["assemble", "--chunk-set", "set", "--question", "sheds?", "--rerank"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: The reranking endpoint")


def test_evaluation_with_and_without_reranking(tmp_path, monkeypatch,
                                               fake_embed, capsys):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    loaded = load_from_folder(QUESTIONS, DOCS)
    chunking = Candidate("recursive 100", "recursive", {"size": 100, "overlap": 0})
    rerank = fake_embed.rerank_settings(top_n=10)
    plain, reranked = evaluate(loaded.questions, loaded.documents,
                               expand([chunking], rerank=rerank.ref(), mode="both"),
                               reranking=rerank)
    assert reranked.candidate.label == "recursive 100 · reranked"
    assert len(fake_embed.rerank_requests()) == len(loaded.questions.questions)
    assert all(len(r.body["documents"]) == 10 for r in fake_embed.rerank_requests())
    assert plain.metrics.overall != reranked.metrics.overall
    assert reranked.candidate.key() != plain.candidate.key()

    monkeypatch.setenv("RERANK_BASE_URL", fake_embed.base_url)
    monkeypatch.setenv("RERANK_MODEL", "fake-rerank")
    code = main(["eval", "--questions", str(QUESTIONS), "--docs", str(DOCS), "--strategy",
                 "recursive", "--size", "100", "--overlap", "0", "--rerank", "both"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [r["config"]["rerank"] is not None for r in out["results"]] == [False, True]
    assert out["results"][1]["config"]["rerank"]["model"] == "fake-rerank"


def test_autocut_reads_the_reranked_scores(store, fake_embed, tmp_path):  # noqa: F811
    question = "Which findings about the garden sheds need action?"
    with Reranker(fake_embed.rerank_settings(top_n=10)) as reranker:
        whole = retrieve(question, limit=10, chunk_set="set", store=store, reranker=reranker)
        cut = retrieve(question, limit=10, chunk_set="set", store=store, reranker=reranker,
                       autocut=1)
    assert 0 < len(cut) < len(whole) and [p.id for p in cut] == [p.id for p in whole][:len(cut)]
    result = assemble(question, "set", AssemblyOptions(limit=10, rerank=True, autocut=1),
                      store=store, doc_names={}, reranking=fake_embed.rerank_settings(top_n=10))
    assert [p.id for p in result.packs] == [p.id for p in cut]

    loaded = load_from_folder(QUESTIONS, DOCS)
    [reranked] = expand([Candidate("recursive 100", "recursive", {"size": 100, "overlap": 0})],
                        rerank=fake_embed.rerank_settings(top_n=10).ref(), mode="on")
    runs = [evaluate(loaded.questions, loaded.documents, [reranked],
                     retrieval=Retrieval(k=10, autocut=jumps),
                     reranking=fake_embed.rerank_settings(top_n=10), use_cache=False)[0]
            for jumps in (None, 1)]
    assert runs[1].autocut == 1 and runs[1].retrieval == "autocut of top-10"
    for full, short in zip(runs[0].questions, runs[1].questions, strict=True):
        assert short.retrieved == full.retrieved[:len(short.retrieved)]
    assert runs[1].metrics.overall.mean_tokens < runs[0].metrics.overall.mean_tokens

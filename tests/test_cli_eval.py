"""`python -m core eval`: metrics JSON on a shipped set; bad input exits 2 with one line."""

import json
from contextlib import nullcontext
from pathlib import Path

import pytest

from core.cli import main
from core.documents import convert
from core.embeddings import BUILTIN
from core.evaluation.metrics import METRICS
from core.operations.evaluation import Retrieval
from core.operations.presets import save_user_preset
from core.operations.questions.generation import generate_question_set
from core.operations.questions.sets import save_set
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK
from tests.fakeembed import fake_embed  # noqa: F401  (fixture)
from tests.report_helpers import outside_references

ROOT = Path(__file__).resolve().parents[1]
SET = str(ROOT / "sample_docs" / "questions" / "product_manual.csv")
DOCS = str(ROOT / "sample_docs")


def test_eval_prints_metrics_json(capsys):
    code = main(["eval", "--questions", SET, "--docs", DOCS, "--strategy", "fixed",
                 "--size", "1000", "--unit", "chars", "--no-tables", "--rank", "bm25"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["values"] == "fractions (0..1)" and out["ranking"] == "bm25" and out["k"] == 5
    assert out["config"]["settings"] == {"size": 1000, "unit": "chars", "tables": False}
    assert set(out["per_corpus"]) == {"product_manual.html"}
    assert {"text", "table"} == set(out["per_kind"])
    assert 0 < out["overall"]["recall"] <= 1 and out["invalid_rows"] == []
    assert out["table_query_accuracy"] == out["per_kind"]["table"]["hit_rate"]


@pytest.mark.parametrize("argv, message", [
    (["--strategy", "fixed", "--k", "0"], "k must be at least 1"),
    (["--strategy", "fixed", "--size", "-5"], ""),
    (["--preset", "no such preset"], "Unknown preset"),
    (["--strategy", "fixed", "--rank", "magic"], "invalid choice"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) if "magic" in argv else nullcontext():
        code = main(["eval", "--questions", SET, "--docs", DOCS, *argv])
        assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_missing_folder_is_one_line(capsys, tmp_path):
    code = main(["eval", "--questions", SET, "--docs", str(tmp_path / "nope"),
                 "--strategy", "fixed"])
    assert code == 2
    assert "is not a folder of documents" in capsys.readouterr().err



def test_contextual_delta_prints_both_figures_and_the_delta(tmp_path, monkeypatch, capsys,
                                                            fake_llm):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "claims_handbook.md").write_text(HANDBOOK)
    document = convert(HANDBOOK.encode(), "claims_handbook.md")
    generated = generate_question_set([document], per_doc=4, settings=fake_llm.settings())
    questions = save_set("claims", generated.questions.questions)
    argv = ["eval", "--questions", str(questions), "--docs", str(docs), "--strategy", "llm",
            "--size", "120", "--contextual-delta"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["strategy"] == "llm" and out["config"]["contextual"] is True
    [pair] = out["contextual"]
    assert pair["config"] == "llm size=120"
    assert set(pair["delta"]) == set(METRICS)
    for metric in METRICS:
        on, off = pair["with_prefixes"][metric], pair["without_prefixes"][metric]
        assert on == round(out["overall"][metric], 6)  # the main result is the one with them
        assert abs(pair["delta"][metric] - (on - off)) < 1e-5
    assert "on recall" in pair["verdict"]
    # the prefixes are the headings and the model's summaries, asked three chunks a request
    assert "chunk_metadata" in fake_llm.phases and "contextual_prefix" not in fake_llm.phases

    assert main([*argv[:-4], "recursive", "--contextual-delta"]) == 2
    assert "--contextual-delta needs an LLM configuration" in capsys.readouterr().err


def test_a_preset_keeps_its_embedder_and_retrieval(tmp_path, monkeypatch, capsys,
                                                   fake_embed):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EMBEDDING_BASE_URL", fake_embed.base_url)
    monkeypatch.setenv("EMBEDDING_MODEL", "fake-embed")
    own = fake_embed.settings().ref()
    chunking = ("recursive", {"size": 200, "overlap": 0})
    save_user_preset("tuned own", *chunking, embedder=own, retrieval=Retrieval(8))
    save_user_preset("tuned cut", *chunking, embedder=BUILTIN,
                     retrieval=Retrieval(10, autocut=1))
    argv = ["eval", "--questions", SET, "--docs", DOCS, "--preset", "tuned own",
            "--preset", "tuned cut", "--preset", "fixed 1000 chars", "--k", "3"]
    assert main([*argv, "--embedder", "endpoint"]) == 0
    own_result, cut, plain = json.loads(capsys.readouterr().out)["results"]
    assert (own_result["k"], own_result["budget"], own_result["autocut"]) == (8, None, None)
    assert own_result["retrieval"] == "top-8" and own_result["embedder"]["name"] == "fake-embed"
    assert (cut["k"], cut["autocut"], cut["retrieval"]) == (10, 1, "autocut of top-10")
    assert cut["embedder"]["where"] == "local"  # its own MiniLM, not --embedder's endpoint
    assert (plain["k"], plain["embedder"]["name"]) == (3, "fake-embed")

    save_user_preset("tuned own", *chunking, embedder=own, retrieval=Retrieval(2))
    assert main(argv) == 0
    own_result, cut, _ = json.loads(capsys.readouterr().out)["results"]
    assert (own_result["k"], own_result["cached"]) == (2, False)  # not the top-8 result
    assert cut["cached"] is True

    monkeypatch.delenv("EMBEDDING_BASE_URL")
    assert main([*argv, "--no-cache"]) == 3  # one configuration failed, the others ran
    captured = capsys.readouterr()
    own_result, cut, plain = json.loads(captured.out)["results"]
    assert own_result["status"] == "failed" and cut["status"] == plain["status"] == "ok"
    reason = (f"This configuration embeds with {own.label}, but no embedding endpoint is "
              "configured")
    assert own_result["reason"].startswith(reason)
    assert captured.err.strip() == f"failed: tuned own: {own_result['reason']}"


def test_eval_report_writes_one_self_contained_file(tmp_path, capsys):
    report = tmp_path / "report.html"
    code = main(["eval", "--questions", SET, "--docs", DOCS, "--preset", "fixed 1000 chars",
                 "--preset", "recursive 500/50", "--rank", "bm25", "--report", str(report)])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["question_count"] == 19
    assert f"report: {report} (" in captured.err
    page = report.read_text(encoding="utf-8")
    assert outside_references(page) == []
    assert page.count('<details class="q"') == 19
    for name in ("fixed 1000 chars", "recursive 500/50", "product_manual.csv",
                 "product_manual.html", "No difference on recall"):
        assert name in page


def test_eval_report_into_a_missing_folder_is_refused_before_running(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--questions", SET, "--docs", DOCS, "--strategy", "fixed",
              "--report", str(tmp_path / "nope" / "report.html")])
    assert "no folder" in capsys.readouterr().err
def test_eval_over_four_configurations_gives_each_ones_chance_of_being_best(capsys):
    presets = ["fixed 1000 chars", "fixed 500 tokens", "recursive 500/50",
               "recursive 500/50 by section"]
    argv = ["eval", "--questions", SET, "--docs", DOCS, "--rank", "bm25"]
    for name in presets:
        argv += ["--preset", name]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    chances = [r["probability_best"] for r in out["results"]]
    assert [r["config"]["label"] for r in out["results"]] == presets
    assert all(0 <= p <= 1 for p in chances) and sum(chances) == pytest.approx(1, abs=1e-3)
    best = out["best"]
    assert best["metric"] == "recall" and best["questions"] == out["question_count"]
    assert best["probabilities"] == dict(zip(presets, chances, strict=True))
    leader = max(presets, key=best["probabilities"].__getitem__)
    assert best["leading"][0] == leader
    assert best["winner"] == (leader if best["probabilities"][leader] >= 0.9 else None)
    assert best["ruled_out"] == [p for p in presets if best["probabilities"][p] < 0.025]
    sentence = best["sentence"]
    assert leader in sentence and f"of the {out['question_count']} questions" in sentence
    assert sentence.startswith(f"{leader} is best on recall" if best["winner"]
                               else "No single winner on recall")


def test_two_configurations_have_no_best_of(capsys):
    argv = ["eval", "--questions", SET, "--docs", DOCS, "--rank", "bm25",
            "--preset", "fixed 1000 chars", "--preset", "recursive 500/50"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best"] is None and "probability_best" not in out["results"][0]

"""`python -m core answers` and `python -m core prompts` against the fake LLM server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.cli import main
from core.llm.phases.judge import Judgement, parse_judgement
from fakes.http import running
from fakes.llm import FakeLLM, FakeRequest, Reply, fake_llm  # noqa: F401  (fixture)
from tests.answer_variants import NO_CITES, judge_or_quote, no_citation_file, quote_first_passage
from tests.report_helpers import outside_references

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "sample_docs"


@pytest.fixture
def endpoint(tmp_path, monkeypatch, fake_llm):  # noqa: F811
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    fake_llm.respond(quote_first_passage)
    return fake_llm


def test_prompts_list_show_save(endpoint, tmp_path, capsys):
    assert main(["prompts", "save", "rag_system", "no cites",
                 "--file", str(no_citation_file(tmp_path))]) == 0
    saved = json.loads(capsys.readouterr().out)
    assert saved["variant"] == "no cites" and re.fullmatch(r"[0-9a-f]{12}", saved["version"])
    assert main(["prompts", "list"]) == 0
    listed = {t["name"]: t for t in json.loads(capsys.readouterr().out)}
    assert listed["rag_system"]["variants"] == ["no cites"]
    assert listed["rag_system"]["active"] == "default"
    assert main(["prompts", "show", "rag_system", "--variant", "no cites"]) == 0
    assert NO_CITES in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["prompts", "save", "rag_system", "broken", "--file", str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def two_variants(folder: Path, capsys: pytest.CaptureFixture[str], limit: int) -> list[str]:
    """Save the no-citation variant; the argv of an answer run of it against the default on
    the first ``limit`` questions of a shipped set."""
    assert main(["prompts", "save", "rag_system", "no cites",
                 "--file", str(no_citation_file(folder))]) == 0
    capsys.readouterr()
    return ["answers", "--questions", str(DOCS / "questions" / "product_manual.csv"),
            "--docs", str(DOCS), "--strategy", "fixed", "--size", "400", "--unit", "chars",
            "--rank", "bm25", "--variant", "default", "--variant", "no cites",
            "--limit", str(limit)]


def test_answers_compares_two_variants_and_asks_nothing_twice(endpoint, tmp_path, capsys):
    argv = two_variants(tmp_path, capsys, 8)
    assert main(argv) == 3  # one question's answers failed
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert "Answer 16 of 16" in captured.err
    assert out["temperature"] == 0.0 and out["seed"] == 7 and out["asked"] == 16
    assert {call.body.get("seed") for call in endpoint.calls} == {7}  # one seed for every arm
    default, no_cites = out["variants"]
    assert (default["variant"], no_cites["variant"]) == ("default", "no cites")
    assert default["configuration"]["strategy"] == "fixed"
    assert default["overall"]["cited"] == 1.0 and no_cites["overall"]["cited"] == 0.0
    assert default["overall"]["answered"] == pytest.approx(7 / 8)
    assert default["overall"]["citations_valid"] == 1.0
    assert set(default["overall"]["ci95"]) >= {"cited", "reference_coverage"}
    [comparison] = out["comparison"]
    assert out["best"] is None  # two arms: the head-to-head comparison says it
    cited = comparison["grades"]["cited"]
    assert (cited["wins"], cited["losses"], cited["ties"]) == (0, 7, 0)
    assert cited["p_value"] < 0.05 and cited["more_questions"] == 0
    assert comparison["verdict"].startswith(
        "no cites is worse than default on citing a source (p = ")
    failed = [a for a in out["answers"] if a["status"] == "failed"]
    assert len(failed) == 2 and all("heat up" in a["question"] for a in failed)
    assert "failed: row" in captured.err
    first = next(a for a in out["answers"] if a["status"] == "ok" and a["variant"] == "default")
    assert first["cited"] == ["[¹]"] and first["citations"][0]["marker"] == "[¹]"
    assert first["grades"]["citations_valid"] == 1.0

    asked = len(endpoint.calls)
    assert main(argv) == 3
    again = json.loads(capsys.readouterr().out)
    assert len(endpoint.calls) == asked + 2  # only the failed answers are asked again
    assert again["variants"][0]["overall"] == default["overall"]


def test_the_judge_is_off_by_default_and_reported_apart(endpoint, tmp_path, capsys):
    endpoint.respond(judge_or_quote)
    argv = two_variants(tmp_path, capsys, 3)
    assert main(argv) == 3
    plain = json.loads(capsys.readouterr().out)
    assert "answer_judge" not in endpoint.phases
    assert "judge" not in plain["variants"][0]["overall"] and plain["answers"][0]["judge"] is None

    assert main([*argv, "--judge"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert endpoint.phases.count("answer_judge") == 4  # 2 answered questions x 2 variants
    default, no_cites = (v["overall"]["judge"] for v in out["variants"])
    assert (default["faithfulness"], no_cites["faithfulness"]) == (5.0, 3.0)
    assert default["judged"] == 2
    judged = out["comparison"][0]["judge"]
    assert (judged["wins"], judged["losses"]) == (0, 2)
    assert set(out["comparison"][0]["grades"]) == {"cited", "reference_coverage",
                                                   "abstention_right"}
    first = next(a for a in out["answers"] if a["status"] == "ok")
    assert first["judge"] == {"faithfulness": 5, "reason": "cited"}
    asked = len(endpoint.calls)
    assert main([*argv, "--judge"]) == 3
    assert len(endpoint.calls) == asked + 2  # the judgements are cached; the failed asked again


def test_a_judge_answer_without_a_score_is_not_judged():
    assert parse_judgement('{"faithfulness": 9}').faithfulness is None
    assert parse_judgement("I think 4").reason == "I think 4"
    assert parse_judgement('x {"faithfulness": "4", "reason": "fine"} y') == Judgement(4, "fine")


UNANSWERABLE = "Does the warranty cover commercial use in a cafe?"


def abstain_or_invent(request: FakeRequest) -> Reply | str:
    """The default prompt abstains on the unanswerable question, the variant invents."""
    if UNANSWERABLE in request.prompt:
        return ("Yes, for two years [1]." if NO_CITES in request.prompt
                else "The passages do not say whether commercial use is covered.")
    return quote_first_passage(request)


def test_an_unanswerable_question_is_answered_and_graded_not_scored_for_retrieval(
        endpoint, tmp_path, capsys):
    endpoint.respond(abstain_or_invent)
    shipped = (DOCS / "questions" / "product_manual.csv").read_text(encoding="utf-8")
    questions = tmp_path / "with_unanswerable.csv"
    questions.write_text("\n".join(shipped.splitlines()[:4])
                         + f'\n"{UNANSWERABLE}",[],product_manual.html,unanswerable\n')
    argv = two_variants(tmp_path, capsys, 10)
    argv[argv.index("--questions") + 1] = str(questions)
    assert main(argv) == 3  # the "heat up" question fails as before
    out = json.loads(capsys.readouterr().out)
    default, invented = (a for a in out["answers"] if a["question"] == UNANSWERABLE)
    assert default["kind"] == "unanswerable" and len(default["citations"]) == 5
    assert default["grades"]["abstained"] and default["grades"]["abstention_right"]
    assert default["grades"]["reference_coverage"] is None
    assert not invented["grades"]["abstained"] and not invented["grades"]["abstention_right"]
    assert out["variants"][0]["overall"]["abstained"] == pytest.approx(1 / 3)

    assert main(["eval", "--questions", str(questions), "--docs", str(DOCS),
                 "--strategy", "fixed", "--rank", "bm25"]) == 0
    retrieval = json.loads(capsys.readouterr().out)
    assert retrieval["overall"]["questions"] == 3  # nothing to retrieve for the unanswerable
    assert "unanswerable" not in retrieval["per_kind"]


def test_the_judge_asks_its_own_endpoint_when_one_is_set(endpoint, tmp_path, capsys,
                                                         monkeypatch):
    with running(FakeLLM()) as judge:
        judge.respond(judge_or_quote)
        monkeypatch.setenv("JUDGE_BASE_URL", judge.base_url)
        monkeypatch.setenv("JUDGE_MODEL", "bigger")
        argv = two_variants(tmp_path, capsys, 3)
        assert main([*argv, "--judge"]) == 3
        out = json.loads(capsys.readouterr().out)
    assert "answer_judge" not in endpoint.phases  # the answer server only answers
    assert judge.phases == ["answer_judge"] * 4 and {c.body["model"] for c in judge.calls} == {
        "bigger"}
    assert out["judge_model"] == "bigger" and out["model"] == "fake"
    assert out["variants"][0]["overall"]["judge"]["judged"] == 2


def test_answers_report_shows_the_answers_side_by_side_escaped(endpoint, tmp_path, capsys):
    hostile = '<script>alert("answer")</script> <img src=x onerror=alert(1)> [1]'
    endpoint.respond(lambda request: hostile if "heat" in request.prompt
                     else quote_first_passage(request))
    report = tmp_path / "answers.html"
    assert main([*two_variants(tmp_path, capsys, 3), "--report", str(report)]) == 0
    assert f"report: {report} (" in capsys.readouterr().err
    page = report.read_text(encoding="utf-8")
    assert outside_references(page) == []
    assert page.count('<details class="q"') == 3
    assert "<script>alert" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&quot;answer&quot;)&lt;/script&gt;" in page
    assert 'href="#a1-0-s1">[1]</a>' in page  # the marker links to its passage
    for name in ("default", "no cites", "product_manual.csv", "citing a source"):
        assert name in page
def test_three_configurations_give_each_ones_chance_of_being_best(endpoint, capsys):
    presets = ["fixed 1000 chars", "fixed 500 tokens", "recursive 500/50"]
    argv = ["answers", "--questions", str(DOCS / "questions" / "product_manual.csv"),
            "--docs", str(DOCS), "--rank", "bm25", "--limit", "6"]
    for name in presets:
        argv += ["--preset", name]
    assert main(argv) == 3  # the refused question
    out = json.loads(capsys.readouterr().out)
    best = out["best"]
    assert best["metric"] == "reference_coverage" and best["metric_name"] == "reference coverage"
    assert list(best["probabilities"]) == presets == [v["label"] for v in out["variants"]]
    assert [v["probability_best"] for v in out["variants"]] == list(
        best["probabilities"].values())
    assert sum(best["probabilities"].values()) == pytest.approx(1, abs=1e-3)
    assert best["questions"] == 5  # answered under every configuration, with a reference
    assert best["sentence"].startswith(
        f"{best['winner']} is best on reference coverage" if best["winner"]
        else "No single winner on reference coverage: ")

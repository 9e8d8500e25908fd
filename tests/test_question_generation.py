"""Generating a question set with the LLM (fake server): located excerpts, drops with reasons,
table questions, the cache, the saved-set round trip and the CLI."""

import json

import pytest

from core.cli import main
from core.documents import convert
from core.evaluation.questions import parse_questions, to_csv, validate
from core.operations.question_generation import generate_question_set
from core.operations.question_sets import delete_saved, save_set, saved_csv, saved_sets
from core.progress import Cancelled
from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK
from tests.fakellm import FakeRequest, fake_llm  # noqa: F401  (fixture)


@pytest.fixture(scope="module")
def guide():
    return convert(HANDBOOK.encode(), "claims_handbook.md")


def _passage(request: FakeRequest) -> str:
    return request.prompt.partition("<<<")[2].partition(">>>")[0]


def test_generated_questions_have_exact_references_and_table_questions(fake_llm, guide):  # noqa: F811
    seen = []
    generated = generate_question_set([guide], per_doc=4, settings=fake_llm.settings(),
                                      use_cache=False, progress=seen.append)
    questions = generated.questions.questions
    assert len(questions) == 4 and generated.requests == 4
    assert {"text", "table"} == {q.kind for q in questions}
    for q in questions:
        for ref in q.references:
            assert guide.text[ref.start : ref.end] == ref.content and len(ref.content) >= 20
    assert validate(generated.questions, {"claims_handbook.md": guide}).problems == ()
    table = next(q for q in questions if q.kind == "table")
    assert any(t.start <= table.references[0].start < t.end for t in guide.tables)
    assert fake_llm.phases == ["question_generation"] * 4
    assert seen and seen[-1].fraction == 1.0


def test_unlocatable_short_and_repeated_answers_are_dropped_with_reasons(fake_llm, guide):  # noqa: F811
    answers = iter([
        {"question": "Where is the moon?", "excerpts": ["this sentence is nowhere in the guide"]},
        {"question": "What is short?", "excerpts": ["__SHORT__"]},
        "not json at all", "still not json",  # the phase asks once more, then gives up
        {"question": "Q1 about the first sentence?", "excerpts": ["__FIRST__"]},
        {"question": "Q1 about the first sentence ?", "excerpts": ["__FIRST__"]},
    ])

    def respond(request: FakeRequest) -> str:
        answer = next(answers, None)
        if answer is None or isinstance(answer, str):
            return answer or "{}"
        sentence = next(s for s in _passage(request).split(". ") if len(s) > 40)
        answer["excerpts"] = [{"__SHORT__": sentence[:12], "__FIRST__": sentence}.get(e, e)
                              for e in answer["excerpts"]]
        return json.dumps(answer)

    fake_llm.respond(respond)
    generated = generate_question_set([guide], per_doc=3, settings=fake_llm.settings(),
                                      use_cache=False)
    reasons = [d.reason for d in generated.dropped]
    assert [q.question for q in generated.questions.questions] == [
        "Q1 about the first sentence?"]
    assert any("is not in the document" in r for r in reasons)
    assert any("fewer than 20" in r for r in reasons)
    assert any("near-duplicate" in r for r in reasons)
    assert any("answer was unusable" in r for r in reasons)


def test_questions_that_name_nothing_are_dropped(fake_llm, guide):  # noqa: F811
    asked = iter(["What does the document say about this?",
                  "What does the text say about ---------------?", "What's in the table?",
                  "How long does a claimant have to report a loss?"])

    def respond(request: FakeRequest) -> str:
        sentence = next(s for s in _passage(request).split(". ") if len(s) > 40)
        return json.dumps({"question": next(asked), "excerpts": [sentence]})

    fake_llm.respond(respond)
    generated = generate_question_set([guide], per_doc=2, settings=fake_llm.settings(),
                                      use_cache=False)
    assert [q.question for q in generated.questions.questions] == [
        "How long does a claimant have to report a loss?"]
    assert [d.reason for d in generated.dropped] == [
        "the question names nothing to look for (no content word)"] * 3


def test_answers_are_cached_and_cancel_stops(fake_llm, guide):  # noqa: F811
    first = generate_question_set([guide], per_doc=2, settings=fake_llm.settings())
    again = generate_question_set([guide], per_doc=2, settings=fake_llm.settings())
    assert again.requests == 0 and again.cache_hits == 2
    assert to_csv(again.questions.questions) == to_csv(first.questions.questions)
    import threading

    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        generate_question_set([guide], per_doc=2, settings=fake_llm.settings(), cancel=stop)


def test_saved_sets_round_trip_as_the_cli_csv(fake_llm, guide):  # noqa: F811
    generated = generate_question_set([guide], per_doc=3, settings=fake_llm.settings())
    save_set("my set", generated.questions.questions)
    assert "my set" in saved_sets()
    parsed = parse_questions(saved_csv("my set"))
    assert [q.question for q in parsed.questions] == [
        q.question for q in generated.questions.questions]
    assert parsed.version == generated.questions.version
    delete_saved("my set")
    assert "my set" not in saved_sets()
    with pytest.raises(Exception, match="question set name"):
        save_set("../escape", generated.questions.questions)


def test_cli_generates_a_set_the_eval_command_reads(fake_llm, tmp_path, monkeypatch, capsys):  # noqa: F811
    doc = tmp_path / "docs" / "claims_handbook.md"
    doc.parent.mkdir()
    doc.write_text(HANDBOOK, encoding="utf-8")
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    out = tmp_path / "set.csv"
    assert main(["questions", "generate", str(doc), "--out", str(out), "--per-doc", "3"]) == 0
    assert "3 questions for 1 document written" in capsys.readouterr().out
    assert len(parse_questions(out.read_bytes()).questions) == 3
    code = main(["eval", "--questions", str(out), "--docs", str(doc.parent), "--preset",
                 "fixed 1000 chars", "--preset", "recursive 500/50", "--rank", "bm25",
                 "--budget", "300"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["budget"] == 300 and result["invalid_rows"] == []
    for config in result["results"]:
        low, high = config["overall"]["ci95"]["recall"]
        assert 0 <= low <= config["overall"]["recall"] <= high <= 1
    verdicts = [c["verdict"] for c in result["comparisons"] if c["metric"] == "recall"]
    assert verdicts and ("better than" in verdicts[0] or "No difference" in verdicts[0])


def test_cli_refuses_bad_input_with_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("LLM_BASE_URL", raising=False)
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nSome text that is long enough to ask about.", encoding="utf-8")
    assert main(["questions", "generate", str(doc), "--out", str(tmp_path / "o.csv"),
                 "--per-doc", "0"]) == 2
    assert main(["questions", "generate", str(doc), "--out", str(tmp_path / "o.csv")]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and "--per-doc" in errors[0] and "LLM" in errors[1]

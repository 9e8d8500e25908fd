"""Generating a question set with the LLM (fake server): located excerpts, drops with reasons,
table questions, the cache, the saved-set round trip and the CLI."""

import json

import pytest

from core.cli import main
from core.documents import convert
from core.evaluation.questions import QuestionSet, parse_questions, to_csv, validate
from core.operations.questions.generation import Dropped, GeneratedSet, generate_question_set
from core.operations.questions.sets import delete_saved, save_set, saved_csv, saved_sets
from core.progress import Cancelled
from fakes.llm import FakeRequest, Reply, auto_answer, fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK


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


def _words_of(passage: str) -> str:
    """Some words of the passage's first long sentence: an answer as a model gives it."""
    sentence = next(s for s in passage.replace("\n", " ").split(". ") if len(s) > 40)
    return " ".join(sentence.split()[-4:])


def test_answers_not_in_the_passage_unusable_and_repeated_are_dropped_with_reasons(fake_llm, guide):  # noqa: F811
    answers = iter([
        {"question": "Where is the moon?", "answer": "behind the clouds"},
        "not json at all", "still not json",  # the phase asks once more, then gives up
        {"question": "How long is the waiting period for water damage?", "answer": "__WORDS__"},
        {"question": "How long is the waiting period for water damage ?", "answer": "__WORDS__"},
    ])

    def respond(request: FakeRequest) -> str:
        answer = next(answers, None)
        if answer is None or isinstance(answer, str):
            return answer or "{}"
        if answer["answer"] == "__WORDS__":
            answer["answer"] = _words_of(_passage(request))
        return json.dumps(answer)

    fake_llm.respond(respond)
    generated = generate_question_set([guide], per_doc=3, settings=fake_llm.settings(),
                                      use_cache=False)
    reasons = [d.reason for d in generated.dropped]
    assert [q.question for q in generated.questions.questions] == [
        "How long is the waiting period for water damage?"]
    assert "the answer 'behind the clouds' is not in the passage" in reasons
    assert any("near-duplicate" in r for r in reasons)
    assert any("answer was unusable" in r for r in reasons)


def test_questions_that_name_nothing_are_dropped(fake_llm, guide):  # noqa: F811
    asked = iter(["What does the document say about this?",
                  "What does the text say about ---------------?", "What's in the table?"])

    def respond(request: FakeRequest) -> str:
        words = _words_of(_passage(request))
        question = next(asked, f"Which claims are {words}?")
        return json.dumps({"question": question, "answer": words})

    fake_llm.respond(respond)
    generated = generate_question_set([guide], per_doc=2, settings=fake_llm.settings(),
                                      use_cache=False)
    assert [q.question for q in generated.questions.questions][0] == (
        "Which claims are covered by this policy?")
    assert {d.reason for d in generated.dropped} == {
        "the question names nothing to look for (no content word)"}


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
    printed = capsys.readouterr()
    assert "3 questions for 1 document written" in printed.out
    assert "claims_handbook.md: 3 questions asked, 3 kept, 0 dropped." in printed.err
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


def _catalogue(repeated: str = "") -> str:
    parts = ["# Catalogue\n"]
    for n in range(1, 4):
        parts.append(f"## Part {n}\n")
        if repeated:
            parts.append(repeated + "\n")
        parts += [f"Item {n}-{k} costs {k} euros and ships within {k + 1} days from the "
                  f"warehouse in Town {n}." for k in range(1, 45)]
        parts.append("")
    return "\n".join(parts)


def test_a_failed_passage_is_replaced_by_another_and_the_counts_are_told(fake_llm):  # noqa: F811
    document = convert(_catalogue().encode(), "catalogue.md")
    passages = []

    def respond(request: FakeRequest) -> str:
        passage = _passage(request)
        passages.append(passage)
        if len(passages) == 1:  # the first answer quotes a heading: dropped
            return json.dumps({"question": "Which part lists the items?",
                               "excerpts": ["## Part 1"]})
        sentence = next(line for line in passage.splitlines() if line.startswith("Item "))
        return json.dumps({"question": f"How much does {sentence.split(' costs')[0]} cost?",
                           "excerpts": [sentence]})

    fake_llm.respond(respond)
    generated = generate_question_set([document], per_doc=1, settings=fake_llm.settings(),
                                      use_cache=False)
    assert len(generated.questions.questions) == 1
    assert generated.dropped[0].question == "Which part lists the items?"
    assert passages[1] != passages[0]  # another passage, not the one that failed
    assert generated.summary() == "2 questions asked, 1 kept, 1 dropped."


def test_an_excerpt_that_does_not_answer_is_dropped(fake_llm):  # noqa: F811
    document = convert(_catalogue().encode(), "catalogue.md")

    def respond(request: FakeRequest) -> str:
        sentence = next(line for line in _passage(request).splitlines()
                        if line.startswith("Item "))
        return json.dumps({"question": "What is the duration of coverage for vandalism?",
                           "answer": sentence})

    fake_llm.respond(respond)
    generated = generate_question_set([document], per_doc=1, settings=fake_llm.settings(),
                                      use_cache=False)
    assert not generated.questions.questions
    assert all("does not answer the question" in d.reason for d in generated.dropped)
    assert "'vandalism'" in generated.dropped[0].reason


def test_an_excerpt_found_many_times_is_flagged(fake_llm):  # noqa: F811
    rule = "The limits below apply per occurrence of a delivery unless stated otherwise."
    document = convert(_catalogue(rule).encode(), "catalogue.md")
    fake_llm.respond(lambda request: json.dumps({
        "question": "How do the delivery limits apply?", "answer": "per occurrence of a delivery"}))
    generated = generate_question_set([document], per_doc=1, settings=fake_llm.settings(),
                                      use_cache=False)
    assert len(generated.questions.questions) == 1
    assert "occurs 3 times" in generated.flagged[0].reason
    assert "1 kept with an excerpt that occurs several times" in generated.summary()


def test_each_question_is_told_as_it_is_decided_and_a_failed_server_keeps_them(fake_llm, guide):  # noqa: F811
    """The run shows its work: every question kept or dropped, with the reason, as it happens;
    a request that fails ends the run with one sentence and the questions kept so far."""
    answered = []

    def one_then_broken(request: FakeRequest) -> Reply | str:
        answered.append(request)
        if len(answered) == 1:
            return auto_answer(request.phase, request.prompt)
        return Reply(status=500, text="the server broke")

    fake_llm.script([json.dumps({"question": "What?", "answer": "x"})])
    fake_llm.respond(one_then_broken)
    heard = []
    generated = generate_question_set([guide], per_doc=4, use_cache=False, heard=heard.append,
                                      settings=fake_llm.settings(max_retries=0))
    assert [event.status for event in heard][:1] == ["dropped"]
    assert heard[0].reason and heard[0].line().startswith("dropped: claims_handbook.md: ")
    assert generated.failed.startswith("question generation failed: HTTP 500")
    assert "The run stopped early" in generated.summary()
    assert [e.status for e in heard] == ["dropped", "kept"]
    assert list(generated.questions.questions) == [heard[1].question]


def test_the_decisions_list_each_dropped_then_each_flagged_question_with_its_reason():
    generated = GeneratedSet(QuestionSet("set", ()),
                             dropped=[Dropped("a.md", "Why?", "no content word")],
                             flagged=[Dropped("b.md", "", "occurs 3 times")])
    assert generated.decisions() == ["dropped: a.md: Why? — no content word",
                                     "flagged: b.md: (no question) — occurs 3 times"]

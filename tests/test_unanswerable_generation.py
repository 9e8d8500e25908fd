"""Unanswerable questions in a generated set (fake LLM server): their share, their kind, the
lexical check that no passage of the set's documents answers them, and the CLI option."""

import json

import pytest

from core.cli import main
from core.documents import convert
from core.errors import ChunkLabError
from core.evaluation.questions import UNANSWERABLE, parse_questions, to_csv, validate
from core.evaluation.unanswerable import answering_passage
from core.operations.questions.generation import generate_question_set, unanswerable_counts
from fakes.llm import FakeRequest, auto_answer, fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK

OTHER = """# Boiler care

The boiler is descaled every six months with citric acid dissolved in warm water.
"""


@pytest.fixture(scope="module")
def guide():
    return convert(HANDBOOK.encode(), "claims_handbook.md")


@pytest.fixture(scope="module")
def other():
    return convert(OTHER.encode(), "boiler_care.md")


def test_a_share_of_the_set_is_unanswerable_and_marked_so(fake_llm, guide, other):  # noqa: F811
    generated = generate_question_set([guide, other], per_doc=5, unanswerable=0.2,
                                      settings=fake_llm.settings(), use_cache=False)
    questions = generated.questions.questions
    unanswerable = [q for q in questions if q.kind == UNANSWERABLE]
    assert len(unanswerable) == 2  # a fifth of ten
    assert all(not q.references and not q.answerable for q in unanswerable)
    assert fake_llm.phases.count("unanswerable_question") == 2
    assert "(2 of them unanswerable)" in generated.summary()
    documents = {"claims_handbook.md": guide, "boiler_care.md": other}
    again = parse_questions(to_csv(questions), "again")
    assert validate(again, documents).problems == ()
    assert [q.kind for q in again.questions] == [q.kind for q in questions]


def test_an_unanswerable_question_a_passage_answers_is_dropped_and_asked_again(
        fake_llm, guide, other):  # noqa: F811
    answered = iter(["How often is the boiler descaled with citric acid?"])

    def respond(request: FakeRequest) -> str:
        if request.phase == "unanswerable_question":
            question = next(answered, None)
            if question is not None:  # the other document answers it
                return json.dumps({"question": question})
        return auto_answer(request.phase, request.prompt)

    fake_llm.respond(respond)
    generated = generate_question_set([guide, other], per_doc=3, unanswerable=0.2,
                                      settings=fake_llm.settings(), use_cache=False)
    [dropped] = [d for d in generated.dropped if "unanswerable" in d.reason]
    assert dropped.question == "How often is the boiler descaled with citric acid?"
    assert dropped.reason.startswith("meant to be unanswerable, but boiler_care.md answers it")
    assert "descaled every six months" in dropped.reason  # the passage that answers
    [kept] = [q for q in generated.questions.questions if q.kind == UNANSWERABLE]
    assert "carbon footprint" in kept.question  # the question asked again


def test_the_lexical_check_looks_passage_by_passage(guide, other):
    assert answering_passage("How often is the boiler descaled?", [guide, other])
    assert answering_passage("What is the boiler's carbon footprint?", [guide, other]) is None
    # every word is in one document or the other, but never all in one passage
    assert answering_passage("Is the citric acid covered by the waiting period?",
                             [guide, other]) is None


def test_the_share_is_spread_over_the_documents():
    assert unanswerable_counts(5, 2, 0.2) == [1, 1]
    assert unanswerable_counts(2, 3, 0.2) == [1, 0, 0]  # one at least
    assert unanswerable_counts(4, 1, 0.0) == [0]
    assert unanswerable_counts(1, 1, 0.5) == [1]


def test_the_cli_writes_unanswerable_questions_and_refuses_a_bad_share(
        fake_llm, tmp_path, monkeypatch, capsys):  # noqa: F811
    doc = tmp_path / "claims_handbook.md"
    doc.write_text(HANDBOOK, encoding="utf-8")
    monkeypatch.setenv("LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake")
    out = tmp_path / "set.csv"
    assert main(["questions", "generate", str(doc), "--out", str(out), "--per-doc", "5",
                 "--unanswerable", "0.2"]) == 0
    kinds = [q.kind for q in parse_questions(out.read_bytes()).questions]
    assert kinds.count(UNANSWERABLE) == 1 and len(kinds) == 5
    assert main(["questions", "generate", str(doc), "--out", str(out),
                 "--unanswerable", "0.9"]) == 2
    assert "between 0 and 0.5, not 0.9" in capsys.readouterr().err
    with pytest.raises(ChunkLabError, match="unanswerable"):
        generate_question_set([], unanswerable=-0.1)

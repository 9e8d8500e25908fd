"""Question generation as a small model needs it: the excerpt is chosen from the passage (real
answers of Qwen2.5-Coder-1.5B replayed), earlier questions are not shown to be copied, and each
passage is asked once, the next far from those asked."""

import json

from core.documents import convert
from core.evaluation.excerpts import unanswered
from core.llm.phases.question_generation import QUESTION_GENERATION, parse_generated
from core.llm.trial import PhaseInput
from core.operations.questions.generation import generate_question_set
from fakes.llm import FakeRequest, fake_llm  # noqa: F401  (fixture)

# Raw answers the bundled model gave (the real run's LLM log): a rewritten excerpt, and an
# excerpt made up to fit a question copied from the list of questions already asked.
REWRITTEN = ('{\n  "question": "How many items are held by the Central branch?",\n  "excerpts": '
             '["The Central branch at Market Square 1 holds 62,000 items. "]\n}')
MADE_UP = ('{\n  "question": "What is the frequency of the extended structural survey for cranes '
           'older than 12 years?",\n  "excerpts": ["The extended structural survey is performed '
           'every 5 years for cranes older than 12 years."]\n}')
BRANCHES = """# Municipal Library Lending Policy

## Branches

The Central branch at Market Square 1 holds 62,000 items and opens Mon-Sat 9-20. Items borrowed
here may be returned at any branch.

Opening hours change in the summer holidays, when every branch closes one hour earlier and the
reading rooms stay shut on Mondays. Notices about such changes hang at each entrance a month
before, and the website lists them on its front page for as long as they apply.

## Reservations

Members may reserve up to ten items. A reserved item waits on the pick-up shelf for a week.
"""


def _passage(request: FakeRequest) -> str:
    return request.prompt.partition("<<<")[2].partition(">>>")[0]


def test_a_rewritten_excerpt_is_replaced_by_the_passage_sentence_that_holds_it(fake_llm):  # noqa: F811
    document = convert(BRANCHES.encode(), "lending_policy.md")
    fake_llm.respond(lambda request: REWRITTEN if "Central" in _passage(request) else "{}")
    generated = generate_question_set([document], per_doc=1, settings=fake_llm.settings(),
                                      use_cache=False)
    [question] = generated.questions.questions
    [reference] = question.references
    assert reference.content == (
        "The Central branch at Market Square 1 holds 62,000 items and opens Mon-Sat 9-20.")
    assert document.text[reference.start : reference.end] == reference.content


def test_a_short_answer_gets_its_sentence_and_a_made_up_one_is_dropped(fake_llm):  # noqa: F811
    document = convert(BRANCHES.encode(), "lending_policy.md")
    answers = iter([MADE_UP, json.dumps({"question": "How many items may a member reserve?",
                                         "answer": "up to ten items"})])
    fake_llm.respond(lambda request: next(answers, "{}"))
    generated = generate_question_set([document], per_doc=1, settings=fake_llm.settings(),
                                      use_cache=False)
    [dropped] = generated.dropped
    assert dropped.reason.startswith("the answer 'The extended structural survey is performed")
    assert dropped.reason.endswith("is not in the passage")
    [question] = generated.questions.questions
    assert question.references[0].content == "Members may reserve up to ten items."


def test_a_table_answer_gets_the_row_the_question_names(fake_llm):  # noqa: F811
    text = ("# Fleet\n\n| Crane | Maker | Safe working load (t) |\n|---|---|---|\n"
            "| STS-1 | Liebherr | 65 |\n| STS-2 | Liebherr | 65 |\n| RTG-4 | Konecranes | 40 |\n\n"
            "Every crane is checked daily by its operator before the first lift of the shift.\n")
    document = convert(text.encode(), "fleet.md")
    fake_llm.respond(lambda request: json.dumps(
        {"question": "What is the safe working load of STS-2?", "answer": "65"}))
    generated = generate_question_set([document], per_doc=1, settings=fake_llm.settings(),
                                      use_cache=False)
    [question] = generated.questions.questions
    assert question.references[0].content == "STS-2 | Liebherr | 65"


def _manual() -> str:
    parts = ["# Manual\n"]
    for n in range(1, 13):
        parts += [f"## Part {n}\n", f"Part {n} is inspected every {n + 1} weeks by the crew of "
                  f"shift {n}, who record the wear in logbook {n}.\n",
                  f"A part {n} found worn beyond {n * 5} percent is replaced within {n} days.\n"]
    return "\n".join(parts)


def test_the_model_never_sees_earlier_questions_and_no_passage_is_asked_twice(fake_llm):  # noqa: F811
    document = convert(_manual().encode(), "manual.md")
    same = json.dumps({"question": "How often is the part inspected?", "answer": "every"})
    fake_llm.respond(lambda request: same)
    generated = generate_question_set([document], per_doc=3, settings=fake_llm.settings(),
                                      use_cache=False)
    prompts = [call.prompt for call in fake_llm.calls]
    passages = [_passage(call) for call in fake_llm.calls]
    assert len(passages) > 3 and len(passages) == len(set(passages))  # none asked twice
    assert not any("How often is the part inspected?" in p for p in prompts)
    assert len(generated.questions.questions) == 1
    assert any("near-duplicate" in d.reason for d in generated.dropped)


def test_a_passage_does_not_end_with_the_next_sections_heading(fake_llm):  # noqa: F811
    document = convert(BRANCHES.encode(), "lending_policy.md")
    fake_llm.respond(lambda request: "{}")
    generate_question_set([document], per_doc=1, settings=fake_llm.settings(), use_cache=False)
    passages = [_passage(call).strip() for call in fake_llm.calls]
    assert "as long as they apply." in "".join(passages)
    assert not any(p.splitlines()[-1].startswith("#") for p in passages)


def test_after_a_repeat_the_next_passage_is_far_from_those_asked(fake_llm):  # noqa: F811
    document = convert(_manual().encode(), "manual.md")
    fake_llm.respond(lambda request: json.dumps(
        {"question": "How often is the part inspected?", "answer": "inspected every"}))
    generate_question_set([document], per_doc=2, settings=fake_llm.settings(), use_cache=False)
    starts = [document.text.index(_passage(call).strip()) for call in fake_llm.calls]
    gaps = [min(abs(s - t) for t in starts[:n]) for n, s in enumerate(starts) if n]
    assert gaps[0] > len(document.text) / 2  # the second passage: the other end
    assert gaps[1] > len(document.text) / 5  # the third: between them, not beside either


def test_the_documents_title_is_not_asked_for_in_its_excerpt():
    document = convert(BRANCHES.encode(), "lending_policy.md")
    start = document.text.index("Members may reserve")
    span = (start, start + len("Members may reserve up to ten items."))
    question = "What is the maximum number of items that can be reserved by a member at the " \
               "Municipal Library?"
    assert unanswered(question, [span], document) is None
    assert unanswered("How much does a vandalism claim pay?", [span], document)


def test_the_prompts_page_shows_the_chosen_excerpt_or_why_there_is_none():
    document = convert(BRANCHES.encode(), "lending_policy.md")
    source = PhaseInput(document=document, section=document.sections[-1])
    shown = QUESTION_GENERATION.view(parse_generated(
        '{"question": "How long does a reserved item wait?", "answer": "for a week"}'), source)
    assert shown.rows[0]["excerpt"] == "A reserved item waits on the pick-up shelf for a week."
    assert shown.warning is None and len(shown.spans) == 1
    wrong = QUESTION_GENERATION.view(parse_generated(
        '{"question": "How long does a reserved item wait?", "answer": "for two weeks"}'), source)
    assert wrong.spans == [] and wrong.warning == (
        "The answer 'for two weeks' is not in the passage: the question would be dropped.")

# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""Every answer request carries the user's answer model and temperature; the structured phases
keep the connection's temperature."""

from __future__ import annotations

from core.assembly.prompt import assemble_prompt
from core.llm.settings import AnswerSettings
from core.llm.trial import PhaseInput
from core.operations.assemble.run import ask
from core.operations.prompts import trials as prompt_tests
from core.prompts.library import PromptLibrary
from core.retrieval.pack import Pack
from fakes.llm import fake_llm  # noqa: F401  (fixture)

PACK = Pack(id="p1", score=0.9, order=0, doc_id="policy", heading_path=["Cover"],
            spans=[(0, 40)], text="Water damage from a burst pipe is covered.", chunk_ids=["c1"],
            hit_ids=["c1"])
ANSWER = AnswerSettings(model="answer-model", temperature=1.3)


def test_ask_sends_the_answer_model_and_temperature(fake_llm, tmp_path):
    fake_llm.script(["A burst pipe is covered [¹]."])
    assembled = assemble_prompt("Is a burst pipe covered?", [PACK], headroom_tokens=100000)
    run = ask(assembled, fake_llm.settings(), ANSWER, PromptLibrary(tmp_path))
    body = fake_llm.requests[-1]
    assert (body["model"], body["temperature"]) == ("answer-model", 1.3)
    assert fake_llm.phases[-1] == "rag_answer"
    assert run.check.ok and run.text == "A burst pipe is covered [¹]."
    assert (run.model, run.temperature) == ("answer-model", 1.3)


def test_empty_answer_model_means_the_connection_model(fake_llm, tmp_path):
    assembled = assemble_prompt("Q?", [PACK], headroom_tokens=100000)
    ask(assembled, fake_llm.settings(), AnswerSettings(), PromptLibrary(tmp_path))
    body = fake_llm.requests[-1]
    assert (body["model"], body["temperature"]) == ("fake", 0.7)


def test_the_prompts_page_rag_test_uses_the_answer_settings_too(fake_llm, tmp_path):
    library = PromptLibrary(tmp_path)
    source = PhaseInput(question="Why?", references=0)
    prompt_tests.run_template(fake_llm.settings(), library.default("rag_system"), source,
                              answer=ANSWER)
    body = fake_llm.requests[-1]
    assert (body["model"], body["temperature"]) == ("answer-model", 1.3)
    prompt_tests.run_template(fake_llm.settings(), library.default("topic_detection"),
                              PhaseInput(), answer=ANSWER)
    body = fake_llm.requests[-1]
    assert (body["model"], body["temperature"]) == ("fake", 0.3)  # a structured phase

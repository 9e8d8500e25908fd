import pytest

from core.llm.phase import PhaseContext
from core.llm.phases import TOPIC
from core.llm.phases.topic import parse_topic_answer
from core.llm.trial import Conversation
from core.prompts.library import PromptLibrary
from fakes.llm import fake_llm  # noqa: F401  (fixture)


@pytest.mark.parametrize(
    "raw",
    [
        '{"topic_status": "new_topic", "topic_summary": "Python debugging"}',
        'Sure! Here it is: {"topic_status": "new_topic", "topic_summary": "Python debugging"} ok',
        '```json\n{\n "topic_status": "new_topic",\n "topic_summary": " Python debugging "\n}\n```',
        '{"note": {"x": 1}} {"topic_status": "new_topic", "topic_summary": "Python debugging"}',
    ],
)
def test_json_extracted_from_surrounding_text(raw):
    result = parse_topic_answer(raw)
    assert (result.status, result.summary, result.warning) == (
        "new_topic", "Python debugging", None)


def test_extra_field_is_ignored_with_a_warning():
    raw = ('{"topic_status": "continuation", "new_topic": "deployment", '
           '"topic_summary": "deploying the model"}')
    result = parse_topic_answer(raw)
    assert result.status == "continuation" and result.summary == "deploying the model"
    assert "new_topic" in result.warning


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("The topic is cooking.", "no JSON object"),
        ('{topic_status: "continuation", topic_summary: "x"}', "could not be parsed"),
        ('{"topic_status": "maybe", "topic_summary": "x"}', "'maybe'"),
        ('{"topic_status": "new_topic"}', "topic_summary is missing"),
        ("   ", "empty"),
    ],
)
def test_malformed_answers_fall_back_with_visible_warning(raw, reason):
    result = parse_topic_answer(raw)
    assert result.status == "continuation"
    assert result.summary == raw.strip()
    assert reason in result.warning and "fallback" in result.warning


def test_topic_phase_fills_template_and_defaults_current_topic_to_none(fake_llm):  # noqa: F811
    template = PromptLibrary().default("topic_detection")
    fake_llm.script(['{"topic_status": "new_topic", "topic_summary": "Pasta recipe"}'])
    with fake_llm.client() as client:
        context = PhaseContext(client, {TOPIC.name: template})
        result = context.ask(TOPIC, Conversation("", "user: hi", "How do I cook pasta?"))
    (call,) = fake_llm.calls
    assert 'Current topic: "none"' in call.prompt
    assert 'Latest message: "How do I cook pasta?"' in call.prompt and "{{" not in call.prompt
    assert call.phase == "topic_detection"
    assert (result.status, result.summary) == ("new_topic", "Pasta recipe")
    assert context.usage.requests == 1

from dataclasses import dataclass

import pytest

from core.prompts.library import PromptLibrary
from core.prompts.topic import detect_topic, parse_topic_answer


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


@dataclass
class _Response:
    text: str


class _Client:
    def __init__(self, answer):
        self.answer, self.calls = answer, []

    def complete(self, prompt, *, phase, template_version):
        self.calls.append((prompt, phase, template_version))
        return _Response(self.answer)


def test_detect_topic_fills_template_and_defaults_current_topic_to_none():
    template = PromptLibrary().default("topic_detection")
    client = _Client('{"topic_status": "new_topic", "topic_summary": "Pasta recipe"}')
    result = detect_topic(client, template, "", "user: hi", "How do I cook pasta?")
    prompt, phase, version = client.calls[0]
    assert 'Current topic: "none"' in prompt and 'Latest message: "How do I cook pasta?"' in prompt
    assert "{{" not in prompt
    assert version == template.version and phase == "topic_detection"
    assert (result.status, result.summary, result.response.text) == (
        "new_topic", "Pasta recipe", client.answer)

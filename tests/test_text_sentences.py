"""The one sentence rule: exact spans, every script's end marks, and whether a line ends one."""

from __future__ import annotations

import pytest

from core.text.sentences import ends_sentence, sentence_spans, sentence_starts, sentences


def test_spans_are_exact_and_stripped():
    text = '  It costs 3.5 EUR. “Really?” she asked.\nNext line without a mark  '
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["It costs 3.5 EUR.", "“Really?”",
                                             "she asked.", "Next line without a mark"]
    assert sentence_spans(text, 2, 19) == [(2, 19)]


def test_every_script_ends_a_sentence_with_its_own_mark():
    japanese = "東京は晴れです。大阪は雨です！本当？"
    assert sentences(japanese) == ["東京は晴れです。", "大阪は雨です！", "本当？"]
    assert sentences("هل هذا صحيح؟ نعم") == ["هل هذا صحيح؟", "نعم"]
    assert sentences("یہ کتاب ہے۔ وہ قلم ہے") == ["یہ کتاب ہے۔", "وہ قلم ہے"]


def test_sentence_starts_with_and_without_line_breaks():
    text = "One. Two\nthree. Four"
    assert list(sentence_starts(text, 0, len(text))) == [5, 9, 16]
    assert list(sentence_starts(text, 0, len(text), line_breaks=False)) == [5, 16]


@pytest.mark.parametrize(("line", "ends", "clause"), [
    ("The policy pays.", True, True), ("He said “stop.”", True, True), ("(see above.)", True, True),
    ("晴れです。", True, True), ("Covered items:", False, True), ("Chapter 3", False, False),
    ("e.g. the roof", False, False),
])
def test_a_line_ends_a_sentence_or_a_clause(line, ends, clause):
    assert ends_sentence(line) is ends
    assert ends_sentence(line, clause=True) is clause

"""Each LLM-free grade of an answer, pinned on hand-made answers."""

from __future__ import annotations

import pytest

from core.assembly.citations import check_citations
from core.assembly.model import Citation
from core.evaluation.questions import Reference, parse_questions
from core.operations.answers.grades import abstains, content_words, grade_answer

CITATIONS = [
    Citation(marker="[¹]", pack_id="a", doc_id="doc", source="policy.md", heading_path=[],
             span_offsets=[(100, 200)]),
    Citation(marker="[²]", pack_id="b", doc_id="doc", source="policy.md", heading_path=[],
             span_offsets=[(500, 600)]),
]
REFERENCE = Reference("The dwelling limit is 300,000 EUR per occurrence.", 150, 199)
# the same fact stated again in the passage of [²], in other words
ALTERNATIVE = Reference("Homes: at most three hundred thousand euros each claim.", 520, 575)


def grade(answer: str, *, answerable: bool = True, alternatives: bool = False):
    accepted = [[REFERENCE], [ALTERNATIVE]] if alternatives else [[REFERENCE]]
    return grade_answer(answer, check_citations(answer, CITATIONS), CITATIONS,
                        doc_of=lambda reference: "doc",
                        accepted=accepted if answerable else [],
                        answerable=answerable, tokens=12, seconds=1.5)


def test_a_supported_citation_and_the_reference_words():
    grades = grade("The dwelling limit is 300,000 EUR [1].")
    assert grades.cited and grades.citations == 1
    assert grades.citations_valid == 1.0
    assert grades.citations_supported == 1.0  # [¹] covers 100-200, the reference 150-199
    assert grades.reference_coverage == pytest.approx(5 / 6)  # "occurrence" is missing
    assert not grades.abstained and grades.abstention_right
    assert (grades.tokens, grades.seconds, grades.repeats) == (12, 1.5, 0)


def test_a_citation_to_a_source_not_in_the_prompt_is_invalid():
    grades = grade("The limit is 300,000 EUR [1] and glass is excluded [3].")
    assert grades.citations == 2
    assert grades.citations_valid == 0.5
    assert grades.citations_supported == 0.5


def test_a_valid_citation_of_a_passage_away_from_the_reference_is_not_supported():
    grades = grade("The limit is 300,000 EUR [²].")
    assert grades.citations_valid == 1.0
    assert grades.citations_supported == 0.0


def test_an_answer_that_says_only_what_an_alternative_says_is_graded_against_it():
    answer = "Homes: at most three hundred thousand euros each claim [²]."
    assert grade(answer).reference_coverage == 0.0
    assert grade(answer).citations_supported == 0.0
    graded = grade(answer, alternatives=True)
    assert graded.reference_coverage == 1.0
    assert graded.citations_supported == 1.0  # [²] covers 500-600, the alternative 520-575


def test_coverage_is_the_best_of_the_references_and_the_alternatives():
    # 5 of the reference's 6 words, 3 of the alternative's 8 ("homes", "each", "claim")
    graded = grade("The dwelling limit is 300,000 EUR for homes, each claim [1].",
                   alternatives=True)
    assert graded.reference_coverage == pytest.approx(5 / 6)


def test_a_citation_of_either_accepted_place_is_supported():
    graded = grade("The limit is 300,000 EUR [1], three hundred thousand euros [2].",
                   alternatives=True)
    assert graded.citations_supported == 1.0


def test_an_uncited_answer_has_no_citation_shares():
    grades = grade("The dwelling limit is 300,000 EUR.")
    assert not grades.cited
    assert grades.citations_valid is None and grades.citations_supported is None


def test_a_right_abstention_on_an_unanswerable_question():
    grades = grade("The sources do not say whether pets are covered.", answerable=False)
    assert grades.abstained and grades.abstention_right
    assert grades.reference_coverage is None


def test_a_wrong_abstention_on_an_answerable_question_counts_against():
    grades = grade("I do not know; the passages do not mention a dwelling limit.")
    assert grades.abstained and not grades.abstention_right


def test_a_made_up_answer_to_an_unanswerable_question_is_wrong():
    grades = grade("Pets are covered up to 1,000 EUR [1].", answerable=False)
    assert not grades.abstained and not grades.abstention_right


def test_an_answer_that_cites_and_states_a_negative_fact_does_not_abstain():
    assert not abstains("Flood damage is covered [1]. Wear and tear is not covered in [2].",
                        cited=True)
    assert abstains("The context does not contain the answer.", cited=False)


def test_repeated_sentences_are_counted():
    sentence = "The dwelling limit is 300,000 EUR per occurrence [1]. "
    assert grade(sentence * 3).repeats == 1


def test_content_words_drop_stop_words_and_keep_numbers():
    assert content_words("The limit is 5 EUR of the") == {"limit", "5", "eur"}


def test_an_unanswerable_question_may_have_no_reference():
    parsed = parse_questions(
        'question,references,corpus_id,kind\n"Are pets covered?",[],policy.md,unanswerable\n'
        '"What limit?",[],policy.md,text\n')
    assert [q.kind for q in parsed.questions] == ["unanswerable"]
    assert not parsed.questions[0].answerable
    assert "unanswerable" in parsed.problems[0].reason

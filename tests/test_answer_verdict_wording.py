"""The answer comparison's verdict in a newcomer's words: how many more *questions* would
separate two prompts, and that a variant's [1] markers are graded as the shipped [¹] ones."""

from types import SimpleNamespace
from typing import Any

from core.assembly.citations import check_citations
from core.assembly.model import Citation
from core.evaluation.stats import compare_paired, questions_to_separate
from core.operations.answers.report import GradeComparison, verdict


def _arm(label: str, questions: int) -> Any:
    return SimpleNamespace(arm=SimpleNamespace(label=label), rows=[None] * questions)


def test_the_verdict_says_how_many_more_questions_would_separate_two_prompts():
    comparison = compare_paired("cited", "default", [1, 0, 1, 1, 0, 1],
                                "terse", [1, 1, 1, 1, 1, 1])
    more = questions_to_separate(comparison)
    assert more
    text = verdict(_arm("default", 6), _arm("terse", 6),
                   {"cited": GradeComparison(comparison, more)})
    assert f"; about {more} more questions would separate them on the closest grade." in text


def test_plain_and_superscript_markers_are_graded_alike():
    citations = [Citation.model_construct(marker="[¹]"), Citation.model_construct(marker="[²]")]
    plain = check_citations("Five days [1]. Two reports [2].", citations)
    superscript = check_citations("Five days [¹]. Two reports [²].", citations)
    assert plain.used == superscript.used == ["[¹]", "[²]"]
    assert not plain.unknown and not plain.unused

"""Answers held to the cited format: on a server that takes a grammar, every line of an answer
ends with the markers of the prompt's passages; a switch turns it off; graded by whether the
cited passages support their statements."""

from __future__ import annotations

import re

import pytest

from core.assembly.citations import check_citations
from core.assembly.model import Citation
from core.assembly.prompt import assemble_prompt
from core.llm.grammar import cited_lines
from core.llm.settings import AnswerSettings
from core.operations.answers.grades import statements, statements_supported
from core.operations.assemble.run import ask
from core.operations.llm_connection import check_connection
from core.retrieval.pack import Pack
from fakes.llm import fake_llm  # noqa: F401  (fixture)

# ruff: noqa: F811  (the fixture is redefined as an argument)
DEDUCTIBLE = "The deductible is 500 EUR for each claim under this policy."
GLASS = "Glass damage is not covered by the household policy."


def _pack(n: int, text: str) -> Pack:
    return Pack(id=f"p{n}", score=1.0, order=n, doc_id="policy", text=text,
                spans=[(n * 100, n * 100 + len(text))], chunk_ids=[f"c{n}"], hit_ids=[f"c{n}"])


def _assembled():
    return assemble_prompt("What does a claim cost?", [_pack(1, DEDUCTIBLE), _pack(2, GLASS)],
                           headroom_tokens=100_000, doc_names={"policy": "policy.pdf"})


def _grammar_line(markers: list[str]) -> re.Pattern[str]:
    """What the grammar's ``line`` rule accepts, as a regular expression."""
    cites = "|".join(re.escape(m) for m in markers)
    return re.compile(rf"[^\n\[]+(?: ?(?:{cites}))+\.?")


def test_the_grammar_asks_every_line_to_end_with_markers_of_the_passages():
    grammar = cited_lines(["[¹]", "[²]"], max_lines=3)
    assert grammar.splitlines()[0] == 'root ::= line ("\\n" line ("\\n" line)?)?'
    assert '"[\\u00b9]" | "[\\u00b2]"' in grammar and "[\\u00b3]" not in grammar
    line = _grammar_line(["[¹]", "[²]"])
    assert line.fullmatch("- The deductible is 500 EUR per claim [¹].")
    assert line.fullmatch("In short, glass is excluded [²][¹]")
    assert not line.fullmatch("- The deductible is 500 EUR per claim.")  # no marker
    assert not line.fullmatch("- It costs 500 EUR [³].")  # no such passage


@pytest.mark.parametrize("held", [True, False])
def test_a_server_with_a_grammar_gets_the_cited_format_unless_switched_off(fake_llm, held):
    fake_llm.structured = fake_llm.grammar = True
    check_connection(fake_llm.settings())  # the form is learnt: Test connection
    fake_llm.script(["- The deductible is 500 EUR per claim [¹]."])
    run = ask(_assembled(), fake_llm.settings(), AnswerSettings(held_format=held))
    body = fake_llm.requests[-1]
    assert ("grammar" in body) is held
    if held:
        assert body["grammar"] == cited_lines(["[¹]", "[²]"])
    assert run.check.used == ["[¹]"]


def test_a_server_without_a_grammar_answers_freely(fake_llm):
    fake_llm.script(["The deductible is 500 EUR."])
    ask(_assembled(), fake_llm.settings(), AnswerSettings(held_format=True))
    assert "grammar" not in fake_llm.requests[-1]


def test_statements_are_supported_when_their_passages_hold_their_words():
    citations = [Citation(marker=m, pack_id=f"p{n}", doc_id="policy", source="policy.pdf",
                          heading_path=[], span_offsets=[(0, 1)])
                 for n, m in enumerate(["[¹]", "[²]"], start=1)]
    answer = ("- The deductible is 500 EUR per claim [¹].\n"
              "- Glass damage is excluded [¹][²].\n"
              "In short, the moon is made of cheese [²].")
    check = check_citations(answer, citations)
    assert [numbers for _, numbers in statements(answer, check)] == [[1], [1, 2], [2]]
    assert statements_supported(answer, check, [DEDUCTIBLE, GLASS]) == pytest.approx(2 / 3)
    assert statements_supported("No citation here.", check_citations("No citation here.",
                                                                     citations), []) is None

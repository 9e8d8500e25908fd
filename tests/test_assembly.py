"""Prompt assembly: formats, ordering, budget, edge cases, determinism, citations."""

from __future__ import annotations

import random
import re

import pytest

from core.assembly.citations import check_citations, repeats
from core.assembly.prompt import (
    AssemblyError,
    assemble_prompt,
    builtin_system_prompt,
    context_block,
    marker,
)
from core.operations.assemble.run import library_system_prompt
from core.prompts.library import PromptLibrary
from core.retrieval.pack import Pack


def pack(n: int, score: float, text: str = "", path=("Chapter 3", "Section 3.2"), order=None,
         doc="corpus:abc123") -> Pack:
    return Pack(id=f"p{n}", score=score, order=n if order is None else order, doc_id=doc,
                heading_path=list(path), spans=[(n * 100, n * 100 + 50)],
                text=text or f"Paragraph {n} about machine learning.", chunk_ids=[f"c{n}"],
                hit_ids=[f"c{n}"])


PACKS = [pack(0, 0.9), pack(1, 0.8, path=()), pack(2, 0.7)]


def test_context_block_format():
    assert context_block("[¹]", PACKS[0]) == (
        "[¹]\nDoc: corpus:abc123\nPath: Chapter 3 > Section 3.2\n---\n"
        "Paragraph 0 about machine learning."
    )
    assert context_block("[²]", PACKS[1]) == (
        "[²]\nDoc: corpus:abc123\n---\nParagraph 1 about machine learning."
    )


def test_user_prompt_layout_and_reference_line():
    result = assemble_prompt("What is machine learning?", PACKS, headroom_tokens=100000)
    assert result.prompt.user == "\n\n".join([
        "What is machine learning?",
        "Context:",
        context_block("[¹]", PACKS[0]),
        context_block("[²]", PACKS[1]),
        context_block("[³]", PACKS[2]),
        "You may reference [¹]…[³].",
    ])
    one = assemble_prompt("Q?", PACKS[:1], headroom_tokens=100000)
    assert one.prompt.user.endswith("\n\nYou may reference [¹].")


def test_citations_map_markers_to_packs():
    result = assemble_prompt("Q?", PACKS, headroom_tokens=100000)
    assert [c.marker for c in result.citations] == ["[¹]", "[²]", "[³]"]
    first = result.citations[0]
    assert (first.pack_id, first.doc_id, first.heading_path, first.span_offsets) == (
        "p0", "corpus:abc123", ["Chapter 3", "Section 3.2"], [(0, 50)]
    )
    assert result.citations[1].heading_path == []


def test_superscript_markers_compose_for_many_digits():
    assert [marker(n) for n in (1, 9, 10, 23, 1024)] == ["[¹]", "[⁹]", "[¹⁰]", "[²³]", "[¹⁰²⁴]"]
    assert marker(12, "footnote") == "[^12]"
    packs = [pack(n, 1 - n / 100) for n in range(12)]
    result = assemble_prompt("Q?", packs, headroom_tokens=100000)
    assert result.citations[-1].marker == "[¹²]"
    assert result.prompt.user.endswith("You may reference [¹]…[¹²].")


def test_packs_are_ordered_by_score_then_order():
    packs = [pack(0, 0.5, order=3), pack(1, 0.9, order=2), pack(2, 0.5, order=1)]
    result = assemble_prompt("Q?", packs, headroom_tokens=100000)
    assert [c.pack_id for c in result.citations] == ["p1", "p2", "p0"]


def test_empty_packs_give_the_question_alone():
    result = assemble_prompt("What is this?", [])
    assert result.prompt.user == "What is this?"
    assert result.citations == [] and result.dropped_pack_ids == []
    assert result.prompt.system == builtin_system_prompt("qa", "numeric")


def test_non_ascii_is_preserved():
    packs = [pack(0, 1.0, text="机器学习是人工智能的一个分支。Ünïcödé ✓", path=("第一章", "Größe"))]
    result = assemble_prompt("What is 机器学习?", packs, headroom_tokens=100000)
    assert result.prompt.user.startswith("What is 机器学习?")
    assert "Path: 第一章 > Größe" in result.prompt.user
    assert "机器学习是人工智能的一个分支。Ünïcödé ✓" in result.prompt.user
    assert "机器学习" in result.model_dump_json()


def test_identical_input_gives_identical_bytes():
    packs = [pack(n, round(random.Random(n).random(), 3)) for n in range(8)]
    first = assemble_prompt("Q?", packs, headroom_tokens=120).model_dump_json().encode()
    again = assemble_prompt("Q?", packs, headroom_tokens=120).model_dump_json().encode()
    shuffled = packs[:]
    random.Random(7).shuffle(shuffled)
    third = assemble_prompt("Q?", shuffled, headroom_tokens=120).model_dump_json().encode()
    assert first == again == third


def test_smaller_headroom_drops_more_packs_and_100000_drops_none():
    packs = [pack(n, 1 - n / 10, text=f"Fact {n}: " + "detail " * 20) for n in range(8)]
    kept = [assemble_prompt("Q?", packs, headroom_tokens=h).budget.packs_kept
            for h in (0, 30, 60, 120, 240, 480, 100000)]
    assert kept == sorted(kept) and kept[0] == 0 and kept[-1] == 8
    assert len(set(kept)) > 3


def test_dropped_packs_are_always_the_lowest_scoring():
    packs = [pack(n, s) for n, s in enumerate([0.2, 0.9, 0.5, 0.7, 0.1, 0.4])]
    result = assemble_prompt("Q?", packs, headroom_tokens=70)
    kept = [c.pack_id for c in result.citations]
    assert 0 < len(kept) < len(packs)
    by_score = [p.id for p in sorted(packs, key=lambda p: -p.score)]
    assert kept == by_score[: len(kept)] and result.dropped_pack_ids == by_score[len(kept):]


def test_adding_stops_at_the_first_pack_that_does_not_fit():
    packs = [pack(0, 0.9), pack(1, 0.8, text="long " * 300), pack(2, 0.7)]
    result = assemble_prompt("Q?", packs, headroom_tokens=100)
    assert [c.pack_id for c in result.citations] == ["p0"]
    assert result.dropped_pack_ids == ["p1", "p2"]  # p2 would fit alone, but it ranks lower


def test_headroom_rule_arithmetic():
    result = assemble_prompt("Q?", PACKS, headroom_tokens=45)
    b = result.budget
    assert b.rule == "headroom" and b.left_for_answer is None
    assert b.base_tokens + b.kept_tokens == result.tokens_estimated
    assert b.kept_tokens <= 45 < b.kept_tokens + b.pack_tokens[b.packs_kept]
    assert sum(b.pack_tokens) == b.kept_tokens + b.dropped_tokens
    assert b.packs_kept + b.packs_dropped == 3


def test_explicit_context_size_keeps_headroom_for_the_answer():
    packs = [pack(n, 1 - n / 10, text="word " * 50) for n in range(6)]
    result = assemble_prompt("Q?", packs, headroom_tokens=100, context_tokens=400)
    b = result.budget
    assert b.rule == "context" and b.context_tokens == 400
    assert result.tokens_estimated + 100 <= 400
    assert b.left_for_answer == 400 - result.tokens_estimated >= 100
    assert result.tokens_estimated + b.pack_tokens[b.packs_kept] + 100 > 400
    assert 0 < b.packs_kept < 6 and not b.over_budget
    roomy = assemble_prompt("Q?", packs, headroom_tokens=100, context_tokens=128000)
    assert roomy.budget.packs_dropped == 0


def test_one_budget_the_bar_adds_up_to_the_context_and_the_answer_figure():
    packs = [pack(n, 1 - n / 10, text="word " * 50) for n in range(6)]
    b = assemble_prompt("Q?", packs, headroom_tokens=100, context_tokens=400).budget
    parts = dict(b.segments())
    assert parts["left for the answer"] == b.left_for_answer >= b.headroom_tokens
    assert parts["base prompt"] + parts["context kept"] + parts["left for the answer"] == 400
    assert b.headroom_mark() == 300 and "of which a headroom of 100" in b.explain()
    assert b.fits(b.base_tokens + b.kept_tokens)
    assert not b.fits(b.base_tokens + b.kept_tokens + b.pack_tokens[b.packs_kept])


@pytest.mark.parametrize("settings", [{"headroom_tokens": 10},
                                      {"headroom_tokens": 300, "context_tokens": 350}])
def test_a_prompt_that_keeps_no_pack_says_the_smallest_change_that_keeps_one(settings):
    packs = [pack(0, 0.9, text="detail " * 60), pack(1, 0.5)]
    empty = assemble_prompt("Q?", packs, **settings)
    told = empty.budget.to_keep_one()
    assert empty.citations == [] and told.startswith("No passage fits the budget")
    assert f"the best one needs {empty.budget.pack_tokens[0]:,} tokens" in told
    changes = {"context_tokens": r"Raise the context size to ([\d,]+)",
               "headroom_tokens": r"(?:Raise the passage budget|lower the headroom) to ([\d,]+)"}
    said = {name: int(m.group(1).replace(",", "")) for name, pattern in changes.items()
            if (m := re.search(pattern, told))}
    assert set(said) == set(settings)  # each setting given, with the value that keeps one
    for name, value in said.items():
        assert assemble_prompt("Q?", packs, **{**settings, name: value}).budget.packs_kept == 1
        # one token less room for the pack keeps none: the change is the smallest
        reserved = name == "headroom_tokens" and "context_tokens" in settings
        nearly = {**settings, name: value + 1 if reserved else value - 1}
        assert assemble_prompt("Q?", packs, **nearly).budget.packs_kept == 0, name
    assert assemble_prompt("Q?", packs, headroom_tokens=100000).budget.to_keep_one() == ""
    assert assemble_prompt("Q?", [], **settings).budget.to_keep_one() == ""  # nothing found


def test_context_size_below_base_plus_headroom_keeps_nothing_and_says_so():
    result = assemble_prompt("Q?", PACKS, headroom_tokens=300, context_tokens=100)
    assert result.budget.over_budget and result.citations == []
    assert result.prompt.user == "Q?"


def test_chars_estimator_counts_characters():
    result = assemble_prompt("Q?", PACKS, headroom_tokens=100000, estimator="chars")
    assert result.tokens_estimated == len(result.prompt.system) + len(result.prompt.user)
    tokens = assemble_prompt("Q?", PACKS, headroom_tokens=100000)
    assert tokens.tokens_estimated < result.tokens_estimated


def test_styles_and_footnotes():
    summary = assemble_prompt("Summarize", PACKS, style="summarize", headroom_tokens=100000)
    assert "summary" in summary.prompt.system and "[¹]" in summary.prompt.system
    notes = assemble_prompt("Q?", PACKS, citation_style="footnote", headroom_tokens=100000)
    assert [c.marker for c in notes.citations] == ["[^1]", "[^2]", "[^3]"]
    assert notes.prompt.user.startswith("Q?\n\nContext:\n\n[^1]\nDoc: corpus:abc123\n")
    assert notes.prompt.user.endswith("You may reference [^1]…[^3].")
    assert "[^1]" in notes.prompt.system and "footnotes" in notes.prompt.system
    assert notes.footnotes().splitlines() == [
        "[^1]: corpus:abc123 — Chapter 3 > Section 3.2",
        "[^2]: corpus:abc123",
        "[^3]: corpus:abc123 — Chapter 3 > Section 3.2",
    ]


def test_supplied_system_prompts():
    fixed = assemble_prompt("Q?", PACKS, system_prompt="Be brief.", headroom_tokens=100000)
    assert fixed.prompt.system == "Be brief."
    seen: list[list[str]] = []

    def build(references: list[str]) -> str:
        seen.append(references)
        return "Sources:\n" + "\n".join(references)

    result = assemble_prompt("Q?", PACKS, system_prompt=build, headroom_tokens=45)
    kept = result.budget.packs_kept
    assert result.prompt.system == "Sources:\n" + "\n".join(seen[kept])
    assert seen[3][:2] == ["[¹] Doc: corpus:abc123 · Path: Chapter 3 > Section 3.2",
                           "[²] Doc: corpus:abc123"]


def test_the_library_rag_prompt_is_used_when_chosen(tmp_path):
    build = library_system_prompt("ja", PromptLibrary(tmp_path))
    result = assemble_prompt("Q?", PACKS, system_prompt=build, headroom_tokens=100000)
    assert "[¹] Doc: corpus:abc123" in result.prompt.system
    assert result.prompt.system == build([f"{c.marker} Doc: corpus:abc123" + (
        " · Path: Chapter 3 > Section 3.2" if c.heading_path else "") for c in result.citations])


@pytest.mark.parametrize("kwargs", [
    {"style": "poem"}, {"citation_style": "roman"}, {"estimator": "words"},
    {"headroom_tokens": -1}, {"context_tokens": 0},
])
def test_bad_settings_raise_a_clear_error(kwargs):
    with pytest.raises(AssemblyError):
        assemble_prompt("Q?", PACKS, **kwargs)


# ----------------------------------------------------------------------------- check_citations

CITATIONS = assemble_prompt("Q?", PACKS, headroom_tokens=100000).citations


def test_check_citations_flags_unknown_and_unused_markers():
    check = check_citations("ML learns from data [¹]. Also see [⁷].", CITATIONS)
    assert check.used == ["[¹]"] and check.unknown == ["[⁷]"] and check.unused == ["[²]", "[³]"]
    assert not check.ok
    assert [(h.marker, h.known) for h in check.hits] == [("[¹]", True), ("[⁷]", False)]
    answer = "ML learns from data [¹]."
    assert answer[check.hits[0].start:check.hits[0].end] == "[¹]"


def test_check_citations_accepts_plain_digits_lists_and_ignores_links():
    check = check_citations("A [1, 2]. B [³][2]. See [1](http://x) and [12].", CITATIONS)
    assert check.used == ["[¹]", "[²]", "[³]"] and check.unknown == ["[¹²]"] and check.ok is False
    assert check_citations("All [1][2][3].", CITATIONS).ok


def test_check_citations_footnote_style_ignores_definitions():
    notes = assemble_prompt("Q?", PACKS, citation_style="footnote",
                            headroom_tokens=100000).citations
    check = check_citations("Fact [^1].\n\n[^1]: corpus\n[^2]: corpus", notes)
    assert check.used == ["[^1]"] and check.unused == ["[^2]", "[^3]"] and check.unknown == []


def test_check_citations_without_citations():
    assert check_citations("No markers here.", []).ok
    assert check_citations("Made up [¹].", []).unknown == ["[¹]"]


def test_repeated_sentences_are_found_whatever_their_markers():
    answer = ("The limit is not stated in the sources [¹]. The limit is not stated in the "
              "sources [²]. The limit is NOT stated in the sources. See above. See above.")
    assert [(r.sentence, r.times) for r in repeats(answer)] == [
        ("The limit is not stated in the sources [¹].", 3)]  # short sentences may come twice
    assert repeats("One answer. Another answer, said once.") == []

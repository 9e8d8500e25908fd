"""The phase answer parsers: every malformed answer names the phase, the line number and line."""

from __future__ import annotations

import pytest

from core.errors import ChunkLabError
from core.llm.errors import TSVError
from core.llm.phases.boundaries import parse_boundaries
from core.llm.phases.metadata import parse_summaries
from core.llm.phases.prefix import parse_prefix
from core.llm.phases.structure import parse_structure
from core.llm.phases.table_summary import parse_table_summary
from core.llm.replies.repairs import Repairs

STRUCTURE = "Intro\t1\t1\t4\tROOT\nWhy\t2\t2\t4\tIntro\nMethods\t1\t5\t9\tROOT"
BOUNDARIES = "1\tDOCUMENT_START\tStart\n4\tSEMANTIC_SHIFT\tNew topic\n9\tDOCUMENT_END\tEnd"


def test_structure_parses_rows():
    rows = parse_structure(STRUCTURE)
    assert [(r.title, r.level, r.start, r.end, r.parent) for r in rows] == [
        ("Intro", 1, 1, 4, None), ("Why", 2, 2, 4, "Intro"), ("Methods", 1, 5, 9, None)]


def test_header_line_and_blank_lines_are_skipped():
    text = "title\tlevel\tstart_anchor\tend_anchor\tparent_title\n\n" + STRUCTURE
    assert len(parse_structure(text)) == 3


@pytest.mark.parametrize(
    ("answer", "line_number", "reason"),
    [
        ("Intro\t1\t1\t4", 1, "expected 5 tab-separated columns"),
        ("Intro\t1\t1\t4\tROOT\nWhy\ttwo\t2\t4\tIntro", 2, "level must be an integer"),
        ("Intro\t1\tone\t4\tROOT", 1, "start_anchor must be an integer"),
        ("Intro\t4\t1\t4\tROOT", 1, "level must be 1, 2 or 3"),
        ("Intro\t1\t5\t4\tROOT", 1, "start_anchor must be <= end_anchor"),
        ("B\t1\t5\t9\tROOT\nA\t1\t1\t4\tROOT", 2, "ascending order"),
        ("Why\t2\t2\t4\tNowhere", 1, "neither ROOT nor an earlier title"),
        ("```tsv\nIntro\t1\t1\t4\tROOT\n```", 1, "markdown code block"),
        ("Here is the structure:\nIntro\t1\t1\t4\tROOT", 1, "preamble"),
        ("   \n", None, "empty answer"),
    ],
)
def test_malformed_structure(answer, line_number, reason):
    with pytest.raises(TSVError) as info:
        parse_structure(answer)
    err = info.value
    assert isinstance(err, ChunkLabError)
    assert err.label == "phase 1 (structure analysis)" and err.line_number == line_number
    assert reason in str(err) and str(err).startswith("phase 1 (structure analysis) failed")
    if line_number:
        assert err.line == answer.splitlines()[line_number - 1]
        assert f"line {line_number}:" in str(err) and repr(err.line[:200]) in str(err)


def test_offsets_structure_needs_start_before_end():
    rows = parse_structure("Intro\t1\t0\t120\tROOT", "offsets")
    assert rows[0].end == 120
    with pytest.raises(TSVError, match="start_char must be < end_char"):
        parse_structure("Intro\t1\t5\t5\tROOT", "offsets")


def test_boundaries_parse_and_rules():
    rows = parse_boundaries(BOUNDARIES)
    assert [(r.position, r.boundary_type) for r in rows] == [
        (1, "DOCUMENT_START"), (4, "SEMANTIC_SHIFT"), (9, "DOCUMENT_END")]
    rows = parse_boundaries("0\tDOCUMENT_START\ta\n100\tDOCUMENT_END\tb", "offsets")
    assert rows[1].position == 100


@pytest.mark.parametrize(
    ("answer", "line_number", "reason"),
    [
        ("1\tDOCUMENT_START\n9\tDOCUMENT_END\tEnd", 1, "expected 3 tab-separated columns"),
        ("1\tDOCUMENT_START\tStart\nfour\tSEMANTIC_SHIFT\tx\n9\tDOCUMENT_END\tEnd", 2,
         "anchor must be an integer"),
        ("1\tDOCUMENT_START\tStart\n6\tSEMANTIC_SHIFT\tx\n4\tSEMANTIC_SHIFT\ty\n9\tDOCUMENT_END\tz",
         3, "positions must be ascending"),
        ("4\tSEMANTIC_SHIFT\tx\n9\tDOCUMENT_END\tEnd", 1, "first boundary must be DOCUMENT_START"),
        ("1\tDOCUMENT_START\tStart\n4\tSEMANTIC_SHIFT\tx", 2, "last boundary must be DOCUMENT_END"),
        ("1\tDOCUMENT_START\tStart\n4\tTOPIC\tx\n9\tDOCUMENT_END\tEnd", 2, "boundary_type must be"),
        ("1\tDOCUMENT_START\tS\n4\tDOCUMENT_END\tx\n9\tDOCUMENT_END\tE", 2, "only be the last"),
    ],
)
def test_malformed_boundaries(answer, line_number, reason):
    with pytest.raises(TSVError) as info:
        parse_boundaries(answer)
    assert info.value.label == "phase 2 (boundary detection)"
    assert info.value.line_number == line_number and reason in str(info.value)


def test_summaries_one_line_per_chunk_asked_in_order():
    said = parse_summaries("4\tThe chunk explains why tests matter\n5\tThe chunk lists the tools",
                           (4, 5))
    assert said == {4: "Explains why tests matter", 5: "Lists the tools"}
    assert parse_summaries("4\tHow tests help", (4,)) == {4: "How tests help"}  # as it is
    with pytest.raises(TSVError, match="expected 2 tab-separated columns"):
        parse_summaries("4\tIntro\tWhy", (4,))
    with pytest.raises(TSVError, match="chunk must be an integer"):
        parse_summaries("four\tThe chunk explains", (4,))
    with pytest.raises(TSVError, match=r"no line for chunk\(s\) 5"):
        parse_summaries("4\tThe chunk explains why", (4, 5))
    with pytest.raises(TSVError, match="chunk 6 was not asked about"):
        parse_summaries("4\tThe chunk explains why\n6\tThe chunk lists", (4, 5))
    with pytest.raises(TSVError, match="not in the order"):
        parse_summaries("5\tThe chunk lists tools\n4\tThe chunk explains why", (4, 5))
    with pytest.raises(TSVError, match="chunks 4, 5 have the same summary"):
        parse_summaries("4\tThe chunk explains it\n5\tThe chunk explains it", (4, 5))


def test_tolerant_summaries_keep_what_can_be_told_apart():
    repairs = Repairs()
    said = parse_summaries("[[5]] The chunk lists tools\n4\tThe chunk explains why\n"
                           "6\tThe chunk gives more\n7\tThe chunk gives more", (4, 5, 6, 7),
                           repairs=repairs)
    assert said == {4: "Explains why", 5: "Lists tools"}  # 6 and 7 alike: asked again alone
    assert {r.kind for r in repairs.items} == {"value_fixed", "reordered", "repeat_dropped"}
    assert parse_summaries("4\tThe chunk explains why", (4, 5), repairs=Repairs()) == {
        4: "Explains why"}  # 5 left out: asked again alone
    with pytest.raises(TSVError, match="no line"):
        parse_summaries("9\tThe chunk explains why", (4, 5), repairs=Repairs())


def test_prefix_rules():
    good = "This chunk is from the Introduction, explaining why testing matters."
    assert parse_prefix(f"  {good}\n") == good
    with pytest.raises(TSVError, match="must start with 'This chunk is from'"):
        parse_prefix("The chunk is about testing and why it matters to teams.")
    with pytest.raises(TSVError, match="expected 20-300 characters, got 18"):
        parse_prefix("This chunk is from")
    with pytest.raises(TSVError, match="expected 20-300 characters"):
        parse_prefix("This chunk is from " + "x" * 300)
    with pytest.raises(TSVError, match="preamble"):
        parse_prefix("Here is the prefix: This chunk is from the intro section.")


def test_table_summary_rules():
    assert parse_table_summary("Coverage limits per policy tier.").startswith("Coverage")
    with pytest.raises(TSVError, match="copies the table"):
        parse_table_summary("| tier | limit | deductible |")
    with pytest.raises(TSVError, match="empty"):
        parse_table_summary("")



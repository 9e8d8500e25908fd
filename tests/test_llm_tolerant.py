# ruff: noqa: F811  (pytest fixtures imported from fakes.llm* are redefined as arguments)
"""Parsing modes against a server that slips like a small model; validation that keeps runaway
or copied answers out of the results and the cache."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from core.documents import convert
from core.llm.client import AnswerCutError
from core.llm.errors import TSVError
from core.llm.phases import boundaries
from core.llm.phases.boundaries import FALLBACK_WHY, parse_boundaries
from core.llm.phases.prefix import parse_prefix
from core.llm.phases.structure import parse_structure
from core.llm.replies.copies import without_copies
from core.llm.replies.repairs import Repairs
from core.operations.strategies import RunOptions, run_llm
from core.prompts.library import PromptLibrary
from fakes.llm import Reply, auto_answer, fake_llm  # noqa: F401  (fixture)
from tests.docfactory import SMALL_GUIDE
from tests.fakellm_slips import slipped_answer, slipping_llm  # noqa: F401  (fixture)

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"
SAMPLE_FILES = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.suffix != ".py")
STRUCTURE = "Intro\t1\t1\t4\tROOT\nWhy\t2\t2\t4\tIntro\nMethods\t1\t5\t9\tROOT"


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.0)  # the test documents are small


@pytest.fixture(scope="module")
def guide():
    return convert(SMALL_GUIDE, "guide.md")


def run(fake, documents, **config):
    return run_llm(documents, config, RunOptions(llm=fake.settings()))


# --- each repair, and strict still refusing it ----------------------------------------------
@pytest.mark.parametrize(("answer", "kind"), [
    ("```tsv\n" + STRUCTURE + "\n```", "code_fence"),
    ("Here is the structure:\n" + STRUCTURE, "preamble"),
    ("Intro\t1\t1\t4\tROOT\nWhy\t2\t2\t4\tINTRO \nMethods\t1\t5\t9\tROOT", "title_matched"),
    ("Intro\t1\t1\t4\tROOT\nMethods\t1\t5\t9\tROOT\nWhy\t2\t2\t4\tIntro", "reordered"),
])
def test_structure_repairs_are_recorded_and_strict_refuses_them(answer, kind):
    repairs = Repairs()
    rows = parse_structure(answer, repairs=repairs)
    assert [(r.title, r.start, r.parent) for r in rows] == [
        ("Intro", 1, None), ("Why", 2, "Intro"), ("Methods", 5, None)]
    assert [r.kind for r in repairs.items] == [kind]
    assert repairs.items[0].line in answer.splitlines()
    with pytest.raises(TSVError):
        parse_structure(answer)


def test_titles_take_the_documents_spelling():
    repairs = Repairs()
    rows = parse_structure("field   GUIDE\t1\t1\t4\tROOT", repairs=repairs,
                           headings={"field guide": "Field Guide"})
    assert rows[0].title == "Field Guide"
    assert repairs.items[0].kind == "title_matched" and "'field   GUIDE'" in repairs.items[0].detail


def test_header_row_is_dropped_and_recorded():
    repairs = Repairs()
    answer = "Title\tLevel\tStart_Anchor\tEnd_Anchor\tParent_Title\n" + STRUCTURE
    assert len(parse_structure(answer, repairs=repairs)) == 3
    assert [(r.kind, r.line_number) for r in repairs.items] == [("header_row", 1)]


def test_unordered_document_end_is_sorted():
    answer = "1\tDOCUMENT_START\tS\n9\tDOCUMENT_END\tE\n4\tSEMANTIC_SHIFT\tT"
    repairs = Repairs()
    rows = parse_boundaries(answer, repairs=repairs)
    assert [(r.position, r.boundary_type) for r in rows] == [
        (1, "DOCUMENT_START"), (4, "SEMANTIC_SHIFT"), (9, "DOCUMENT_END")]
    assert [(r.kind, r.line) for r in repairs.items] == [("reordered", "9\tDOCUMENT_END\tE")]
    with pytest.raises(TSVError, match="DOCUMENT_END may only be the last boundary"):
        parse_boundaries(answer)


def test_only_an_end_past_the_text_is_clamped(fake_llm, guide):
    answers = iter(["Guide\t1\t1\t99\tROOT", "Nowhere\t1\t99\t99\tROOT",
                    "Guide\t1\t99\t99\tROOT"])
    fake_llm.respond(lambda r: next(answers) if r.phase == "structure_analysis"
                     else auto_answer(r.phase, r.prompt))
    clamped = run(fake_llm, [guide], parsing="tolerant", cache=False)[0]
    assert clamped.error is None and clamped.structure.sections[0].end == len(guide.text)
    assert [r.kind for r in clamped.repairs] == ["anchor_clamped"]
    assert clamped.repairs[0].detail.startswith("end anchor 99 became ")
    outside = run(fake_llm, [guide], parsing="tolerant", cache=False)[0]
    assert outside.structure.fallback  # a section starting outside the text is not repaired
    assert "start_anchor 99 is not an anchor" in outside.repairs[0].detail
    named = run(fake_llm, [guide], parsing="tolerant", cache=False)[0]  # … unless its title
    assert not named.structure.fallback  # names a heading of the text: it starts there
    assert [r.kind for r in named.repairs] == ["anchor_from_title"]


def test_a_row_with_a_bad_value_is_dropped_and_recorded():
    repairs = Repairs()
    rows = parse_structure("```\nIntro\t1\t1\t4\tROOT\nWhy\ttwo\t2\t4\tIntro\n```",
                           repairs=repairs)
    assert [r.title for r in rows] == ["Intro"]
    dropped = next(r for r in repairs.items if r.kind == "rows_dropped")
    assert dropped.line == "Why\ttwo\t2\t4\tIntro" and "level must be an integer" in dropped.detail


def test_what_cannot_be_repaired_still_fails_with_its_line():
    with pytest.raises(TSVError) as info:
        parse_structure("```\nWhy\ttwo\t2\t4\tIntro\nHow\t1\tthree\t4\tROOT\n```",
                        repairs=Repairs())
    assert info.value.line_number == 2 and info.value.line == "Why\ttwo\t2\t4\tIntro"
    assert "level must be an integer" in str(info.value)


# --- validation: runaway answers and copies of the example ----------------------------------
def test_duplicate_sections_are_rejected_strictly_and_dropped_tolerantly():
    answer = "Intro\t1\t1\t4\tROOT\n" * 3
    with pytest.raises(TSVError, match="listed twice") as info:
        parse_structure(answer)
    assert info.value.line_number == 2
    repairs = Repairs()
    assert len(parse_structure(answer, repairs=repairs)) == 1
    assert [(r.kind, r.line_number) for r in repairs.items] == [("repeat_dropped", 2),
                                                                 ("repeat_dropped", 3)]


def test_answers_far_longer_than_the_text_are_rejected():
    lines = "\n".join(f"S{i}\t1\t{i}\t{i}\tROOT" for i in range(1, 2001))
    with pytest.raises(TSVError, match="more than 30 lines"):
        parse_structure(lines, max_rows=30)
    with pytest.raises(TSVError, match="characters, more than 5,000"):
        parse_structure(lines, max_chars=5000)


def test_copies_of_the_templates_example_are_rejected():
    library = PromptLibrary()
    prefix = library.default("contextual_prefix")
    example = prefix.text.split("EXAMPLE OUTPUT")[1].split(":", 1)[1].strip().splitlines()[0]
    assert parse_prefix(example)  # a valid sentence on its own …
    with pytest.raises(TSVError, match="copies the template's example"):
        without_copies("phase 3b (contextual prefix)", prefix.text, example, "")  # … but a copy
    boundaries = library.default("boundary_detection")
    copied = boundaries.text.split("EXAMPLE OUTPUT")[1].split(":\n", 1)[1].split("\n\n")[0]
    with pytest.raises(TSVError, match="copies the template's example"):
        without_copies("phase 2 (boundary detection)", boundaries.text, copied, "")
    fine = "1\tDOCUMENT_START\tS\n3\tDOCUMENT_END\tE"
    assert without_copies("phase 2", boundaries.text, fine, "") == fine


def test_a_copied_prefix_leaves_the_chunk_without_one(fake_llm, guide):
    prefix = PromptLibrary().default("contextual_prefix").text
    example = prefix.split("EXAMPLE OUTPUT")[1].split(":", 1)[1].strip().splitlines()[0]
    fake_llm.respond(lambda r: example if r.phase == "contextual_prefix"
                     else auto_answer(r.phase, r.prompt))
    result = run(fake_llm, [guide], context_prefix="asked")[0]
    assert result.error is None and result.chunks
    assert all(c.context_prefix is None for c in result.chunks)
    assert all("copies the template's example" in c.llm.missing[0].error for c in result.chunks)


def _poisoned(prompt: str) -> str:
    return auto_answer("structure_analysis", prompt).splitlines()[0] + "\n"


def test_a_repetitive_answer_is_rejected_and_never_cached(fake_llm, guide):
    fake_llm.respond(lambda r: _poisoned(r.prompt) * 5000 if r.phase == "structure_analysis"
                     else auto_answer(r.phase, r.prompt))
    failed = run(fake_llm, [guide])[0]
    assert isinstance(failed.error, TSVError)
    assert "phase 1 (structure analysis)" in str(failed.error)
    fake_llm.reset()
    healthy = run(fake_llm, [guide])[0]
    assert healthy.error is None and "structure_analysis" in fake_llm.phases
    assert max(len(c.heading_path) for c in healthy.chunks) <= 3


def test_a_cached_answer_that_fails_validation_is_discarded(fake_llm, guide, tmp_path):
    run(fake_llm, [guide])
    database = tmp_path / "llm_cache" / "answers.sqlite3"
    with sqlite3.connect(database) as db:  # an answer cached before duplicates were refused
        prompt = next(c.prompt for c in fake_llm.calls if c.phase == "structure_analysis")
        db.execute("UPDATE answers SET text = ? WHERE phase = 'structure_analysis'",
                   (_poisoned(prompt) * 200,))
    fake_llm.reset()
    result = run(fake_llm, [guide])[0]
    assert result.error is None
    assert fake_llm.phases == ["structure_analysis"]  # asked again; the rest came from the cache
    assert max(len(c.heading_path) for c in result.chunks) <= 3
    assert len(result.structure.sections) == 3
    with sqlite3.connect(database) as db:
        (text,) = db.execute(
            "SELECT text FROM answers WHERE phase = 'structure_analysis'").fetchone()
    assert text.count("\n") < 5  # the healthy answer replaced the poisoned one


# --- a whole run against the slipping server ------------------------------------------------
def test_strict_fails_fast_naming_phase_line_and_text(slipping_llm, guide):
    result = run(slipping_llm, [guide])[0]
    err = result.error
    assert isinstance(err, TSVError) and not result.chunks
    assert slipping_llm.phases == ["structure_analysis"]  # no retry, nothing after it
    answer = slipped_answer("structure_analysis", slipping_llm.calls[0].prompt)
    assert err.line_number is not None and err.line == answer.splitlines()[err.line_number - 1]
    message = str(err)
    assert message.startswith("phase 1 (structure analysis) failed: line ")
    assert repr(err.line[:200]) in message


def test_tolerant_completes_every_sample_with_warnings(slipping_llm):
    documents = [convert(path.read_bytes(), path.name) for path in SAMPLE_FILES]
    seen = []
    runs = run_llm(documents, {"parsing": "tolerant"},
                   RunOptions(llm=slipping_llm.settings(concurrency=4), progress=seen.append))
    kinds: Counter[str] = Counter()
    for result in runs:
        name = result.document.source_name
        assert result.error is None, f"{name}: {result.error}"
        assert result.chunks, name
        for found in result.chunks:
            assert found.text == result.document.text[found.start : found.end]
        # every structure and boundary answer slips; a table alone (no such request) may not
        always_slips = any(call.phase in ("structure_analysis", "boundary_detection")
                           and name in call.prompt for call in slipping_llm.calls)
        assert result.warnings > 0 or not always_slips, name
        kinds.update(r.kind for r in result.repairs)
        assert all(r.line for r in result.repairs if r.kind != "structure_fallback")
    assert {"code_fence", "preamble", "header_row", "anchor_clamped", "title_matched",
            "reordered"} <= set(kinds)
    missing = [m for result in runs for c in result.chunks for m in c.llm.missing]
    assert all("copies the template's example" in m.error or "failed" in m.error
               for m in missing)
    total = sum(result.warnings for result in runs)
    assert seen[-1].message == f"done with {total} warning(s)"


def test_tolerant_falls_back_to_the_documents_sections(fake_llm, guide):
    fake_llm.respond(lambda r: "I cannot do that." if r.phase == "structure_analysis"
                     else auto_answer(r.phase, r.prompt))
    result = run(fake_llm, [guide], parsing="tolerant")[0]
    assert result.error is None and result.structure.fallback
    assert [s.title for s in result.structure.sections] == [s.title for s in guide.sections]
    assert [r.kind for r in result.repairs] == ["structure_fallback"]
    assert "boundary_detection" in fake_llm.phases and result.chunks
    strict = run(fake_llm, [guide])[0]
    assert isinstance(strict.error, TSVError)


def test_tolerant_falls_back_when_the_structure_answer_is_cut(fake_llm, guide):
    fake_llm.respond(lambda r: Reply.cut("Guide\t1\t1", 12) if r.phase == "structure_analysis"
                     else auto_answer(r.phase, r.prompt))
    result = run(fake_llm, [guide], parsing="tolerant", cache=False)[0]
    assert result.error is None and result.structure.fallback
    assert [r.kind for r in result.repairs] == ["structure_fallback"]
    assert "answer cut at" in result.repairs[0].detail
    strict = run(fake_llm, [guide], cache=False)[0]
    assert isinstance(strict.error, AnswerCutError)


# --- what real models write instead of TSV ---------------------------------------------------
BOUNDARY_ROWS = [(1, "DOCUMENT_START"), (4, "SEMANTIC_SHIFT"), (9, "DOCUMENT_END")]


@pytest.mark.parametrize(("answer", "kind"), [
    ("anchor\ttype\tjustification\n1\tDOCUMENT_START\tS\n4\tSEMANTIC_SHIFT\tT\n"
     "9\tDOCUMENT_END\tE", "header_row"),
    ("Position | Type | Why\n1 | DOCUMENT_START | S\n4 | SEMANTIC_SHIFT | T\n"
     "9 | DOCUMENT_END | E", "markdown_table"),
    ("| anchor | boundary_type | justification |\n|---|---|---|\n| 1 | DOCUMENT_START | S |\n"
     "| 4 | SEMANTIC_SHIFT | T |\n| 9 | DOCUMENT_END | E |", "markdown_table"),
    ("1. 1\tDOCUMENT_START\tS\n2. 4\tSEMANTIC_SHIFT\tT\n3. 9\tDOCUMENT_END\tE", "list_numbers"),
    ("1.\t1\tDOCUMENT_START\tS\n2.\t4\tSEMANTIC_SHIFT\tT\n3.\t9\tDOCUMENT_END\tE",
     "list_numbers"),
    ("1   DOCUMENT_START   S\n4   SEMANTIC_SHIFT   T\n9   DOCUMENT_END   E", "columns_fixed"),
    ("1\tDOCUMENT_START\tS\n4\tSEMANTIC_SHIFT\tThe topic\tchanges\n9\tDOCUMENT_END\tE",
     "columns_fixed"),
    ("1\tDOCUMENT_START\tS\n4\tSEMANTIC_SHIFT\tT\n9\tDOCUMENT_END\tE\n\nThese boundaries keep "
     "each topic in one chunk.", "trailing_text"),
    ('[{"anchor": 1, "boundary_type": "DOCUMENT_START", "justification": "S"}, '
     '{"position": 4, "type": "SEMANTIC_SHIFT", "reason": "T"}, '
     '{"anchor": 9, "boundary_type": "DOCUMENT_END", "justification": "E"}]', "json_rows"),
    ('```json\n{"boundaries": [[1, "DOCUMENT_START", "S"], [4, "SEMANTIC_SHIFT", "T"], '
     '[9, "DOCUMENT_END", "E"]]}\n```', "json_rows"),
    ("1\tDOCUMENT_START\tS\n4\tSEMANTIC_SHIFT\tT\n4\tSEMANTIC_SHIFT\tT again\n"
     "9\tDOCUMENT_END\tE", "repeat_dropped"),
    ("1\tDOCUMENT_START\tS\n4\ttopic change\tT\n9\tDOCUMENT_END\tE", "value_fixed"),
])
def test_boundary_answers_in_other_shapes_are_read_and_recorded(answer, kind):
    repairs = Repairs()
    rows = parse_boundaries(answer, repairs=repairs)
    assert [(r.position, r.boundary_type) for r in rows] == BOUNDARY_ROWS
    assert kind in {r.kind for r in repairs.items}
    with pytest.raises(TSVError):
        parse_boundaries(answer)


def test_structure_rows_in_a_markdown_table_with_their_own_header():
    answer = ("| Title | Level | Start | End | Parent |\n|---|---|---|---|---|\n"
              "| Intro | 1 | 1 | 4 | ROOT |\n| Why | 2 | 2 | 4 | Intro |\n"
              "| Methods | 1 | 5 | 9 | ROOT |")
    repairs = Repairs()
    rows = parse_structure(answer, repairs=repairs)
    assert [(r.title, r.start, r.parent) for r in rows] == [
        ("Intro", 1, None), ("Why", 2, "Intro"), ("Methods", 5, None)]
    assert {"header_row", "markdown_table"} <= {r.kind for r in repairs.items}


def test_structure_rows_that_cannot_be_sections_are_dropped():
    answer = "Intro\t1\t1\t4\tROOT\n2\t2\t9\t30\tROOT\nOdd\t10\t16\t30\tROOT"
    repairs = Repairs()
    assert [r.title for r in parse_structure(answer, repairs=repairs)] == ["Intro"]
    assert [r.kind for r in repairs.items] == ["rows_dropped", "rows_dropped"]


def _section_run(fake_llm, guide, answer):
    fake_llm.respond(lambda r: answer(r) if r.phase == "boundary_detection"
                     else auto_answer(r.phase, r.prompt))
    return run(fake_llm, [guide], parsing="tolerant", cache=False, summaries=False)[0]


def test_more_rows_than_the_section_holds_keep_the_plausible_ones(fake_llm, guide):
    def answer(request):
        right = auto_answer("boundary_detection", request.prompt).splitlines()
        return "\n".join([right[0], "400\tSEMANTIC_SHIFT\tElsewhere", "401\tSEMANTIC_SHIFT\tX",
                          *right[1:]])

    result = _section_run(fake_llm, guide, answer)
    assert result.error is None and result.chunks
    dropped = [r for r in result.repairs if r.kind == "rows_dropped"]
    assert dropped and "400, 401 outside this text" in dropped[0].detail


def test_an_unrepairable_boundary_answer_leaves_its_section_to_the_recursive_splitter(
        fake_llm, guide):
    result = _section_run(fake_llm, guide, lambda r: "I would split it after the table.")
    assert result.error is None and result.chunks
    assert all(c.text == guide.text[c.start : c.end] for c in result.chunks)
    fallbacks = [r for r in result.repairs if r.kind == "boundary_fallback"]
    split = [b for b in result.boundaries if b.boundaries[0].justification == FALLBACK_WHY]
    assert fallbacks and len(fallbacks) == len(split)  # one warning per section left over
    # sections are asked concurrently: their warnings come in the order the answers do
    titles = sorted(f"“{b.title}”" for b in split)
    assert sorted(r.detail.split(":")[0] for r in fallbacks) == titles
    strict = run(fake_llm, [guide], cache=False, summaries=False)[0]
    assert isinstance(strict.error, TSVError)


def test_copied_example_lines_are_dropped_and_a_pure_copy_refused(fake_llm, guide):
    template = PromptLibrary().default("boundary_detection").text
    example = template.split("EXAMPLE OUTPUT")[1].split(":\n", 1)[1].split("\n\n")[0]

    def answer(request):
        right = auto_answer("boundary_detection", request.prompt).splitlines()
        return "\n".join([right[0], example.splitlines()[1], *right[1:]])

    result = _section_run(fake_llm, guide, answer)
    assert result.error is None
    assert "example_copy" in {r.kind for r in result.repairs}
    with pytest.raises(TSVError, match="copies the template's example"):
        without_copies("phase 2", template, example, "", Repairs())


# --- what keeps a small model from writing to its token limit --------------------------------
def test_structure_and_boundary_requests_stop_where_an_echo_of_the_text_would_begin(
        fake_llm, guide):
    run(fake_llm, [guide], parsing="tolerant", cache=False)
    stops = {call.phase: call.body.get("stop") for call in fake_llm.calls}
    assert "\n[" in stops["structure_analysis"] and "\n[" in stops["boundary_detection"]
    assert all(len(stop) <= 4 for stop in stops.values() if stop)  # what OpenAI's API allows
    assert stops["chunk_metadata"] is None  # a phase whose answer may hold any text sends none


def test_a_long_document_is_read_in_windows_a_small_model_answers(guide):
    from core.llm.phases.structure import MAX_WINDOW_TOKENS, STRUCTURE
    from core.tokens import count_tokens
    long = convert("\n\n".join(
        f"## Part {n}\n\n" + f"Paragraph {n} explains how the queue keeps order events. " * 12
        for n in range(60)).encode(), "long.md")
    windows = STRUCTURE.windows(long, "anchors", budget=6000)
    assert len(windows) >= 3
    assert all(count_tokens(w.text) <= MAX_WINDOW_TOKENS for w in windows)
    assert len(STRUCTURE.windows(guide, "anchors", budget=6000)) == 1


def test_an_answer_cut_at_its_limit_is_kept_in_the_cache_for_that_limit(fake_llm, guide):
    def respond(request):
        answer = auto_answer(request.phase, request.prompt)
        if request.phase == "structure_analysis":
            return Reply.cut(answer + "\nUnfinished sect", 40)
        return answer
    fake_llm.respond(respond)
    first = run(fake_llm, [guide], parsing="tolerant")[0]
    assert first.error is None and not first.structure.fallback
    assert "answer_cut" in [r.kind for r in first.repairs]
    asked = fake_llm.phases.count("structure_analysis")
    again = run(fake_llm, [guide], parsing="tolerant")[0]
    assert fake_llm.phases.count("structure_analysis") == asked  # served from the cache …
    assert [s.title for s in again.structure.sections] == [
        s.title for s in first.structure.sections]
    assert "answer_cut" in [r.kind for r in again.repairs]  # … and still said to be cut
    other = run_llm([guide], {"parsing": "tolerant"},
                    RunOptions(llm=fake_llm.settings(max_tokens=100)))[0]
    assert other.error is None
    assert fake_llm.phases.count("structure_analysis") > asked  # another limit asks again


def test_sections_named_by_their_headings_start_at_those_headings_whatever_the_numbers():
    """A real answer: the titles are the deck's headings, the numbers a count of the lines."""
    from dataclasses import replace

    from core.llm.phases.structure import STRUCTURE
    deck = convert((SAMPLES / "onboarding_deck.pptx").read_bytes(), "onboarding_deck.pptx")
    answer = ("Welcome to Tidewater on-call\t1\t1\t2\tROOT\n"
              "Your first two weeks\t4\t5\t9\tROOT\n"
              "How Tidewater fits together\t5\t6\t14\tROOT\n"
              "Alerts that page you\t6\t7\t17\tROOT\n")
    window = replace(STRUCTURE.windows(deck, "anchors", 6000)[0], repairs=Repairs())
    sections = STRUCTURE.parse(answer, window)
    headings = {s.title: s for s in deck.sections}
    for found in sections[1:]:
        assert deck.text[found.start:].lstrip("# ").startswith(found.title)
        assert found.level == headings[found.title].level
    assert sections[1].end < sections[2].start and sections[2].end < sections[3].start
    kinds = Counter(r.kind for r in window.repairs.items)
    assert kinds["anchor_from_title"] == 3 and kinds["value_fixed"] == 3  # levels 4, 5, 6
    strict = replace(window, repairs=None)
    with pytest.raises(TSVError):
        STRUCTURE.parse(answer, strict)
    twice = replace(window, repairs=Repairs())  # listed at its heading and again elsewhere
    sections = STRUCTURE.parse("Your first two weeks\t1\t4\t9\tROOT\n"
                               "Your first two weeks\t1\t6\t9\tROOT", twice)
    assert [(s.title, s.start) for s in sections] == [("Your first two weeks", sections[0].start)]
    assert [r.kind for r in twice.repairs.items] == ["repeat_dropped"]

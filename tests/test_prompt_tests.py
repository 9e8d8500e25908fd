from pathlib import Path

import pytest

from core.documents import convert
from core.errors import TemplateError
from core.llm.cache import LLMCache
from core.llm.phases import BOUNDARIES, PHASES, phase_of
from core.llm.settings import LLMSettings
from core.llm.trial import Conversation, PhaseInput
from core.operations.prompts import inputs, templates
from core.operations.prompts import trials as prompt_tests
from core.prompts.checks import check_template
from core.prompts.library import PromptLibrary
from fakes.llm import fake_llm  # noqa: F401  (fixture)

SAMPLE = Path(__file__).resolve().parents[1] / "sample_docs" / "technical_handbook.md"
SETTINGS = LLMSettings()


@pytest.fixture(scope="module")
def doc():
    return convert(SAMPLE.read_bytes(), SAMPLE.name)


@pytest.fixture(scope="module")
def lib():
    return PromptLibrary()


@pytest.fixture(scope="module")
def source(doc):
    section = next(s for s in doc.sections if len(inputs.passages(doc, s)) > 1)
    return PhaseInput(document=doc, section=section, chunk=inputs.passages(doc, section)[0],
                      table=doc.tables[0] if doc.tables else None,
                      conversation=Conversation("", "user: hi", "How do I cook pasta?"),
                      locale="ja-JP")


def test_defaults_pass_the_checks(lib):
    for name in lib.names():
        checks = check_template(lib.default(name))
        assert checks.errors == [] and checks.warnings == [], name


def test_checks_warn_about_unknown_unused_and_format(lib):
    default = lib.default("topic_detection")
    edited = default.with_text(
        default.text.replace("{{userMessage}}", "{{ userMesage }}").replace("topic_summary", "t"),
        "x")
    warnings = check_template(edited).warnings
    assert any("{{userMesage}} is not a placeholder" in w for w in warnings)
    assert any("{{userMessage}} is not used" in w for w in warnings)
    assert any("never names topic_summary" in w for w in warnings)
    broken = lib.default("rag_system").with_text('{"default": {"header": 1}}', "x")
    assert check_template(broken).errors


def test_every_template_belongs_to_a_phase_that_sends_it(lib):
    for name in lib.names():
        template = lib.default(name)
        phase = phase_of(template)
        assert phase.template_name(template.mode or "anchors") == name, name
    assert {p.name for p in PHASES.values()} == {lib.default(n).phase for n in lib.names()}


def test_preview_fills_every_placeholder_from_the_input(lib, source):
    for name in lib.names():
        preview = prompt_tests.preview(lib.default(name), source, SETTINGS)
        assert preview.missing == [] and not preview.note, name
        assert "{{" not in preview.text, name
    for name, anchored in (("boundary_detection", True), ("boundary_detection_offsets", False)):
        template = lib.default(name)
        request = BOUNDARIES.first_request(source, template, SETTINGS)
        text = BOUNDARIES.values(request)["section_text"]
        if anchored:
            assert text.startswith("[") and "] " in text.splitlines()[0]
        else:
            assert text == source.document.slice(source.section)


def test_preview_says_what_the_input_lacks(lib, doc):
    preview = prompt_tests.preview(lib.default("table_summary"), PhaseInput(document=doc),
                                   SETTINGS)
    assert preview.note == "Pick a table under Input first."
    assert "{{table_markdown}}" in preview.text and "table_markdown" in preview.missing


def test_preview_counts_the_prompt_against_the_context_less_the_answer(lib, source):
    template = lib.default("topic_detection")
    roomy = prompt_tests.preview(template, source, SETTINGS)
    assert roomy.tokens > 0 and roomy.over_by == 0
    tight = LLMSettings(context_tokens=2048, max_tokens=2098 - roomy.tokens)
    assert prompt_tests.preview(template, source, tight).over_by == 50
    exact = LLMSettings(context_tokens=2048, max_tokens=2048 - roomy.tokens)
    assert prompt_tests.preview(template, source, exact).over_by == 0


def test_the_editor_lists_templates_as_their_phases_run_and_says_a_clean_one_passed(lib):
    names = templates.names_in_phase_order(lib)
    order = list(PHASES)
    ranks = [order.index(lib.default(n).phase) for n in names]
    assert sorted(names) == sorted(lib.names()) and ranks == sorted(ranks)
    assert templates.review(lib.default("rag_system")).passed.startswith("Every field")
    assert templates.review(lib.default("topic_detection")).passed.startswith("Every placeholder")
    broken = templates.review(lib.default("topic_detection").with_text("{{ nope }}", "x"))
    assert broken.warnings and broken.passed == ""


def test_a_trial_is_drawn_on_the_section_its_phase_reads(lib, source):
    assert inputs.needs(lib.default("boundary_detection")).shown(source) == (
        source.section.start, source.section.end)
    assert inputs.needs(lib.default("chunk_metadata")).shown(source) == (
        0, len(source.document.text))


def test_run_anchor_phases_against_fake_llm(fake_llm, lib, source):  # noqa: F811
    settings = fake_llm.settings()
    structure = prompt_tests.run_template(settings, lib.default("structure_analysis"), source)
    assert structure.error is None and structure.requests >= 1
    spans = structure.view.spans
    assert spans and all(s < e for s, e, _ in spans)
    boundaries = prompt_tests.run_template(settings, lib.default("boundary_detection"), source)
    assert boundaries.error is None
    assert boundaries.view.spans[0][0] == source.section.start
    assert boundaries.view.spans[-1][1] == source.section.end
    # the handbook is read in structure windows of at most 1,500 tokens, then one section
    assert structure.requests >= 2
    assert fake_llm.phases == ["structure_analysis"] * structure.requests + [
        "boundary_detection"] * boundaries.requests
    assert boundaries.prompt_tokens > 0 and boundaries.latency_s > 0


def test_parse_error_is_a_result_with_the_failing_line(fake_llm, lib, source):  # noqa: F811
    fake_llm.script(["Here is the metadata:\tx\ty\tz"] * 2)
    run = prompt_tests.run_template(fake_llm.settings(), lib.default("chunk_metadata"), source)
    assert "preamble" in run.error and run.error_line.startswith("Here is")
    assert run.view.rows == [] and run.requests == 2  # phase 3 asks once more


def test_topic_run_shows_fallback_warning(fake_llm, lib, source):  # noqa: F811
    fake_llm.script(["I think it is about pasta."])
    run = prompt_tests.run_template(fake_llm.settings(), lib.default("topic_detection"), source)
    assert run.view.rows == [{"topic_status": "continuation",
                              "topic_summary": "I think it is about pasta."}]
    assert "fallback" in run.view.warning


def test_rag_run_sends_system_prompt_and_question(fake_llm, lib, source):  # noqa: F811
    fake_llm.script(["- Answer [1]"])
    question = PhaseInput(document=source.document, question="Why?", locale="ja", references=2)
    run = prompt_tests.run_template(fake_llm.settings(), lib.default("rag_system"), question)
    prompt = fake_llm.calls[-1].prompt
    assert prompt.startswith("あなたは") and "[²] " in prompt  # labelled as the check names it
    assert prompt.endswith("# Question\nWhy?")
    assert run.raw == "- Answer [1]"
    assert [r.split("\n")[0].split(" ")[0] for r in run.view.references] == ["[¹]", "[²]"]


def test_missing_input_is_a_sentence(fake_llm, lib, doc):  # noqa: F811
    with pytest.raises(TemplateError, match="Pick a section"):
        prompt_tests.run_template(fake_llm.settings(), lib.default("boundary_detection"),
                                  PhaseInput(document=doc))


def test_ab_same_input_reports_differences(fake_llm, lib, source):  # noqa: F811
    default = lib.default("boundary_detection")
    variant = default.with_text(default.text + "\nPrefer fewer chunks.", "fewer")

    def answer(request):
        # The section's own blocks only: the worked example before it (a bread recipe) has
        # numbered blocks too, and an answer starting at its first anchor is rightly rejected.
        section = request.prompt.split('\nSECTION "', 1)[1]
        anchors = [int(line[1:].split("]")[0]) for line in section.splitlines()
                   if line.startswith("[") and "]" in line and line[1:].split("]")[0].isdigit()]
        first, middle, last = anchors[0], anchors[len(anchors) // 2], anchors[-1]
        if "Prefer fewer" in request.prompt:
            return f"{first}\tDOCUMENT_START\tStart\n{last}\tDOCUMENT_END\tEnd"
        return (f"{first}\tDOCUMENT_START\tStart\n{middle}\tSEMANTIC_SHIFT\tNew point here\n"
                f"{last}\tDOCUMENT_END\tEnd")

    fake_llm.respond(answer)
    result = prompt_tests.run_ab(fake_llm.settings(), default, variant, source)
    assert result.a.version != result.b.version
    assert result.a.error is None and result.b.error is None
    assert len(result.only_a) == 1 and "SEMANTIC_SHIFT" in result.only_a[0]
    assert result.only_b == []
    assert "-" in result.raw_diff and "SEMANTIC_SHIFT" in result.raw_diff
    assert result.a.requests == result.b.requests == 1


def test_version_changes_the_llm_cache_key(lib):
    default = lib.default("structure_analysis")
    edited = default.with_text(default.text + " ", "x")
    keys = {LLMCache.key("structure_analysis", t.version, "m", 0.3, text="t")
            for t in (default, edited)}
    assert len(keys) == 2


def test_text_diff_is_plain_unified_diff():
    diff = prompt_tests.text_diff("a\n<b>\n", "a\n<c>\n", "default", "mine")
    assert diff.startswith("--- default\n+++ mine") and "-<b>" in diff and "+<c>" in diff


def test_text_diff_keeps_every_line_on_its_own_line_without_a_final_line_break():
    diff = prompt_tests.text_diff("one\ntwo", "one\nTWO\nthree", "A", "B")
    assert diff.splitlines()[-3:] == ["-two", "+TWO", "+three"]

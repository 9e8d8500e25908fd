from pathlib import Path

import pytest

from core.documents import convert
from core.errors import TemplateError
from core.llm.cache import LLMCache
from core.prompts import workbench
from core.prompts.inputs import Conversation, PromptInput, values_for
from core.prompts.library import PromptLibrary
from tests.fakellm import fake_llm  # noqa: F401  (fixture)

SAMPLE = Path(__file__).resolve().parents[1] / "sample_docs" / "technical_handbook.md"


@pytest.fixture(scope="module")
def doc():
    return convert(SAMPLE.read_bytes(), SAMPLE.name)


@pytest.fixture(scope="module")
def lib():
    return PromptLibrary()


@pytest.fixture(scope="module")
def source(doc):
    section = next(s for s in doc.sections if len(workbench.passages(doc, s)) > 1)
    return PromptInput(document=doc, section=section,
                       chunk=workbench.passages(doc, section)[0],
                       table=doc.tables[0] if doc.tables else None,
                       conversation=Conversation("", "user: hi", "How do I cook pasta?"))


def test_defaults_pass_the_checks(lib):
    for name in lib.names():
        checks = workbench.check_template(lib.default(name))
        assert checks.errors == [] and checks.warnings == [], name


def test_checks_warn_about_unknown_unused_and_format(lib):
    default = lib.default("topic_detection")
    edited = default.with_text(
        default.text.replace("{{userMessage}}", "{{ userMesage }}").replace("topic_summary", "t"),
        "x")
    warnings = workbench.check_template(edited).warnings
    assert any("{{userMesage}} is not a placeholder" in w for w in warnings)
    assert any("{{userMessage}} is not used" in w for w in warnings)
    assert any("never names topic_summary" in w for w in warnings)
    broken = lib.default("rag_system").with_text('{"default": {"header": 1}}', "x")
    assert workbench.check_template(broken).errors


def test_preview_fills_every_placeholder_from_the_input(lib, source):
    for name in lib.names():
        template = lib.default(name)
        preview = workbench.preview(template, source, locale="ja-JP")
        assert preview.missing == [], name
        assert "{{" not in preview.text, name
    anchored = values_for("boundary_detection", source)["section_text"]
    assert anchored.startswith("[") and "] " in anchored.splitlines()[0]
    raw = values_for("boundary_detection_offsets", source)["section_text"]
    assert raw == source.document.slice(source.section)


def test_preview_reports_what_the_input_lacks(lib, doc):
    preview = workbench.preview(lib.default("table_summary"), PromptInput(document=doc))
    assert preview.missing == ["heading_path", "table_caption", "table_markdown"]


def test_run_anchor_phases_against_fake_llm(fake_llm, lib, source):  # noqa: F811
    settings = fake_llm.settings()
    structure = workbench.run_template(settings, lib.default("structure_analysis"), source)
    assert structure.error is None and structure.requests >= 1
    assert structure.spans and all(s < e for s, e, _ in structure.spans)
    boundaries = workbench.run_template(settings, lib.default("boundary_detection"), source)
    assert boundaries.error is None
    assert boundaries.spans[0][0] == source.section.start
    assert boundaries.spans[-1][1] == source.section.end
    assert fake_llm.phases[:2] == ["structure_analysis", "boundary_detection"]
    assert boundaries.prompt_tokens > 0 and boundaries.latency_s > 0


def test_parse_error_is_a_result_with_the_failing_line(fake_llm, lib, source):  # noqa: F811
    fake_llm.script(["Here is the metadata:\tx\ty\tz"] * 2)
    run = workbench.run_template(fake_llm.settings(), lib.default("chunk_metadata"), source)
    assert "preamble" in run.error and run.error_line.startswith("Here is")
    assert run.rows == [] and run.requests == 2  # phase 3 asks once more


def test_topic_run_shows_fallback_warning(fake_llm, lib, source):  # noqa: F811
    fake_llm.script(["I think it is about pasta."])
    run = workbench.run_template(fake_llm.settings(), lib.default("topic_detection"), source)
    assert run.rows == [{"topic_status": "continuation",
                         "topic_summary": "I think it is about pasta."}]
    assert "fallback" in run.warning


def test_rag_run_sends_system_prompt_and_question(fake_llm, lib, source):  # noqa: F811
    fake_llm.script(["- Answer [1]"])
    run = workbench.run_template(fake_llm.settings(), lib.default("rag_system"), source,
                                 question="Why?", locale="ja", references=2)
    prompt = fake_llm.calls[-1].prompt
    assert prompt.startswith("あなたは") and "[2] " in prompt
    assert prompt.endswith("# Question\nWhy?")
    assert run.raw == "- Answer [1]"


def test_missing_input_is_a_sentence(fake_llm, lib, doc):  # noqa: F811
    with pytest.raises(TemplateError, match="Pick a section"):
        workbench.run_template(fake_llm.settings(), lib.default("boundary_detection"),
                               PromptInput(document=doc))


def test_ab_same_input_reports_differences(fake_llm, lib, source):  # noqa: F811
    default = lib.default("boundary_detection")
    variant = default.with_text(default.text + "\nPrefer fewer chunks.", "fewer")

    def answer(request):
        anchors = [int(line[1:].split("]")[0]) for line in request.prompt.splitlines()
                   if line.startswith("[") and "]" in line and line[1:].split("]")[0].isdigit()]
        first, last = anchors[0], anchors[-1]
        if "Prefer fewer" in request.prompt:
            return f"{first}\tDOCUMENT_START\tStart\n{last}\tDOCUMENT_END\tEnd"
        return (f"{first}\tDOCUMENT_START\tStart\n{first + 1}\tSEMANTIC_SHIFT\tNew point here\n"
                f"{last}\tDOCUMENT_END\tEnd")

    fake_llm.respond(answer)
    result = workbench.run_ab(fake_llm.settings(), default, variant, source)
    assert result.a.version != result.b.version
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
    diff = workbench.text_diff("a\n<b>\n", "a\n<c>\n", "default", "mine")
    assert diff.startswith("--- default\n+++ mine") and "-<b>" in diff and "+<c>" in diff

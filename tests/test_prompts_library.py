import json

import pytest

from core.errors import TemplateError
from core.prompts.library import PromptLibrary
from core.prompts.substitution import substitute
from core.prompts.template import text_version

# Binding names from CONTRACTS.md: the LLM engineer fills exactly these. The anchor templates
# also name the first and last block number shown (StructurePhase.values and
# BoundariesPhase.values pass first_anchor/last_anchor); the offsets templates do not use them.
CONTRACT = {
    "structure_analysis": {"document_name", "document_text", "first_anchor", "last_anchor"},
    "structure_analysis_offsets": {"document_name", "document_text"},
    "boundary_detection": {"section_title", "section_text", "text_length", "max_tokens",
                           "max_chars", "first_anchor", "last_anchor"},
    "boundary_detection_offsets": {"section_title", "section_text", "section_start",
                                   "text_length", "max_tokens", "max_chars"},
    "chunk_metadata": {"document_id", "document_text", "chunks_asked"},
    "contextual_prefix": {"document_id", "document_text", "chapter_title", "section_title",
                          "subsection_title", "chunk_text"},
    "table_summary": {"document_id", "document_text", "heading_path", "table_caption",
                      "table_markdown"},
    "topic_detection": {"currentTopic", "conversationContext", "userMessage"},
    "question_generation": {"document_id", "heading_path", "passage_kind", "passage"},
    "unanswerable_question": {"document_id", "heading_path", "passage"},
    "judge": {"question", "sources", "answer"},
}


@pytest.fixture
def lib(tmp_path):
    return PromptLibrary(tmp_path / "prompts")


def test_defaults_declare_and_use_exactly_the_contract_placeholders(lib):
    assert set(lib.names()) == set(CONTRACT) | {"rag_system"}
    for name, expected in CONTRACT.items():
        template = lib.default(name)
        assert set(template.placeholders) == expected, name
        used = substitute(template.text, {}, template.placeholders)
        assert not used.unknown and not used.unused, name
        assert all(template.placeholders.values()), name


def test_anchor_contracts_match_the_agreed_columns(lib):
    assert lib.default("structure_analysis").contract.columns == [
        "title", "level", "start_anchor", "end_anchor", "parent_title"]
    assert lib.default("boundary_detection").contract.columns == [
        "anchor", "boundary_type", "justification"]
    assert lib.default("structure_analysis_offsets").contract.columns[2:4] == [
        "start_char", "end_char"]
    assert lib.default("topic_detection").contract.fields == ["topic_status", "topic_summary"]
    assert lib.default("contextual_prefix").contract.kind == "text"


def test_render_fills_everything_for_a_complete_value_set(lib):
    values = dict.fromkeys(CONTRACT["boundary_detection"], "V")
    result = lib.default("boundary_detection").render(values)
    assert result.ok and result.unused == []
    assert "{{" not in result.text


def test_version_is_sha256_prefix_and_changes_with_text(lib):
    default = lib.default("chunk_metadata")
    assert default.version == text_version(default.text) and len(default.version) == 12
    edited = lib.save_variant("chunk_metadata", "short summary", default.text + "\nBe brief.")
    assert edited.version != default.version
    assert edited.version == text_version(default.text + "\nBe brief.")
    assert edited.with_text(default.text).version == default.version


def test_variants_persist_across_instances_and_activate(lib, tmp_path):
    lib.save_variant("table_summary", "terse v2", "Summarize {{table_markdown}} in 10 words.")
    again = PromptLibrary(tmp_path / "prompts")
    assert again.variants("table_summary") == ["terse v2"]
    assert again.template("table_summary").variant is None  # default until activated
    again.set_active("table_summary", "terse v2")
    active = PromptLibrary(tmp_path / "prompts").template("table_summary")
    assert active.variant == "terse v2" and active.text.startswith("Summarize")
    assert again.versions()["table_summary"] == active.version
    again.delete_variant("table_summary", "terse v2")
    assert again.variants("table_summary") == []
    assert again.template("table_summary").variant is None


@pytest.mark.parametrize("bad", ["default", "", "  ", "../etc", "a/b", "x" * 61])
def test_bad_variant_names_raise_a_sentence(lib, bad):
    with pytest.raises(TemplateError) as err:
        lib.save_variant("chunk_metadata", bad, "text {{chunk_text}}")
    assert str(err.value).endswith(".")


def test_unknown_template_and_variant(lib):
    with pytest.raises(TemplateError, match="no prompt template called"):
        lib.template("nope")
    with pytest.raises(TemplateError, match="no variant called"):
        lib.template("chunk_metadata", "ghost")
    with pytest.raises(TemplateError, match="empty"):
        lib.save_variant("chunk_metadata", "blank", "   ")


def test_export_import_round_trip(lib, tmp_path):
    lib.save_variant("topic_detection", "ja", "話題: {{userMessage}}")
    lib.save_variant("chunk_metadata", "v1", "Meta {{chunk_text}}")
    lib.set_active("topic_detection", "ja")
    exported = lib.export_json()
    assert json.loads(exported)["format"] == "chunklab-prompts"
    other = PromptLibrary(tmp_path / "other")
    labels = other.import_json(exported.encode("utf-8"))
    assert sorted(labels) == ["chunk_metadata@v1", "topic_detection@ja"]
    assert other.template("topic_detection").text == "話題: {{userMessage}}"
    assert other.template("chunk_metadata").variant is None


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("not json", "not valid JSON"),
        ('{"templates": {}}', "not a ChunkLab prompt export"),
        ('{"format": "chunklab-prompts", "version": 9, "templates": {}}', "version 9"),
        ('{"format": "chunklab-prompts", "version": 1}', 'no "templates"'),
        ('{"format": "chunklab-prompts", "version": 1, "templates": {"x": {}}}',
         "unknown template 'x'"),
        ('{"format": "chunklab-prompts", "version": 1, "templates": '
         '{"chunk_metadata": {"variants": {"default": "x"}}}}', '"default" is the shipped'),
        ('{"format": "chunklab-prompts", "version": 1, "templates": '
         '{"chunk_metadata": {"variants": {"a": 3}}}}', "empty"),
        ('{"format": "chunklab-prompts", "version": 1, "templates": '
         '{"chunk_metadata": {"active": "b", "variants": {"a": "x"}}}}', "no such variant"),
        ('{"format": "chunklab-prompts", "version": 1, "templates": '
         '{"rag_system": {"variants": {"a": "{}"}}}}', '"default" locale'),
    ],
)
def test_import_validation_saves_nothing_on_error(lib, payload, message):
    with pytest.raises(TemplateError, match=message):
        lib.import_json(payload)
    assert all(lib.variants(name) == [] for name in lib.names())

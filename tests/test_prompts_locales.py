import json

import pytest
from pydantic import ValidationError

from core.errors import TemplateError
from core.llm.settings import AnswerSettings, load_answer_settings, save_answer_settings
from core.prompts.library import PromptLibrary
from core.prompts.locales import (
    build_system_prompt,
    deep_merge,
    parse_locales,
    resolve_locale,
)
from core.prompts.rag_fields import locale_names

BASE = {
    "header": "You are {role}. Because {background}, please {request}. Keep {braces} and {{x}}.",
    "role": "R",
    "background": "B",
    "request": "Q",
    "format_instruction": "bullets",
    "rules": ["one", "two"],
    "section_titles": {"rules": "# Rules", "format": "# Format", "reference": "# Refs"},
    "reference": {"lead": "LEAD", "footer": "FOOT", "empty": "NONE AVAILABLE"},
}


@pytest.mark.parametrize(
    ("locale", "expected"),
    [("ja-JP", "ja"), ("ja", "ja"), ("JA_jp", "ja"), ("ja,en;q=0.9", "ja"), ("fr-FR", "default"),
     (None, "default"), ("", "default"), ("en-GB", "en-GB"), ("en-US", "en")],
)
def test_resolve_locale(locale, expected):
    assert resolve_locale(locale, ["default", "ja", "en", "en-GB"]) == expected


def test_deep_merge_nested_objects_and_replaced_lists():
    merged = deep_merge(BASE, {"rules": ["only"], "reference": {"lead": "L2"}})
    assert merged["rules"] == ["only"]
    assert merged["reference"] == {"lead": "L2", "footer": "FOOT", "empty": "NONE AVAILABLE"}
    assert BASE["reference"]["lead"] == "LEAD"  # inputs untouched


def test_build_prompt_structure_with_references():
    prompt = build_system_prompt(None, ["[1] Doc a\nalpha", "[2] Doc b\nbeta"],
                                 {"default": BASE})
    assert prompt == (
        "You are R. Because B, please Q. Keep {braces} and {{x}}.\n\n"
        "# Rules\n1. one\n2. two\n\n# Format\nbullets\n\n"
        "# Refs\nLEAD\n\n[1] Doc a\nalpha\n\n[2] Doc b\nbeta\n\nFOOT"
    )


def test_build_prompt_without_references_uses_empty_text():
    prompt = build_system_prompt(None, [], {"default": BASE})
    assert prompt.endswith("# Refs\nNONE AVAILABLE")
    assert "LEAD" not in prompt


def test_locale_is_merged_over_default_and_rag_wrapper_accepted():
    template = {"rag": {"default": BASE, "ja": {"role": "アシスタント",
                                                "section_titles": {"rules": "# ルール"}}}}
    prompt = build_system_prompt("ja-JP", [], template)
    assert prompt.startswith("You are アシスタント.")
    assert "# ルール\n1. one" in prompt and "# Format" in prompt


def test_header_values_with_braces_are_inserted_literally():
    template = {"default": {**BASE, "role": "{request} {0}"}}
    assert build_system_prompt(None, [], template).startswith("You are {request} {0}. Because B")


def test_shipped_japanese_locale():
    default = json.loads(PromptLibrary().default("rag_system").text)
    assert set(default) == {"default", "ja"}
    prompt = build_system_prompt("ja-JP", ["[1] 保険約款\n免責金額は5万円です。"], default)
    assert prompt.startswith("あなたは") and "# ルール\n1. " in prompt
    assert "# 参考資料\n" in prompt and "[1] 保険約款" in prompt
    assert "{role}" not in prompt
    english = build_system_prompt(None, [], default)
    assert english.startswith("You are an assistant") and "# Reference Materials" in english


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "not valid JSON"), ("[]", "JSON object"), ('{"ja": {}}', '"default" locale'),
     (json.dumps({"default": {**BASE, "header": ""}}), '"header"'),
     (json.dumps({"default": BASE, "ja": {"rules": "x"}}), '"rules"'),
     (json.dumps({"default": BASE, "ja": {"reference": {"empty": 1}}}), "reference.empty")],
)
def test_parse_locales_errors_are_sentences(text, message):
    with pytest.raises(TemplateError, match=message):
        parse_locales(text)


def test_locale_names_survive_a_broken_template():
    assert locale_names(json.dumps({"default": BASE, "ja": {}})) == ["default", "ja"]
    assert locale_names("{") == ["default"]


def test_answer_settings_defaults_and_persistence(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    assert load_answer_settings() == AnswerSettings(model="", temperature=0.7, locale="default")
    save_answer_settings(AnswerSettings(model="gpt-4o", temperature=0.0, locale="ja"))
    loaded = load_answer_settings()
    assert (loaded.model, loaded.temperature, loaded.locale) == ("gpt-4o", 0.0, "ja")
    for bad in (2.5, -0.1):
        with pytest.raises(ValidationError):
            AnswerSettings(temperature=bad)

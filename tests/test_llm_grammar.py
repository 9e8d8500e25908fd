# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""Compact JSON where the server takes a grammar (llama.cpp): the schema of a phase that asks for
it spelt out as GBNF with no whitespace to choose, found out by the probe, and the same chunks as
with ``response_format``."""

from __future__ import annotations

import json

import pytest

from core.documents import convert
from core.llm.grammar import schema_grammar
from core.llm.phases import boundaries
from core.llm.phases.question_generation import ANSWER_SCHEMA
from core.llm.structured import OutputForm, rows_schema
from core.operations.llm_connection import check_connection
from core.operations.strategies import RunOptions, run_llm
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import SMALL_GUIDE


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.0)


def test_rows_are_spelt_out_compact():
    grammar = schema_grammar(rows_schema(("title", "level"), numeric=(1,), max_rows=3,
                                         max_chars=80))
    assert grammar is not None
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    row = next(body for body in rules.values() if "title" in body)
    assert row.split() == ['"{\\"title\\":"', "string-80", '",\\"level\\":"', "integer", '"}"']
    assert rules["string-80"] == '"\\"" char{0,80} "\\""'  # the schema's maxLength
    rows = next(body for name, body in rules.items() if name.startswith("array"))
    assert rows.endswith('("," ' + rows.split()[1] + '){0,2} "]"')  # at most three rows
    assert " " not in "".join(json.loads(part) for part in row.split() if part.startswith('"'))
    question = schema_grammar(ANSWER_SCHEMA)
    assert question is not None and '"{\\"question\\":" string' in question


def test_a_string_is_held_to_its_opening():
    grammar = schema_grammar(rows_schema(("summary",), max_rows=1, max_chars=60,
                                         pattern="^The chunk (lists|sets out) "))
    assert grammar is not None
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    text = next(body for name, body in rules.items() if name.startswith("string"))
    # the opening, then at most what is left of the 60 characters after its longest form
    assert text == '"\\"" "The chunk " ("lists" | "sets out") " " char{0,41} "\\""'


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"x": {"type": "string", "pattern": "^a.*b"}},
     "required": ["x"], "additionalProperties": False},  # a pattern that is more than an opening
    {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"],
     "additionalProperties": False},  # a number: not spelt out
    {"type": "object", "properties": {"x": {"type": "string"}}, "required": [],
     "additionalProperties": False},  # an optional property
    {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},  # open
    {"type": "array", "items": {"type": "string"}, "minItems": 2},
])
def test_other_shapes_go_as_response_format(schema):
    assert schema_grammar(schema) is None
    assert "response_format" in OutputForm(schema=True, grammar=True).fields("x", schema, True)


@pytest.mark.parametrize(("structured", "grammar"), [(True, True), (True, False), (False, False)])
def test_the_probe_tells_whether_the_server_takes_a_grammar(fake_llm, structured, grammar):
    fake_llm.structured, fake_llm.grammar = structured, grammar
    facts = check_connection(fake_llm.settings()).facts
    assert (facts.structured_output, facts.compact_json) == (structured, grammar)


def test_a_server_taking_a_grammar_gets_one_and_the_same_chunks(fake_llm):
    guide = convert(SMALL_GUIDE, "guide.md")
    options = RunOptions(llm=fake_llm.settings())
    fake_llm.structured = True
    with_schema = run_llm([guide], {"cache": False}, options)[0]
    fake_llm.reset()
    fake_llm.grammar = True  # the server restarted with a grammar: Test connection learns it
    check_connection(fake_llm.settings())
    with_grammar = run_llm([guide], {"cache": False}, options)[0]
    assert with_grammar.error is None
    assert [(c.start, c.end, c.summary) for c in with_grammar.chunks] == [
        (c.start, c.end, c.summary) for c in with_schema.chunks]
    rows = [call for call in fake_llm.calls if call.phase == "chunk_metadata"]
    assert rows and all("grammar" in call.body and "response_format" not in call.body
                        for call in rows)
    # sections are asked as indented JSON: held to compact JSON the model listed every block
    sections = [call for call in fake_llm.calls if call.phase == "structure_analysis"]
    assert sections and all("response_format" in call.body and "grammar" not in call.body
                            for call in sections)

# ruff: noqa: F811  (pytest fixtures imported from fakes.llm are redefined as arguments)
"""Structured output where the server offers it: the phases' rows asked as JSON held to a schema
(``response_format``), read back into the lines the parsers read; TSV for servers without it;
found out once per client by a probe, and told by the connection test."""

from __future__ import annotations

import pytest

from core.documents import convert
from core.llm.phases import boundaries
from core.llm.phases.metadata import SUMMARY_CHARS
from core.llm.structured import rows_as_tsv, rows_schema
from core.operations.llm_connection import check_connection
from core.operations.questions.generation import generate_question_set
from core.operations.strategies import RunOptions, run_llm
from fakes.llm import fake_llm  # noqa: F401  (fixture)
from tests.docfactory import CLAIMS_HANDBOOK, SMALL_GUIDE

ROW_PHASES = ("structure_analysis", "boundary_detection", "chunk_metadata")


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(boundaries, "SHORT_SHARE", 0.0)


def run(fake, document):
    return run_llm([document], {"summaries": True, "cache": False},
                   RunOptions(llm=fake.settings()))[0]


def test_rows_are_asked_as_json_where_the_server_offers_it(fake_llm):
    guide = convert(SMALL_GUIDE, "guide.md")
    as_tsv = run(fake_llm, guide)
    assert not any("response_format" in body for body in fake_llm.requests)
    fake_llm.reset()
    fake_llm.structured = True  # the server restarted with schemas: Test connection learns it
    check_connection(fake_llm.settings())
    as_json = run(fake_llm, guide)
    assert as_json.error is None
    assert [(c.start, c.end) for c in as_json.chunks] == [(c.start, c.end) for c in as_tsv.chunks]
    assert [c.summary for c in as_json.chunks] == [c.summary for c in as_tsv.chunks]
    for call in fake_llm.calls:
        shape = call.body.get("response_format")
        if call.phase in ROW_PHASES:
            assert shape["type"] == "json_schema" and "stop" not in call.body
            assert "rows" in shape["json_schema"]["schema"]["properties"]
            assert call.body["max_tokens"] > 0
        else:  # a sentence is asked as a sentence
            assert shape is None


def test_a_question_is_asked_as_json_held_to_its_schema(fake_llm):
    fake_llm.structured = True
    check_connection(fake_llm.settings())  # the form is learnt: Test connection
    fake_llm.reset()
    document = convert(CLAIMS_HANDBOOK.encode(), "claims_handbook.md")
    generated = generate_question_set([document], per_doc=2, settings=fake_llm.settings(),
                                      use_cache=False)
    assert len(generated.questions.questions) == 2
    schema = fake_llm.requests[0]["response_format"]["json_schema"]["schema"]
    assert set(schema["required"]) == {"question", "answer"}


@pytest.mark.parametrize("offered", [True, False])
def test_the_connection_test_tells_whether_the_server_offers_it(fake_llm, offered):
    fake_llm.structured = offered
    assert check_connection(fake_llm.settings()).facts.structured_output is offered


def test_json_rows_read_back_as_tsv_lines():
    columns = ("anchor", "boundary_type", "justification")
    schema = rows_schema(columns, numeric=(0,))
    assert schema["properties"]["rows"]["items"]["properties"]["anchor"] == {"type": "integer"}
    answer = ('{"rows": [{"anchor": 1, "boundary_type": "DOCUMENT_START", "justification": '
              '"Starts\\there"}, {"anchor": 4, "boundary_type": "DOCUMENT_END", '
              '"justification": "End"}]}')
    assert rows_as_tsv(answer, columns) == "1\tDOCUMENT_START\tStarts here\n4\tDOCUMENT_END\tEnd"
    assert rows_as_tsv("1\tDOCUMENT_START\tS", columns) == "1\tDOCUMENT_START\tS"  # not JSON


def test_chunk_summaries_ask_a_schema_server_for_exactly_the_chunks_asked(fake_llm):
    fake_llm.structured = True
    check_connection(fake_llm.settings())
    result = run(fake_llm, convert(SMALL_GUIDE, "guide.md"))
    asked = [c.body["response_format"]["json_schema"]["schema"] for c in fake_llm.calls
             if c.phase == "chunk_metadata"]
    assert asked
    for schema in asked:  # one row per chunk asked, in order, its number fixed
        rows = schema["properties"]["rows"]
        assert rows["items"] is False and rows["minItems"] == rows["maxItems"]
        cells = [row["properties"] for row in rows["prefixItems"]]
        assert all(list(row) == ["chunk", "summary"] for row in cells)
        numbers = [row["chunk"]["const"] for row in cells]
        assert numbers == sorted(numbers) and len(numbers) == rows["maxItems"] <= 3
        assert all(row["summary"]["maxLength"] == SUMMARY_CHARS for row in cells)
    assert all(c.summary and "\t" not in c.summary for c in result.chunks)

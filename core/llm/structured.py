"""Structured output: the rows a phase asks for, as a JSON schema the server holds the model to.

Servers that offer it (llama.cpp, vLLM, OpenAI: ``response_format`` of type ``json_schema``)
are asked for ``{"rows": [{column: value, ...}, ...]}``; the answer is read back into the TSV
lines the phase's parser reads, so one parser serves both, and the copy checks and the cache
see the same text. Whether a server offers it is found out by a probe (:func:`probe`), kept on
disk (:mod:`core.llm.forms`) and shown on Settings; servers without it keep getting TSV. A
server that also takes a GBNF ``grammar`` (llama.cpp) gets the schema of a phase that asks for
compact JSON spelt out as one (see :mod:`core.llm.grammar`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from core.llm.grammar import schema_grammar

PROBE_PHASE = "structured_output_probe"  # names the probe request to the server
_PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}},
                 "required": ["ok"], "additionalProperties": False}
_PROBE_GRAMMAR_ANSWER = '{"ok":true,"form":"grammar"}'  # no model writes this unasked


@dataclass(frozen=True)
class OutputForm:
    """How a server holds an answer to a JSON schema, as probed."""

    schema: bool = False  # ``response_format`` with a JSON schema
    grammar: bool = False  # a GBNF ``grammar`` (llama.cpp): compact JSON

    def fields(self, phase: str, schema: dict[str, Any], compact: bool = False) -> dict[str, Any]:
        """The request's fields that hold its answer to ``schema`` (as compact JSON when asked
        and the server takes a grammar)."""
        grammar = schema_grammar(schema) if compact and self.grammar else None
        return {"grammar": grammar} if grammar else {
            "response_format": response_format(phase, schema)}


def response_format(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The ``response_format`` that holds an answer to ``schema``."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema,
                                                   "strict": True}}


def rows_schema(columns: tuple[str, ...], numeric: tuple[int, ...] = (),
                max_rows: int | None = None, max_chars: int | None = None,
                pattern: str | None = None, keys: tuple[int, ...] = ()) -> dict[str, Any]:
    """``{"rows": [...]}``, each row an object with every column: integers where ``numeric``
    says, text elsewhere (of at most ``max_chars`` characters, and matching ``pattern``, when
    given). With ``keys``, exactly one row per key, in that order, its first column the key."""
    text: dict[str, Any] = {"type": "string"}
    if max_chars is not None:
        text["maxLength"] = max_chars
    if pattern is not None:
        text["pattern"] = pattern

    def row(key: int | None = None) -> dict[str, Any]:
        cells = {name: {"type": "integer"} if i in numeric else text
                 for i, name in enumerate(columns)}
        if key is not None:
            cells[columns[0]] = {"type": "integer", "const": key}
        return {"type": "object", "properties": cells, "required": list(columns),
                "additionalProperties": False}

    rows: dict[str, Any] = {"type": "array", "items": row(), "minItems": 1}
    if keys:
        rows = {"type": "array", "prefixItems": [row(key) for key in keys], "items": False,
                "minItems": len(keys), "maxItems": len(keys)}
    elif max_rows is not None:
        rows["maxItems"] = max_rows
    return {"type": "object", "properties": {"rows": rows}, "required": ["rows"],
            "additionalProperties": False}


def rows_as_tsv(answer: str, columns: tuple[str, ...]) -> str:
    """The TSV lines a ``{"rows": [...]}`` answer stands for; the answer itself when it is no
    such JSON (the phase's parser then says what is wrong with it)."""
    try:
        data = json.loads(answer)
    except ValueError:
        return answer
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        return answer
    return "\n".join("\t".join(_cell(row.get(name)) for name in columns) for row in rows)


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return " ".join(text.replace("\t", " ").splitlines())


def probe(http: httpx.Client, model: str, timeout: float,
          headers: dict[str, str]) -> OutputForm | None:
    """Whether the server answers a tiny request with the JSON its schema asks for, and then
    whether it holds one to a grammar; a server that ignores the format or refuses it counts as
    without. None when the server could not be asked (unreachable, failing, or the request was
    ended): nothing was learnt."""
    question = [{"role": "user", "content": "Is water wet? Answer in JSON."}]
    base = {"model": model, "max_tokens": 16, "temperature": 0.0, "messages": question}
    answer = _answer(http, {**base, "response_format": response_format("probe", _PROBE_SCHEMA)},
                     timeout, headers)
    if answer is None:
        return None
    try:
        data = json.loads(answer)
    except ValueError:
        return OutputForm()
    if not (isinstance(data, dict) and isinstance(data.get("ok"), bool)):
        return OutputForm()
    grammar = f"root ::= {json.dumps(_PROBE_GRAMMAR_ANSWER)}"
    held = _answer(http, {**base, "grammar": grammar}, timeout, headers)
    return None if held is None else OutputForm(schema=True,
                                                grammar=held == _PROBE_GRAMMAR_ANSWER)


def _answer(http: httpx.Client, body: dict[str, Any], timeout: float,
            headers: dict[str, str]) -> str | None:
    """The answer's text: "" when the server refuses the request, None when it cannot be
    asked (no connection, a server error)."""
    try:
        response = http.post("chat/completions", json=body, headers=headers, timeout=timeout)
    except (httpx.HTTPError, RuntimeError):
        return None
    if response.status_code >= 500:
        return None
    try:
        content = response.json()["choices"][0]["message"]["content"] if (
            response.status_code == 200) else ""
    except (ValueError, KeyError, IndexError, TypeError):
        return ""
    return str(content or "")

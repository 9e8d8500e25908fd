"""Compact JSON for a server that takes a GBNF grammar (llama.cpp): the answer a JSON schema asks
for, with no space or line break between its tokens.

llama.cpp turns a ``response_format`` schema into a grammar that leaves the whitespace to the
model, and a small model pretty-prints: indentation costs tokens on every row and every answer,
which a CPU writes slowly (docs/benchmarks.md, "The bundled model"). Spelling the schema
out as a grammar leaves the model no whitespace to choose. A phase asks for it
(``Phase.compact``) only where it was measured not to change the answers.

Only the shapes the phases ask for are spelt out: objects whose properties are all required
(written in their order, no others), arrays with item bounds, strings with a maximum length and
an opening (a ``pattern`` of the form ``^text(one|other)text``), integers and constants, and
arrays of given items in order (``prefixItems`` with no others).
:func:`schema_grammar` returns None for anything else, and the schema goes as
``response_format``.

:func:`cited_lines` is the one grammar that is not JSON: a RAG answer held to the format its
prompt asks for, each line (a bullet, the closing sentence) ending with the markers of the
passages it rests on, and no marker but those of the passages the prompt holds.
"""

from __future__ import annotations

import json
import re
from typing import Any

# A JSON string's character: anything but a quote, a backslash or a control, or an escape.
_CHAR = r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'
_INTEGER = r'"-"? ("0" | [1-9] [0-9]{0,15})'
_TEXT = r'[^.^$*+?()\[\]{}|\\"]*'  # text a pattern matches as it is (and JSON writes so)
_OPENING = re.compile(rf"\^({_TEXT})(?:\(({_TEXT}(?:\|{_TEXT})*)\))?({_TEXT})")


def schema_grammar(schema: dict[str, Any]) -> str | None:
    """The GBNF grammar of ``schema``'s answers written compact; None when the schema has a
    shape this module does not spell out."""
    rules: dict[str, str] = {}
    root = _value(schema, rules)
    if root is None:
        return None
    return "\n".join([f"root ::= {root}", *(f"{name} ::= {body}" for name, body in rules.items())])


def _literal(text: str) -> str:
    return json.dumps(text)  # a GBNF literal escapes as a JSON string does


def _value(spec: dict[str, Any], rules: dict[str, str]) -> str | None:
    """A reference to the rule for ``spec``'s values (rules added to ``rules``), or None."""
    kind = spec.get("type")
    if "const" in spec:
        return _literal(json.dumps(spec["const"]))
    if kind == "integer":
        rules.setdefault("integer", _INTEGER)
        return "integer"
    if kind == "string":
        return _string(spec, rules)
    if kind == "array":
        return _array(spec, rules)
    if kind == "object":
        return _object(spec, rules)
    return None


def _string(spec: dict[str, Any], rules: dict[str, str]) -> str | None:
    most = spec.get("maxLength")
    opening = _opening(spec["pattern"]) if "pattern" in spec else ("", 0)
    if opening is None:
        return None
    sequence, longest = opening
    if most is not None and int(most) < longest:
        return None
    rest = "*" if most is None else f"{{0,{int(most) - longest}}}"
    rules.setdefault("char", _CHAR)
    body = " ".join(filter(None, [r'"\""', sequence, f"char{rest}", r'"\""']))
    same = next((name for name, other in rules.items() if other == body), None)
    if same is not None:  # the rows of one answer share their strings' rule
        return same
    name = (f"string-{int(most)}" if most is not None else "string") + (
        f"-{len(rules)}" if sequence else "")
    rules[name] = body
    return name


def _opening(pattern: str) -> tuple[str, int] | None:
    """The GBNF sequence a ``^text(one|other)text`` pattern's strings begin with (anything may
    follow) and its longest length; None for any other pattern."""
    match = _OPENING.fullmatch(pattern)
    if match is None:
        return None
    before, choices, after = match.group(1), match.group(2), match.group(3)
    options = choices.split("|") if choices is not None else [""]
    parts = [_literal(before) if before else "",
             "(" + " | ".join(_literal(o) for o in options) + ")" if choices is not None else "",
             _literal(after) if after else ""]
    return " ".join(filter(None, parts)), len(before) + max(map(len, options)) + len(after)


def _array(spec: dict[str, Any], rules: dict[str, str]) -> str | None:
    if "prefixItems" in spec:  # exactly these items, in order
        given = [_value(item, rules) for item in spec["prefixItems"]]
        if spec.get("items", True) is not False or None in given:
            return None
        name = f"array-{len(rules)}"
        rules[name] = " ".join(['"["', ' "," '.join(map(str, given)), '"]"'])
        return name
    item = _value(spec.get("items") or {}, rules)
    least, most = int(spec.get("minItems", 0)), spec.get("maxItems")
    if item is None or least > 1 or (most is not None and int(most) < max(least, 1)):
        return None
    more = f'("," {item})' + ("*" if most is None else f"{{0,{int(most) - 1}}}")
    items = f"{item} {more}" if int(most or 2) > 1 else item
    name = f"array-{len(rules)}"
    rules[name] = f'"[" {items} "]"' if least == 1 else f'"[" ({items})? "]"'
    return name


def _object(spec: dict[str, Any], rules: dict[str, str]) -> str | None:
    properties: dict[str, Any] = spec.get("properties") or {}
    if (not properties or spec.get("additionalProperties", True) is not False
            or set(spec.get("required") or ()) != set(properties)):
        return None
    parts = []
    for i, (key, value) in enumerate(properties.items()):
        reference = _value(value, rules)
        if reference is None:
            return None
        parts.append(f"{_literal(('{' if i == 0 else ',') + json.dumps(key) + ':')} {reference}")
    name = f"object-{len(rules)}"
    rules[name] = " ".join([*parts, _literal("}")])
    return name


def cited_lines(markers: list[str], max_lines: int = 6) -> str:
    """GBNF: one to ``max_lines`` lines, each some text (no line break, no ``[``) followed by
    one or more of ``markers`` and maybe a full stop."""
    cites = " | ".join(_literal(m) for m in markers)
    more = "".join(' ("\\n" line' for _ in range(max_lines - 1)) + ")?" * (max_lines - 1)
    return "\n".join([f"root ::= line{more}",
                       'line ::= [^\\n\\[]+ cite+ "."?',
                       f'cite ::= " "? ({cites})'])

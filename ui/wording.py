"""How numbers and counts read on every page: one helper, so 18,321 looks the same everywhere."""

from __future__ import annotations

DASH = "–"  # a value that does not apply (explained where it is shown)


def number(value: float | int | None, digits: int = 1) -> str:
    """``18,321`` for counts, ``12.5`` for measures, a dash for no value."""
    if value is None:
        return DASH
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def count(value: int, word: str, plural: str | None = None) -> str:
    """``1 table``, ``3 tables``, ``1,204 chunks`` (``plural`` for irregular words)."""
    return f"{value:,} {word if value == 1 else plural or word + 's'}"

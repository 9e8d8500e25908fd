"""Numbers a server reports about itself (context size, slots, speeds), read without trusting
them: anything that is not a positive number reads as not reported."""

from __future__ import annotations

from typing import Any


def positive_int(value: Any) -> int | None:
    """``value`` as a positive int, else None."""
    number = positive_float(value)
    return None if number is None or int(number) <= 0 else int(number)


def positive_float(value: Any) -> float | None:
    """``value`` as a positive number, else None."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None

"""What tolerant parsing changed in an answer, recorded so it is shown to the user and never
silent, and the one rule every parser follows: strict parsing rejects what tolerant parsing
repairs (:func:`reject_or_repair`)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from core.llm.errors import LLMError, TSVError

RepairKind = Literal["code_fence", "preamble", "header_row", "anchor_clamped", "title_matched",
                     "reordered", "structure_fallback", "markdown_table", "list_numbers",
                     "json_rows", "columns_fixed", "trailing_text", "repeat_dropped",
                     "rows_dropped", "value_fixed", "example_copy", "answer_cut",
                     "boundary_fallback", "anchor_from_title", "shortened"]
REPAIR_NAMES: dict[RepairKind, str] = {
    "code_fence": "markdown code fence removed",
    "preamble": "preamble line removed",
    "header_row": "header row dropped",
    "anchor_clamped": "anchor past the end moved to the last one",
    "title_matched": "title matched to the document's heading",
    "reordered": "lines put in order",
    "structure_fallback": "the document's own sections used instead of the model's",
    "markdown_table": "Markdown table read as tab-separated rows",
    "list_numbers": "list numbering removed",
    "json_rows": "JSON read as tab-separated rows",
    "columns_fixed": "columns separated by spaces, or a tab inside a value, read as meant",
    "trailing_text": "explanation after the data removed",
    "repeat_dropped": "repeated row dropped",
    "rows_dropped": "rows that cannot belong to this text dropped",
    "value_fixed": "invalid value replaced",
    "example_copy": "lines copied from the template's example dropped",
    "answer_cut": "the complete rows of an answer cut at its token limit kept",
    "boundary_fallback": "section split by the recursive splitter instead of the model",
    "anchor_from_title": "section placed at the heading its title names",
    "shortened": "a sentence that ran long cut back to whole sentences",
}
T = TypeVar("T")


@dataclass(frozen=True)
class Repair:
    """One thing tolerant parsing changed in an answer, with the raw line it changed."""

    kind: RepairKind
    label: str  # the phase, as errors name it
    line_number: int | None
    line: str
    detail: str = ""

    @property
    def name(self) -> str:
        return REPAIR_NAMES[self.kind]


class Repairs:
    """The repairs made while parsing one document's answers (thread-safe)."""

    def __init__(self) -> None:
        self._items: list[Repair] = []
        self._lock = threading.Lock()

    def add(self, kind: RepairKind, label: str, line_number: int | None, line: str,
            detail: str = "") -> None:
        with self._lock:
            self._items.append(Repair(kind, label, line_number, line, detail))

    def extend(self, other: Repairs) -> None:
        with self._lock:
            self._items.extend(other.items)

    @property
    def items(self) -> list[Repair]:
        with self._lock:
            return list(self._items)

    def counts(self) -> Counter[RepairKind]:
        return Counter(r.kind for r in self.items)


def tolerantly(repairs: Repairs | None, parse: Callable[[Repairs | None], T]) -> T:
    """``parse(repairs)``, keeping the repairs only when the whole answer parsed."""
    if repairs is None:
        return parse(None)
    draft = Repairs()
    result = parse(draft)
    repairs.extend(draft)
    return result



def reject_or_repair(repairs: Repairs | None, kind: RepairKind, error: LLMError,
                     detail: str = "") -> None:
    """Strict (``repairs`` None): raise ``error``. Tolerant: record the repair ``kind`` on the
    line the error names, with ``detail`` (the error's reason when empty), and go on."""
    if repairs is None:
        raise error
    number, line = (error.line_number, error.line or "") if isinstance(error, TSVError) else (
        None, "")
    repairs.add(kind, error.label, number, line, detail or error.reason)

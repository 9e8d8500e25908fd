"""Footnotes are read as blocks of their own after the paragraph they interrupt, never inside
a sentence that goes on in the next column (tests/fixtures/pdf/notes, printed by Chromium)."""

from __future__ import annotations

from pathlib import Path

from core.documents.pdf import convert_pdf_offline
from corpora.pdf_notes import NOTES
from corpora.pdf_score import word_f1

FOLDER = Path(__file__).resolve().parent / "fixtures" / "pdf" / "notes"


def test_footnotes_follow_the_paragraph_they_interrupt_and_stand_alone() -> None:
    converted = convert_pdf_offline((FOLDER / "footnotes-columns.pdf").read_bytes(), "f.pdf")
    text = converted.text
    reference = (FOLDER / "footnotes-columns.md").read_text(encoding="utf-8")
    assert word_f1(text, reference) >= 0.97
    sentence = "Staff turnover was low, though recruiting experienced fitters remained difficult."
    assert sentence in text  # across the column break, no footnote inside
    blocks = [text[b.start:b.end] for b in converted.blocks]
    spanning = next(i for i, b in enumerate(blocks) if sentence in b)
    for n, note in enumerate(NOTES, start=1):
        found = [i for i, b in enumerate(blocks) if note in b]
        assert len(found) == 1 and blocks[found[0]] == f"{n} {note}"
        assert found[0] > spanning

"""Right-to-left PDFs (Arabic, Hebrew) as Chromium prints them read in reading order."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.documents.pdf import convert_pdf_offline
from core.documents.pdf.direction import logical
from corpora.pdf_score import heading_recall, reference_headings, word_f1

RTL = Path(__file__).resolve().parent / "fixtures" / "pdf" / "rtl"


@pytest.mark.parametrize("name", ["arabic-report", "hebrew-guide"])
def test_a_right_to_left_pdf_reads_like_its_reference(name: str) -> None:
    converted = convert_pdf_offline((RTL / f"{name}.pdf").read_bytes(), f"{name}.pdf")
    reference = (RTL / f"{name}.md").read_text(encoding="utf-8")
    assert word_f1(converted.text, reference) >= 0.98
    assert heading_recall([s.title for s in converted.sections],
                          reference_headings(reference)) == 1.0
    assert converted.quality is not None
    assert converted.quality.right_to_left_share > 0.9
    assert "lines put in reading order" in converted.quality.summary()


def test_numbers_latin_words_ligatures_and_columns_keep_their_order() -> None:
    text = convert_pdf_offline((RTL / "arabic-report.pdf").read_bytes(), "a.pdf").text
    assert "بدأ مشروع المكتبة الرقمية في عام 2019 بهدف" in text
    assert "أكثر من 45000 وثيقة، منها 12.5 في المئة" in text
    assert "إلى ملفات PDF قابلة للبحث" in text
    assert "## الأهداف الرئيسية" in text and "خلال السنة الأولى" in text  # lam-alef
    # a two-column passage: the right column first
    assert text.index("خلال السنة الأولى") < text.index("وفي السنة الثانية") < text.index(
        "أما في السنة الثالثة")
    hebrew = convert_pdf_offline((RTL / "hebrew-guide.pdf").read_bytes(), "h.pdf").text
    assert "בין השעות 9:00 ל 19:00." in hebrew
    assert "באמצעות חשבון Google של המוסד" in hebrew


def test_a_visual_line_is_read_logically_and_presentation_forms_become_letters() -> None:
    assert logical("PDF םע 2024 תנשב") == "בשנת 2024 עם PDF"
    # shaped glyphs standing left to right: lam-alef, medial meem, initial seen
    assert logical("\ufefb\ufee3\ufeb3") == "\u0633\u0645\u0644\u0627"
    assert logical("hello world") == "hello world"

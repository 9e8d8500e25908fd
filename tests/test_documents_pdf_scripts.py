"""Every script spaced as printed (tests/fixtures/pdf/scripts, printed by Chromium, which draws
no space glyph): Hangul words keep their spaces, Chinese and Japanese get none, Arabic vowel
marks stay on their letters and a Latin word beside an Arabic one keeps its space."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import pytest

from core.documents.model import ConvertedText
from core.documents.pdf import convert_pdf_offline
from core.documents.pdf.chars import Word
from core.documents.pdf.layout import join_words, rejoin_spaced
from core.documents.pdf.writer import join_lines
from corpora.pdf_score import word_f1
from corpora.pdf_scripts import SCRIPTS, korean

FOLDER = Path(__file__).resolve().parent / "fixtures" / "pdf" / "scripts"


@cache
def converted(name: str) -> ConvertedText:
    return convert_pdf_offline((FOLDER / f"{name}.pdf").read_bytes(), f"{name}.pdf")


@pytest.mark.parametrize("name", ["korean", "arabic-marks", "scripts"])
def test_each_script_reads_like_its_reference(name: str) -> None:
    reference = (FOLDER / f"{name}.md").read_text(encoding="utf-8")
    assert word_f1(converted(name).text, reference) >= 0.97


def test_hangul_words_keep_the_spaces_printed_between_them() -> None:
    text = converted("korean").text
    assert "# 북부 지역 상수도 연간 보고서" in text
    assert "분석에는 Python과 SQL을 사용하였다." in text
    assert "누수량은 압력 관리 구역을 넓힌 뒤 삼 년 연속으로 줄어들었다." in text


def test_arabic_vowel_marks_stay_on_their_letters_and_latin_words_keep_their_space() -> None:
    text = converted("arabic-marks").text
    for phrase in ["ويستخدم أيضًا أدوات أخرى بناءً على", "لغة Python من أجل", "Git هو الأداة",
                   "كَتَبَ المهندسُ الشيفرةَ جيدًا", "نعمل معًا خطوةً خطوةً",
                   "في الفرع الرئيسي main", "نسبةٌ جيدةٌ جدًّا"]:
        assert phrase in text
    assert not re.search(r"(^|\s)[\u064b-\u0652]", text)  # no word starts with a mark


def test_chinese_and_japanese_get_no_invented_spaces_and_other_scripts_keep_theirs() -> None:
    text = converted("scripts").text
    for _, _, paragraph in SCRIPTS:
        assert paragraph in text


def _word(text: str, x0: float, x1: float) -> Word:
    return Word(text=text, x0=x0, x1=x1, top=0.0, bottom=10.0, size=10.0, bold=0.0,
                chars=len(text), spaced=False)


def test_ideographs_join_without_a_space_hangul_and_latin_with_one() -> None:
    assert join_words([_word("供水", 0, 20), _word("管網", 24, 44)]) == "供水管網"
    assert join_words([_word("상수도", 0, 30), _word("연간", 34, 54)]) == "상수도 연간"
    assert join_lines(["夏季乾旱期間", "需求急劇上升"]) == "夏季乾旱期間需求急劇上升"
    assert join_lines(["저녁 시간의", "정원 용수"]) == "저녁 시간의 정원 용수"


def test_a_latin_word_is_never_joined_to_the_arabic_word_beside_it() -> None:
    # "Python" then (to its right, read first) "من", a narrow gap between them
    words = rejoin_spaced([_word("Python", 0, 30), _word("نم", 31, 40)])
    assert [w.text for w in words] == ["Python", "نم"]
    # two fragments of one Latin word are still joined
    assert [w.text for w in rejoin_spaced([_word("Pyt", 0, 15), _word("hon", 15.3, 30)])] == [
        "Python"]


def test_the_korean_pdf_is_made_with_a_hangul_font() -> None:
    """Remaking the fixtures needs Chromium and a font with Hangul (fonts-nanum): without them
    this fails, it never passes on boxes for letters."""
    made = korean(random.Random("korean"))
    assert made is not None, "Chromium (/usr/bin/chromium) and Playwright are needed"
    data, doc = made
    text = convert_pdf_offline(data, "korean.pdf").text
    assert word_f1(text, doc.markdown()) >= 0.97

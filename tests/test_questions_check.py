"""`questions check`: each fault planted in a question set is found, in its row, and nothing
is found in a clean set; the size the set needs for a difference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.documents import convert
from core.evaluation.questions import Question, Reference, to_csv
from core.evaluation.stats import questions_needed, sign_test
from core.operations.questions.check import (
    DUPLICATE,
    FRONT_MATTER,
    NEAR_DUPLICATE,
    NO_CONTENT,
    NOT_FOUND,
    SHORT,
    WINS_PER_LOSS,
)

ROOT = Path(__file__).resolve().parents[1]
GUIDE = """# Claims Field Guide

## Contents

1 Intake . . . . . . . 2
2 Assessment . . . . . . . 5
3 Appeals . . . . . . . 9

## Intake

Every claim is registered within two working days of receipt by the intake desk, which assigns \
a case number and sends the claimant a written acknowledgement.

## Assessment

An assessor visits the insured property within ten working days and writes a report that lists \
the damage, its likely cause and an estimate of the repair cost.

## Appeals

A claimant who disagrees with a decision may appeal in writing within thirty days; a senior \
assessor who took no part in the first decision reviews the file.
"""


def _reference(text: str, excerpt: str) -> Reference:
    start = text.index(excerpt)
    return Reference(excerpt, start, start + len(excerpt))


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    text = convert(GUIDE.encode(), "guide.md").text

    def ask(row: int, question: str, *refs: Reference) -> Question:
        return Question(row, question, "guide.md", refs)

    intake = _reference(text, "registered within two working days of receipt")
    visit = _reference(text, "An assessor visits the insured property within ten working days")
    moved = Reference(intake.content, intake.start + 7, intake.end + 7)
    questions = [
        ask(2, "How soon is a claim registered after receipt?", intake),  # clean
        ask(3, "Within how many days may a claimant appeal a decision?", moved),
        ask(4, "On which page does the assessment chapter start?",
            _reference(text, "2 Assessment . . . . . . . 5")),
        ask(5, "What does the document say about this?",
            _reference(text, "may appeal in writing within thirty days")),
        ask(6, "How long does the assessor take to visit?", _reference(text, "ten working")),
        ask(7, "How soon is a claim registered after receipt?", intake),
        ask(8, "How soon is the claim registered after receipt?", intake),
        ask(9, "Who writes the damage report for an insured property?", visit),
        ask(10, "What does a damage report estimate for the property?", visit),
    ]
    path = tmp_path / "planted.csv"
    path.write_bytes(to_csv(questions))
    return path, docs


def test_each_planted_fault_is_found_in_its_row(planted, capsys):
    questions, docs = planted
    assert main(["questions", "check", "--questions", str(questions), "--docs", str(docs)]) == 1
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    found = {(f["row"], f["kind"]) for f in out["findings"]}
    assert found == {(3, NOT_FOUND), (4, FRONT_MATTER), (5, NO_CONTENT), (6, SHORT),
                     (7, DUPLICATE), (8, NEAR_DUPLICATE), (10, NEAR_DUPLICATE)}
    details = {f["row"]: f["detail"] for f in out["findings"]}
    assert "contents" in details[4] and "row 2" in details[7] and "row 2" in details[8]
    assert "same excerpt as row 9" in details[10]
    assert out["rows"] == 9 and out["counts"][NEAR_DUPLICATE] == 2
    assert out["summary"] in captured.err and out["size"]["sentence"] in captured.err
    assert out["size"]["questions"] == 8  # the row whose reference is not found is skipped


def test_a_clean_set_has_no_finding(capsys):
    argv = ["questions", "check", "--questions",
            str(ROOT / "sample_docs" / "questions" / "insurance_policy.csv"),
            "--docs", str(ROOT / "sample_docs"), "--difference", "0.1"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["findings"] == [] and out["summary"].startswith("Nothing found")
    size = out["size"]
    assert size["difference"] == 0.1 and size["needed"] == questions_needed(0.15, 0.05)
    assert size["sentence"].endswith(f"this one has {size['questions']}: too few.")


def test_the_size_needed_is_the_fewest_the_sign_test_separates():
    behind = 0.05 / (WINS_PER_LOSS - 1)
    needed = questions_needed(WINS_PER_LOSS * behind, behind)
    assert needed is not None

    def p(n: int) -> float:
        return sign_test(round(WINS_PER_LOSS * behind * n), round(behind * n))

    assert p(needed) < 0.05 <= p(needed - 1)
    assert questions_needed(0.1, 0.1) is None


def test_a_bad_difference_is_one_line(planted, capsys):
    questions, docs = planted
    assert main(["questions", "check", "--questions", str(questions), "--docs", str(docs),
                 "--difference", "5"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: --difference must be between 0 and 1, not 5.0.")

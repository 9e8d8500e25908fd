"""`questions evidence`: for questions written by hand about the shipped documents, the
passage that answers each is among the best three the lexical search lists, with exact spans
and pages; front matter is never offered, passages never overlap, and a question without a
reference is listed without a verdict."""

from __future__ import annotations

import json
from pathlib import Path

from core.cli import main
from core.documents import convert
from core.evaluation.excerpts import locate
from core.evaluation.questions import Question, Reference, to_csv
from core.operations.questions.evidence import PassageIndex, evidence_for_questions

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_docs"

# Written by hand from passages of the shipped documents, in a reader's words rather than the
# document's: (document, question, the passage that answers it).
HAND_WRITTEN = [
    ("technical_handbook.md", "How much heap memory should the broker's JVM get at most?",
     "Give the broker JVM no more than 8 GiB of heap."),
    ("technical_handbook.md", "What hardware does a Large cluster use?",
     "| Large | 6 | 16 | 64 GiB | 4 TiB NVMe | Up to 250,000 messages per second |"),
    ("insurance_policy.docx", "What phone number do I call to report a claim?",
     "Give prompt notice to us or to your agent; the claims line at 1-800-555-0142 is staffed "
     "every day of the year."),
    ("insurance_policy.docx", "What is meant by residence premises?",
     "Residence premises means the one-family dwelling where you live, shown in the "
     "Declarations, together with the other structures and grounds at that location."),
    ("product_manual.html", "Why won't my milk foam, and how do I fix it?",
     "| Milk will not foam             | Milk too warm, or a low-fat milk that foams poorly | "
     "Start with milk straight from the refrigerator; try whole milk |"),
    ("product_manual.html", "Where is the steam wand on the machine?",
     "The steam wand is on the right and the hot-water outlet on the left; both are operated "
     "by rotary knobs above them."),
    ("field_report.pdf", "How far were the sampling sites from the nearest confluence or "
                         "outfall?",
     "All sites are at least 50 metres downstream of any confluence or outfall, so that inflows "
     "have had a chance to mix across the channel."),
    ("field_report.pdf", "How much did phosphorus rise below the treatment works in dry "
                         "weather?",
     "In dry weather it was between 0.05 and 0.09 mg/l at the four sites above the treatment "
     "works and 0.42 mg/l just below it, a five-fold increase over a distance of 1.6 "
     "kilometres."),
    ("meeting_transcript.txt", "How long will the afternoon offer trial at Eastgate run?",
     "Hannah, can you run it as a four-week trial at Eastgate only, starting after the "
     "Riverside switchover, and bring numbers back?"),
    ("service_levels.csv", "What availability target do payment authorisations have?",
     "| payments.authorised       | payments      | 40                     | 99.99%"),
]


def _hand_written_csv(path: Path) -> Path:
    questions = []
    for name, question, excerpt in HAND_WRITTEN:
        text = convert((SAMPLES / name).read_bytes(), name).text
        span = locate(excerpt, text)
        assert span is not None, f"{excerpt!r} is not in {name}"
        questions.append(Question(0, question, name, (Reference(text[span[0]:span[1]],
                                                                *span),)))
    path.write_bytes(to_csv(questions))
    return path


def test_the_answering_passage_is_in_the_top_three_for_eight_of_ten(tmp_path, capsys):
    csv = _hand_written_csv(tmp_path / "hand_written.csv")
    assert main(["questions", "evidence", "--questions", str(csv), "--docs", str(SAMPLES),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["with_reference"] == 10
    assert out["found"] >= 8, [q["question"] for q in out["questions"] if not q["found"]]


GUIDE = """# Claims Field Guide

## Contents

1 Appeals of a claim decision . . . . . . . 2
2 Assessment visits . . . . . . . 5
3 Payment of a claim . . . . . . . 9

## Appeals

A claimant who disagrees with a decision may appeal in writing within thirty days. A senior \
assessor who took no part in the first decision reviews the file.

## Assessment

An assessor visits the insured property within ten working days and writes a report.
"""


def test_passages_are_exact_apart_and_never_front_matter():
    document = convert(GUIDE.encode(), "guide.md")
    passages = PassageIndex(document).best("How do I appeal a claim decision?")
    assert passages, "the appeals paragraph matches"
    assert all(p.text == document.text[p.start:p.end] for p in passages)
    assert "appeal in writing within thirty days" in passages[0].text
    contents = document.text.index("1 Appeals")
    assert all(not p.start <= contents < p.end for p in passages), "a contents line offered"
    spans = sorted((p.start, p.end) for p in passages)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False)), "overlapping"
    assert PassageIndex(document).best("What colour is the sky?") == []


def test_a_question_without_reference_is_listed_without_verdict_and_pages_are_given():
    report = convert((SAMPLES / "field_report.pdf").read_bytes(), "field_report.pdf")
    guide = convert(GUIDE.encode(), "guide.md")
    start = guide.text.index("An assessor visits")
    end = guide.text.index("a report.") + len("a report.")
    asked = [Question(2, "Within how many days does an assessor visit?", "guide.md",
                      (Reference(guide.text[start:end], start, end),)),
             Question(3, "What was the total phosphorus below the treatment works?",
                      "field_report.pdf", (), "unanswerable")]
    found = evidence_for_questions("mine", asked, {"guide.md": guide,
                                                   "field_report.pdf": report})
    visit, phosphorus = found.questions
    assert visit.found is True and visit.passages[0].reference
    assert phosphorus.found is None and phosphorus.passages
    assert all(p.pages and min(p.pages) >= 1 for p in phosphorus.passages)
    assert found.counts() == (1, 1)
    assert "among them for 1 of the 1 with a reference" in found.summary()


def test_the_cli_lists_spans_and_marks_the_reference(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    text = convert(GUIDE.encode(), "guide.md").text
    excerpt = "A claimant who disagrees with a decision may appeal in writing within thirty days."
    start = text.index(excerpt)
    csv = tmp_path / "q.csv"
    csv.write_bytes(to_csv([Question(0, "How long do I have to appeal?", "guide",
                                     (Reference(excerpt, start, start + len(excerpt)),))]))
    assert main(["questions", "evidence", "--questions", str(csv), "--docs", str(docs)]) == 0
    out, err = capsys.readouterr()
    assert "How long do I have to appeal? [reference found]" in out
    assert f"1. {start}–" in out and "the reference" in out
    assert "among them for 1 of the 1" in err

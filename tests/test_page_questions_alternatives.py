"""The Question sets page under AppTest: an alternative is added from another loaded document
(a clause repeated in a rider), listed with that document's name, checked against it, and saved
with its ``corpus_id``."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.documents import convert
from core.evaluation.questions import parse_questions
from core.operations.questions.sets import make_question, save_set, saved_csv
from tests.docfactory import CLAIMS_HANDBOOK as HANDBOOK
from tests.pages import click, page_path, texts, use_samples

CLAUSE = "Claims are reported by phone or through the online portal at any time of day."
RIDER = "# Travel rider\n\n## Reporting abroad\n\n" + CLAUSE + "\n\nKeep every receipt.\n"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from use_samples(tmp_path, monkeypatch, {"claims_handbook.md": HANDBOOK,
                                                   "travel_rider.md": RIDER})


def _key(at: AppTest, widgets: str, prefix: str) -> str:
    return next(w.key for w in getattr(at, widgets) if w.key and w.key.startswith(prefix))


def test_an_alternative_from_another_document_is_listed_and_saved_with_it(data):
    handbook = convert(HANDBOOK.encode(), "claims_handbook.md")
    start = handbook.text.index(CLAUSE)
    save_set("mine", [make_question(handbook, "How do I report a claim?", start,
                                    start + len(CLAUSE))])
    at = AppTest.from_file(page_path("questions"), default_timeout=120).run()
    at.selectbox(key="questions_saved").set_value("mine").run()
    at = click(at, "questions_open")

    document = at.selectbox(key=_key(at, "selectbox", "qe_alt_doc_"))
    assert document.options == ["claims_handbook.md", "travel_rider.md"]
    assert document.value == "claims_handbook.md"  # the question's own document first
    document.set_value("travel_rider.md")
    at.text_area(key=_key(at, "text_area", "qe_alt_excerpt_")).set_value(
        "claims are reported by phone or through the online portal")
    at = click(at, "questions_alt_add")
    assert not at.error, [e.value for e in at.error]
    assert list(at.dataframe[0].value["Alternatives"]) == [1]
    rider = convert(RIDER.encode(), "travel_rider.md")
    at_rider = rider.text.index("Claims are reported")
    assert (f"Alternative 1, in travel_rider.md, characters {at_rider:,}–"
            f"{at_rider + len('Claims are reported by phone or through the online portal'):,}: "
            "Claims are reported by phone") in texts(at)
    assert "Not in the library" not in texts(at)

    # the rider's clause again is refused (the same offsets in the handbook would be another
    # place: tests/test_cross_document_alternatives.py)
    at.selectbox(key=_key(at, "selectbox", "qe_alt_doc_")).set_value("travel_rider.md")
    at.text_area(key=_key(at, "text_area", "qe_alt_excerpt_")).set_value(
        "Claims are reported by phone or through the online portal")
    at = click(at, "questions_alt_add")
    assert any("already accepted" in e.value for e in at.error)

    at = click(at, "questions_check")  # validation finds the rider by the name it carries
    assert "Nothing found that would spoil a run of the 1 questions." in texts(at)

    at.text_input(key="questions_name_mine").set_value("mine")
    at = click(at, "questions_save")
    raw = saved_csv("mine").decode()
    [saved] = parse_questions(raw).questions
    [[reference]] = saved.alternatives
    assert reference.corpus_id == "travel_rider.md"
    assert rider.text[reference.start:reference.end] == reference.content
    assert json.dumps({"corpus_id": "travel_rider.md"})[1:-1] in raw.replace('""', '"')
    assert saved.corpus_id == "claims_handbook.md" and saved.corpus_ids == [
        "claims_handbook.md", "travel_rider.md"]

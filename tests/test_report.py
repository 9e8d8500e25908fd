"""The evaluation report: untrusted text escaped, its size stated and kept under the cap for a
500-question set, nothing referenced outside the file, and the passages marked and cut."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from core.operations.report import MAX_BYTES, evaluation_report
from core.operations.report.markup import LIBRARY_ID, human_size
from core.operations.report.passages import excerpt, passage_cap, window
from tests.report_helpers import outside_references, synthetic_evaluation

HOSTILE_QUESTION = '<script>alert("question")</script> and "quotes" & <b>tags</b>'
HOSTILE_TEXT = '<img src=x onerror=alert("doc")></p><script>alert("doc")</script> '
HOSTILE_LABEL = "<b onmouseover=alert(3)>big</b> {c}"


class _Elements(HTMLParser):
    """Every element of a page, with its attributes, and the scripts' ids."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _elements(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(page)
    return parser.tags


@pytest.fixture(scope="module")
def hostile_report() -> str:
    evaluation, inputs = synthetic_evaluation(6, 3, k=2, chunk=120,
                                              question_text=HOSTILE_QUESTION + " {n}",
                                              filler=HOSTILE_TEXT, label=HOSTILE_LABEL)
    return evaluation_report(evaluation, inputs).decode()


def test_hostile_questions_chunks_and_names_stay_text(hostile_report):
    page = hostile_report
    elements = _elements(page)
    tags = {tag for tag, _ in elements}
    assert "img" not in tags and "i" not in tags and "b" not in tags
    assert not [(tag, name) for tag, attrs in elements for name in attrs
                if name.startswith("on")]
    scripts = [attrs.get("id") for tag, attrs in elements if tag == "script"]
    figures = page.count('class="plotly-graph-div"')
    assert figures == 2  # the metrics and the probability each configuration is best
    assert scripts.count(LIBRARY_ID) == 1 and len(scripts) == 1 + figures + 1  # + the filter
    assert "&lt;script&gt;alert(&quot;question&quot;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(&quot;doc&quot;)&gt;" in page
    assert "&lt;b onmouseover=alert(3)&gt;big&lt;/b&gt; 1" in page
    assert "Which is best" in page  # three configurations: each one's chance of being best


def test_chart_text_cannot_carry_markup(hostile_report):
    page = hostile_report
    # Plotly reads tags in its text: a name reaches it escaped (its JSON escapes < once more).
    assert "\\u003cb onmouseover" not in page and "&lt;b onmouseover=alert(3)&gt;" in page


def test_a_report_references_nothing_outside_itself(hostile_report):
    assert outside_references(hostile_report) == []


@pytest.mark.parametrize("planted", [
    '<img src="https://example.com/logo.png">',
    '<link rel="stylesheet" href="http://cdn.example.com/site.css">',
    '<script src="plotly.min.js"></script>',
    "<style>@import 'fonts.css';</style>",
    '<div style="background:url(http://example.com/a.png)"></div>',
    "<script>fetch('https://example.com/beacon')</script>",
    '<a href="report-2.html">next</a>',
])
def test_the_check_finds_any_reference_outside(hostile_report, planted):
    page = hostile_report.replace("</main>", planted + "</main>")
    assert outside_references(page) != []


def test_a_500_question_report_states_its_size_and_stays_under_the_cap():
    evaluation, inputs = synthetic_evaluation(500, 4, k=5, chunk=1000)
    report = evaluation_report(evaluation, inputs)
    assert len(report) < MAX_BYTES
    page = report.decode()
    assert f"Size: {human_size(len(report))}." in page
    assert page.count('<details class="q"') == 500
    cap = passage_cap(500 * 4 * 5)
    assert cap < 1000 and f"at most {cap:,} characters" in page
    states = set(re.findall(r'<details class="q" data-state="(\w+)"', page))
    assert states == {"found", "missed", "split"}


def test_every_configuration_and_the_inputs_are_in_the_report():
    evaluation, inputs = synthetic_evaluation(3, 3, k=2)
    page = evaluation_report(evaluation, inputs).decode()
    for name in ("configuration 1", "configuration 2", "configuration 3", "synthetic.csv",
                 "abc123", "manual", "No difference on recall detectable"):
        assert name in page


def test_a_long_chunk_is_cut_around_its_reference_and_the_reference_marked():
    text = "a" * 1000 + "THE ANSWER" + "b" * 1000
    shown = excerpt(text, 0, len(text), [(1000, 1010)], cap=200)
    assert shown.startswith("…") and shown.endswith("…")
    assert "<mark>THE ANSWER</mark>" in shown
    assert len(shown.replace("<mark>", "").replace("</mark>", "")) == 202
    assert window(0, 100, [(1000, 1010)], cap=200) == (0, 100)  # fits: all of it
    assert window(0, 2010, [], cap=200) == (0, 200)  # touches none: from its start


def test_a_reference_partly_inside_a_chunk_is_marked_only_there():
    text = "0123456789"
    assert excerpt(text, 2, 8, [(0, 4), (7, 20)], cap=100) == "<mark>23</mark>456<mark>7</mark>"
    assert excerpt("<&>", 0, 3, [(1, 2)], cap=10) == "&lt;<mark>&amp;</mark>&gt;"
